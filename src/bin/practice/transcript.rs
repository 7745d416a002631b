//! The transcript `practice` prints: the conversation as it happens, then how the run ended and the claims against the evidence.
//!
//! Every line from outside (a model, the workspace, the program) goes through `say!`, so its
//! control characters are shown escaped, and is indented under a label of practice's own.

use std::borrow::Cow;
use std::io::Write;

use todo_trace::host::loop_scenarios::MARKER;
use todo_trace::host::native::{claims_of, shown, table_lines};
use todo_trace::lesson::agent_types::{Model, ModelError, Outcome, Request, Stop};
use todo_trace::lesson::format_todos;
use todo_trace::lesson::types::{Block, Content, Lang, Message, Role};

/// Prints the conversation as it happens: each request's new messages, then the reply.
pub(super) struct Narrated<'a> {
    pub model: &'a mut dyn Model,
    pub lang: Lang,
    /// How many messages of the history have been printed.
    pub shown: usize,
}

impl Model for Narrated<'_> {
    fn reply(&mut self, request: &Request) -> Result<Vec<Block>, ModelError> {
        print_messages(&request.messages, self.shown, self.lang);
        let reply = self.model.reply(request)?;
        let mut seen = request.messages.clone();
        seen.push(Message {
            role: Role::Assistant,
            content: Content::Blocks(reply.clone().into()),
        });
        print_messages(&seen, request.messages.len(), self.lang);
        self.shown = seen.len();
        Ok(reply)
    }

    fn describe(&self) -> Cow<'_, str> {
        self.model.describe()
    }
}

/// Prints text from outside, every line indented, so none of it starts a line of its own (where
/// it could pass for `practice`'s own words, or its question). Split on `\n` alone: a `\r` is
/// shown, not taken as part of a line ending.
fn indented(text: &str) {
    for line in text.trim_end().split('\n') {
        say!("    {line}");
    }
}

/// Prints `label` and text from outside: its first line after the label, the others indented.
pub(super) fn labelled(label: &str, text: &str) {
    let mut lines = text.trim_end().split('\n');
    say!("{label}{}", lines.next().unwrap_or(""));
    for line in lines {
        say!("    {line}");
    }
}

/// Prints `messages[from..]`; the first message (the question) is printed once by `main`.
pub(super) fn print_messages(messages: &[Message], from: usize, lang: Lang) {
    let mut calls = messages[..from.min(messages.len())]
        .iter()
        .filter(|message| message.role == Role::Assistant)
        .count();
    for message in messages.iter().skip(from.max(1)) {
        let Content::Blocks(blocks) = &message.content else { continue };
        if message.role == Role::Assistant {
            calls += 1;
        }
        for block in blocks.iter() {
            match block {
                Block::Text { text } if message.role == Role::Assistant => match lang {
                    Lang::Zh => labelled(&format!("模型（第 {calls} 次调用）："), text),
                    Lang::En => labelled(&format!("Model (call {calls}): "), text),
                },
                Block::Text { text } => {
                    labelled(lang.pick("  宿主附加：", "  The host adds: "), text)
                }
                Block::ToolUse { name, input, .. } => match lang {
                    Lang::Zh => labelled(
                        &format!("模型（第 {calls} 次调用）：调用 "),
                        &format!("{name} {input}"),
                    ),
                    Lang::En => labelled(
                        &format!("Model (call {calls}): calls "),
                        &format!("{name} {input}"),
                    ),
                },
                Block::ToolResult { tool_use_id, content, is_error } => {
                    let label = match (tool_name(messages, tool_use_id), is_error) {
                        ("todo_write", false) => lang.pick("  计划已更新：", "  Plan updated:"),
                        (_, false) => lang.pick("  结果：", "  Result:"),
                        (_, true) => lang.pick("  结果（错误）：", "  Result (error):"),
                    };
                    say!("{label}");
                    indented(content);
                }
            }
        }
    }
}

/// The name of the tool a result answers.
fn tool_name<'a>(messages: &'a [Message], id: &str) -> &'a str {
    messages
        .iter()
        .filter_map(|message| match &message.content {
            Content::Blocks(blocks) => Some(blocks.iter()),
            Content::Text(_) => None,
        })
        .flatten()
        .find_map(|block| match block {
            Block::ToolUse { id: known, name, .. } if known == id => Some(name.as_str()),
            _ => None,
        })
        .unwrap_or("")
}

/// The end of a transcript. `ran` is whether `main.py` left its marker, for a run with a
/// workspace; a replay has none, and runs no program.
pub(super) fn print_summary(
    outcome: &Outcome,
    ran: Option<bool>,
    expected: Option<&str>,
    lang: Lang,
) {
    let stop = match (outcome.stop, lang) {
        (Stop::Answered, Lang::Zh) => "answered（模型不再调用工具而给出了回答；这本身不说明工作已完成）",
        (Stop::Answered, Lang::En) => {
            "answered (the model replied without a tool call; that alone does not show the work was done)"
        }
        (Stop::CallLimit, Lang::Zh) => "call_limit（模型调用次数已用完；计划里未完成的项仍未完成）",
        (Stop::CallLimit, Lang::En) => "call_limit (the budget of model calls is spent; unfinished items stay unfinished)",
    };
    say!();
    say!("{}{stop}", lang.pick("停止原因：", "Stopped: "));
    say!("{}{}", lang.pick("模型调用次数：", "Model calls: "), outcome.calls);
    say!("{}", lang.pick("最终计划：", "Final plan:"));
    indented(&format_todos(&outcome.plan, lang));
    if !outcome.warnings.is_empty() {
        say!(
            "{}",
            lang.pick("宿主的警告（没有发给模型）：", "Host warnings (not sent to the model):")
        );
        for warning in &outcome.warnings {
            labelled(&format!("    {} {}: ", warning.tool_use_id, warning.code), &warning.message);
        }
    }
    let ran = match (ran, lang) {
        (Some(true), Lang::Zh) => "存在：main.py 真的运行过",
        (Some(false), Lang::Zh) => "不存在：main.py 没有运行",
        (Some(true), Lang::En) => "exists: main.py really ran",
        (Some(false), Lang::En) => "does not exist: main.py did not run",
        (None, lang) => {
            let replayed = lang.pick(
                "（重放没有工作区，也不运行任何程序：运行结果来自记录）",
                "(A replay has no workspace and runs no program: run results come from the recording.)",
            );
            return say!("{replayed}");
        }
    };
    say!("{MARKER} {ran}");
    say!();
    for line in table_lines(&claims_of(outcome, expected), lang) {
        say!("{line}");
    }
}
