//! The run file (LOOP.md, "Runs as data"): what came from outside the host during one run of the loop, and its limits.
//!
//! A run file holds the question and the settings, who the model was, each model call (the
//! messages the host added since the previous call, and the reply), what the world answered the
//! host (files read, the user's answers, programs run) in order, and how the run ended. It holds
//! no key and nothing of the machine it ran on. Its TS type is generated from these types.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use crate::host::stand_in::Script;
use crate::lesson::agent_types::{Decision, Process, ReadError, Stop, Warning, MODEL_ERROR_CODES};
use crate::lesson::types::{Block, Content, Lang, Message, Todo};

/// The only `version` this build reads and writes.
pub const VERSION: u32 = 1;
/// The largest run file read, in bytes of its text.
pub const MAX_BYTES: usize = 1 << 20;
/// The most model calls a run file may hold.
pub const MAX_MODEL_CALLS: usize = 200;

#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RunFile {
    /// [`VERSION`].
    pub version: u32,
    pub model: Source,
    /// When the run was recorded (RFC 3339, UTC); absent for the page's built-in scenarios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub recorded: Option<String>,
    pub settings: RunSettings,
    /// The user's question: the first message of the conversation.
    pub question: String,
    /// Each model call, in order.
    pub calls: Vec<Call>,
    /// What the world answered the host, in the order the host asked.
    pub world: Vec<WorldEvent>,
    pub end: End,
}

/// Who replied.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Source {
    /// The deterministic stand-in of LOOP.md, playing a script.
    StandIn { script: Script },
    /// A model behind the Messages API, by its id.
    Live { name: String },
}

/// The host's settings for the run.
#[derive(Serialize, Deserialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RunSettings {
    pub lang: Lang,
    pub max_calls: usize,
    pub maintenance: bool,
    pub reminder: bool,
}

/// One model call.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The messages the host stored since the previous reply (none before the first call; after
    /// that, the round's tool results). With the question and the replies before, they are the
    /// conversation the model was sent.
    pub sent: Vec<Message>,
    pub reply: Reply,
}

#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    pub content: Vec<Block>,
    /// As the model gave it (`tool_use`, `end_turn`, `max_tokens`, ...).
    pub stop_reason: String,
}

/// One answer of the world to the host.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorldEvent {
    /// A file read: its text, or why it could not be read.
    Read {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[tsify(optional)]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[tsify(optional)]
        error: Option<ReadError>,
    },
    /// The user's answer to "may the model run main.py?".
    Answer { decision: Decision },
    /// `main.py` run (or not started): the result as the model was told it, and what the
    /// process did, when one was started.
    Run {
        text: String,
        ok: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[tsify(optional)]
        process: Option<Process>,
    },
}

/// How the run ended.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum End {
    /// `run_loop` returned an outcome.
    Outcome {
        stop: Stop,
        plan: Vec<Todo>,
        warnings: Vec<Warning>,
        answer: String,
        /// Messages stored after the last reply and sent to no model (the last round's results,
        /// when the budget ran out).
        after: Vec<Message>,
    },
    /// The model gave no reply (a live model's failure): `code` is a `ModelError` code.
    Failed {
        code: String,
        message: String,
        /// The messages the failed call would have sent.
        after: Vec<Message>,
    },
}

impl End {
    pub fn after(&self) -> &[Message] {
        match self {
            End::Outcome { after, .. } | End::Failed { after, .. } => after,
        }
    }
}

/// A run file that cannot be replayed, with a stable code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// Over [`MAX_BYTES`].
    TooLarge,
    /// Not JSON, or not the shape of a run file (a malformed block, a missing field, ...).
    Malformed {
        why: String,
    },
    UnknownVersion {
        version: String,
    },
    /// Over [`MAX_MODEL_CALLS`].
    TooManyCalls {
        calls: usize,
    },
    /// A `tool_use` whose id no `tool_result` of the next message answers.
    UnpairedToolUse {
        call: usize,
        id: String,
    },
    /// A recorded failure with a code no model error has.
    UnknownFailure {
        code: String,
    },
}

impl RunError {
    pub fn code(&self) -> &'static str {
        match self {
            RunError::TooLarge => "run_too_large",
            RunError::Malformed { .. } => "run_malformed",
            RunError::UnknownVersion { .. } => "run_unknown_version",
            RunError::TooManyCalls { .. } => "run_too_many_calls",
            RunError::UnpairedToolUse { .. } => "run_unpaired_tool_use",
            RunError::UnknownFailure { .. } => "run_unknown_failure",
        }
    }

    pub fn message(&self, lang: Lang) -> String {
        match (self, lang) {
            (RunError::TooLarge, Lang::Zh) => {
                format!("运行记录超过了 {MAX_BYTES} 字节（1 MiB）的上限，没有读取。")
            }
            (RunError::TooLarge, Lang::En) => {
                format!(
                    "The run file is over the limit of {MAX_BYTES} bytes (1 MiB); it was not read."
                )
            }
            (RunError::Malformed { why }, Lang::Zh) => format!("这不是一份可读的运行记录：{why}"),
            (RunError::Malformed { why }, Lang::En) => {
                format!("This is not a readable run file: {why}")
            }
            (RunError::UnknownVersion { version }, Lang::Zh) => {
                format!("不认识的运行记录版本 {version}：这里只读版本 {VERSION}。")
            }
            (RunError::UnknownVersion { version }, Lang::En) => {
                format!("Unknown run file version {version}: this page reads version {VERSION}.")
            }
            (RunError::TooManyCalls { calls }, Lang::Zh) => {
                format!("运行记录有 {calls} 次模型调用，超过了 {MAX_MODEL_CALLS} 次的上限。")
            }
            (RunError::TooManyCalls { calls }, Lang::En) => {
                format!(
                    "The run file holds {calls} model calls, over the limit of {MAX_MODEL_CALLS}."
                )
            }
            (RunError::UnpairedToolUse { call, id }, Lang::Zh) => {
                format!("第 {call} 次模型调用的 tool_use {id} 没有对应的 tool_result。")
            }
            (RunError::UnpairedToolUse { call, id }, Lang::En) => {
                format!("The tool_use {id} of model call {call} has no matching tool_result.")
            }
            (RunError::UnknownFailure { code }, Lang::Zh) => {
                format!("运行记录以未知的错误码 {code} 结束。")
            }
            (RunError::UnknownFailure { code }, Lang::En) => {
                format!("The run file ends with an unknown error code {code}.")
            }
        }
    }
}

/// Reads a run file's bytes, checking every limit before anything runs.
pub fn parse(bytes: &[u8]) -> Result<RunFile, RunError> {
    if bytes.len() > MAX_BYTES {
        return Err(RunError::TooLarge);
    }
    // JSON is UTF-8. Other bytes are refused, not read with replacement characters that would then
    // be replayed as if they had been recorded.
    let text = std::str::from_utf8(bytes).map_err(|error| RunError::Malformed {
        why: format!("not UTF-8 text (at byte {})", error.valid_up_to()),
    })?;
    // The version is looked for alone when the file is not one of this version, so a file from a later
    // release says so instead of failing on a new field.
    #[derive(Deserialize)]
    struct Versioned {
        version: Option<serde_json::Value>,
    }
    let malformed = |error: serde_json::Error| RunError::Malformed { why: error.to_string() };
    // A file of this version, an object, is read once: looking for the version first read through the
    // whole file (3% of a 100-call run's trace natively). Whatever that pass refuses in an object, the
    // whole read refuses too, so any other file is answered as before. Read at one place: serde's code
    // for the file, inlined at two, made the module 0.6 KB gzip larger.
    let whole = serde_json::from_str::<RunFile>(text);
    // JSON's white space only: `trim_start` would bring Unicode's tables into the module.
    let object = text.bytes().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')) == Some(b'{');
    if !(object && matches!(&whole, Ok(run) if run.version == VERSION)) {
        let versioned: Versioned = serde_json::from_str(text).map_err(malformed)?;
        match versioned.version {
            Some(serde_json::Value::Number(n)) if n.as_u64() == Some(VERSION.into()) => {}
            Some(other) => return Err(RunError::UnknownVersion { version: other.to_string() }),
            None => return Err(RunError::Malformed { why: "missing field `version`".to_string() }),
        }
    }
    let run = whole.map_err(malformed)?;
    run.check()?;
    Ok(run)
}

impl RunFile {
    /// The limits that serde's shape does not hold.
    fn check(&self) -> Result<(), RunError> {
        if self.calls.len() > MAX_MODEL_CALLS {
            return Err(RunError::TooManyCalls { calls: self.calls.len() });
        }
        for (index, call) in self.calls.iter().enumerate() {
            let next = match self.calls.get(index + 1) {
                Some(next) => &next.sent,
                None => self.end.after(),
            };
            let answered: Vec<&str> = next.first().map_or(Vec::new(), |message| {
                blocks(message)
                    .iter()
                    .filter_map(|block| match block {
                        Block::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
                        _ => None,
                    })
                    .collect()
            });
            for block in &call.reply.content {
                if let Block::ToolUse { id, .. } = block {
                    if !answered.contains(&id.as_str()) {
                        return Err(RunError::UnpairedToolUse { call: index + 1, id: id.clone() });
                    }
                }
            }
        }
        for event in &self.world {
            if let WorldEvent::Read { text, error, .. } = event {
                if text.is_some() == error.is_some() {
                    let why = "a read holds either its text or its error".to_string();
                    return Err(RunError::Malformed { why });
                }
            }
        }
        if let End::Failed { code, .. } = &self.end {
            if !MODEL_ERROR_CODES.contains(&code.as_str()) {
                return Err(RunError::UnknownFailure { code: code.clone() });
            }
        }
        Ok(())
    }

    /// The whole conversation as the host stored it: the question, then each call's messages and reply.
    pub fn history(&self) -> Vec<Message> {
        let mut history = vec![Message::user(&self.question)];
        for call in &self.calls {
            history.extend(call.sent.iter().cloned());
            history.push(Message::assistant(call.reply.content.clone()));
        }
        history.extend(self.end.after().iter().cloned());
        history
    }

    /// The text of expected.txt as the run read it, if it did: what a run's output is checked against.
    pub fn expected(&self) -> Option<&str> {
        self.world.iter().find_map(|event| match event {
            WorldEvent::Read { path, text: Some(text), .. } if path == "expected.txt" => {
                Some(text.as_str())
            }
            _ => None,
        })
    }

    /// Where the run came from, for the page and the transcript: `live: NAME, recorded DATE`,
    /// `stand-in: standard`.
    pub fn origin(&self, lang: Lang) -> String {
        let who = match &self.model {
            Source::StandIn { script } => {
                format!("{}: {}", lang.pick("替身", "stand-in"), script.name())
            }
            Source::Live { name } => format!("{}: {name}", lang.pick("真实模型", "live")),
        };
        match &self.recorded {
            Some(date) => format!("{who}{}{date}", lang.pick("，录制于 ", ", recorded ")),
            None => who,
        }
    }
}

/// A message's blocks (none for a plain text message).
pub fn blocks(message: &Message) -> &[Block] {
    match &message.content {
        Content::Blocks(blocks) => blocks,
        Content::Text(_) => &[],
    }
}
