//! The agent loop of LOOP.md: a model asks for tools, the host runs them under its own rules, the plan travels along.
//!
//! `run_loop` and `execute_with_plan` are shown to the reader line by line and stepped through,
//! like the functions of `lesson.rs`, which they call. Their data and traits are in
//! `agent_types.rs`, so this file holds the lesson and little else.

use todo_trace_macros::traced;

use crate::lesson::agent_types::{
    no_such_tool, text_of, tool_calls, tool_definitions, Decision, LoopError, Model, Outcome,
    ReadError, Request, Stop, ToolCall, Tools, Warning,
};
use crate::lesson::types::{Block, Message, State};
use crate::lesson::{prepare_messages, write_todos};

/// Calls the model until it answers or `max_calls` calls were made, running the tools it asks for.
#[traced(host(items = state.items, messages = history))]
pub fn run_loop(
    model: &mut dyn Model,
    tools: &mut Tools,
    max_calls: usize,
    reminder: bool,
    question: &str,
) -> Result<Outcome, LoopError> {
    let mut state = State::default();
    let mut history = vec![Message::user(question)];
    let mut warnings = Vec::new();
    let mut calls = 0;
    let mut rounds_without_plan = 0;
    loop {
        if calls >= max_calls {
            let answer = String::new();
            return Ok(Outcome {
                stop: Stop::CallLimit,
                calls,
                plan: state.items,
                history,
                warnings,
                answer,
            });
        }
        let request = Request {
            tools: tool_definitions(tools.lang),
            messages: prepare_messages(&history, &state, tools.lang)?,
        };
        let reply = model.reply(&request)?;
        calls += 1;
        history.push(Message::assistant(reply.clone()));
        let requested = tool_calls(&reply);
        if requested.is_empty() {
            let answer = text_of(&reply);
            return Ok(Outcome {
                stop: Stop::Answered,
                calls,
                plan: state.items,
                history,
                warnings,
                answer,
            });
        }
        let mut results = Vec::new();
        for call in &requested {
            let (result, warning) = execute_with_plan(call, &mut state, tools);
            warnings.extend(warning.clone());
            results.push(result);
        }
        if reminder {
            if requested.iter().any(|call| call.name == "todo_write") {
                rounds_without_plan = 0;
            } else {
                rounds_without_plan += 1;
            }
            if rounds_without_plan == 3 {
                results.push(Block::reminder());
                rounds_without_plan = 0;
            }
        }
        history.push(Message::results(results));
    }
}

/// Runs one tool call under the host's rules; returns its result, and a warning the host keeps.
#[traced(host(items = state.items))]
pub fn execute_with_plan(
    call: &ToolCall,
    state: &mut State,
    tools: &mut Tools,
) -> (Block, Option<Warning>) {
    let lang = tools.lang;
    if tools.maintenance && call.name == "run_main" {
        let text = lang.pick(
            "未运行：维护期间，宿主规则禁止运行程序（没有询问用户）。",
            "Not run: the host's maintenance rule blocks runs (the user was not asked).",
        );
        return call.refuse("run_blocked", text);
    }
    match call.name.as_str() {
        "todo_write" => match write_todos(state, &call.input["items"], lang) {
            Ok(plan) => (call.result(plan, false), None),
            Err(error) => call.refuse("plan_refused", error.message(lang)),
        },
        "read_file" => {
            let path = call.input["path"].as_str().unwrap_or("");
            match tools.workspace.read(path) {
                Ok(text) => (call.result(text, false), None),
                Err(ReadError::Outside) => {
                    call.refuse("path_refused", ReadError::Outside.message(path, lang))
                }
                Err(error) => (call.result(error.message(path, lang), true), None),
            }
        }
        "run_main" => {
            if tools.approval.decide(lang) == Decision::Deny {
                let text = lang.pick("未运行：用户拒绝了这次运行。", "Not run: the user declined.");
                return call.refuse("run_refused", text);
            }
            let run = tools.runner.run(lang);
            (call.result(run.text, !run.ok), None)
        }
        unknown => call.refuse("unknown_tool", no_such_tool(unknown, lang)),
    }
}
