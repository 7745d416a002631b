//! The agent loop's data (LOOP.md): tools and requests, the host's rules and warnings, the outcome, and the four traits.
//!
//! `agent.rs` holds the loop a reader steps through; everything it is written against lives
//! here, so that file stays about the lesson. The loop sees the model, the workspace, the user's
//! approval and the program runner only through the traits below: the browser and `practice`
//! hand it different implementations (`in_memory.rs`, `native.rs`) and the loop cannot tell.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use tsify::Tsify;

use crate::lesson::types::{Block, Content, Lang, Message, Role, Todo, TodoError};
use crate::lesson::{MAX_ITEMS, STATUSES};
use crate::recorder::{self, Field, Snapshot};
use serde_json::{json, Value};

/// The text block the reminder variant appends (the course's s03 chapter).
pub const REMINDER: &str = "<reminder>Update your todos.</reminder>";

/// The line before a run's output in a `run_main` result; the stand-in reads the output after it.
pub fn output_header(lang: Lang) -> &'static str {
    lang.pick("输出：", "output:")
}

/// `exit code N`: the first line of a finished run's result.
pub fn exit_line(code: i32, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("退出码 {code}"),
        Lang::En => format!("exit code {code}"),
    }
}

/// A tool as the model is told about it, sent with every request.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct ToolDefinition {
    pub name: &'static str,
    pub description: &'static str,
    #[tsify(type = "unknown")]
    pub input_schema: Value,
}

/// The three tools of LOOP.md, described in the run's language. They are the same for every request
/// of every run, as the course's module-level `TOOLS` are: made once per thread and language and
/// never changed or freed, so a request holds them by reference, and the recorder writes them once a
/// recording (`recorder::Field::Static`), not at every model call.
pub fn tool_definitions(lang: Lang) -> &'static [ToolDefinition; 3] {
    thread_local! {
        static DEFINITIONS: [&'static [ToolDefinition; 3]; 2] =
            [Lang::Zh, Lang::En].map(|lang| &*Box::leak(Box::new(definitions(lang))));
    }
    DEFINITIONS.with(|definitions| match lang {
        Lang::Zh => definitions[0],
        Lang::En => definitions[1],
    })
}

fn definitions(lang: Lang) -> [ToolDefinition; 3] {
    let [todo_write, read_file, run_main] = schemas();
    [
        ToolDefinition {
            name: "todo_write",
            description: lang.pick(
                "提交完整的计划（整体替换旧计划）。最多 20 项，最多一项 in_progress。只记录计划，不执行任何事。",
                "Submit the whole plan (it replaces the old one). At most 20 items, at most one in_progress. Records the plan; runs nothing.",
            ),
            input_schema: todo_write,
        },
        ToolDefinition {
            name: "read_file",
            description: lang.pick(
                "读取工作区里的一个文本文件。路径相对于工作区；工作区之外的路径会被拒绝。",
                "Read a text file in the workspace. Paths are relative to the workspace; a path outside it is refused.",
            ),
            input_schema: read_file,
        },
        ToolDefinition {
            name: "run_main",
            description: lang.pick(
                "在工作区里运行 python3 main.py，返回退出码和输出。每次运行前宿主都会先征得用户同意。",
                "Run python3 main.py in the workspace and return its exit code and output. The host asks the user before every run.",
            ),
            input_schema: run_main,
        },
    ]
}

/// The input schemas of `todo_write`, `read_file` and `run_main`.
fn schemas() -> [Value; 3] {
    let string = json!({"type": "string"});
    let item = json!({
        "type": "object",
        "properties": {"id": string, "content": string, "status": {"type": "string", "enum": STATUSES}},
        "required": ["id", "content", "status"],
        "additionalProperties": false,
    });
    [
        json!({
            "type": "object",
            "properties": {"items": {"type": "array", "maxItems": MAX_ITEMS, "items": item}},
            "required": ["items"],
            "additionalProperties": false,
        }),
        json!({
            "type": "object",
            "properties": {"path": string},
            "required": ["path"],
            "additionalProperties": false,
        }),
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
    ]
}

/// What one model call receives: the tools, and the prepared copy of the history.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub tools: &'static [ToolDefinition; 3],
    pub messages: Vec<Message>,
}

/// A request as JSON: `{"tools":[...],"messages":[...]}`, the two parts `recorder::Tables::request`
/// puts together in this order.
#[derive(Serialize)]
struct RequestJson<'a> {
    tools: &'a [ToolDefinition],
    messages: &'a [Message],
}

/// Not `Serialize` (which would make it a `Snapshot` like any value): the recorder stores a request
/// from its fields, which it mostly has already.
impl Snapshot for Request {
    fn write_json(&self, out: &mut Vec<u8>) {
        RequestJson { tools: self.tools, messages: &self.messages }.write_json(out);
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }

    fn fields(&self, visit: &mut dyn FnMut(&[Field<'_>])) -> bool {
        // The keys as `RequestJson` writes them.
        visit(&[Field::Static("tools", self.tools), Field::List("messages", &self.messages)]);
        true
    }
}

/// Something the host decided while the loop ran: what a reader can pause on besides a line.
/// Recorded by the host's code (the approval, a tool call's result, the reminder, the stop),
/// never by the listed functions, and attached to the next step recorded.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, Tsify)]
#[serde(rename_all = "kebab-case")]
pub enum HostEvent {
    /// A `todo_write` was accepted: the host's plan is the new one.
    PlanWritten,
    /// A `todo_write` was refused: the plan is unchanged.
    PlanRefused,
    /// The host asked the user for approval.
    Ask,
    /// A call was refused or blocked (a run declined or under maintenance, a path outside the
    /// workspace, an unknown tool).
    Refused,
    /// The reminder block was appended to a round's results.
    Reminder,
    /// The loop stopped because `max_calls` model calls were made.
    CallLimit,
    /// The loop stopped because the model replied without a tool call.
    Answered,
}

impl HostEvent {
    /// The event's name in a trace's `decisions`, as serde writes it (a test holds the two equal).
    pub fn name(self) -> &'static str {
        match self {
            HostEvent::PlanWritten => "plan-written",
            HostEvent::PlanRefused => "plan-refused",
            HostEvent::Ask => "ask",
            HostEvent::Refused => "refused",
            HostEvent::Reminder => "reminder",
            HostEvent::CallLimit => "call-limit",
            HostEvent::Answered => "answered",
        }
    }

    /// Notes this decision in the recording (the next step carries it).
    pub fn decide(self) {
        recorder::decide(self.name());
    }
}

/// The warning code of a refused plan update.
pub const PLAN_REFUSED: &str = "plan_refused";

impl Block {
    /// The reminder variant's text block (noted as the host's decision for the page).
    pub fn reminder() -> Block {
        HostEvent::Reminder.decide();
        Block::Text { text: REMINDER.to_string() }
    }
}

/// One `tool_use` block of a reply, as the host executes it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

impl ToolCall {
    /// The `tool_result` block that answers this call.
    pub fn result(&self, content: impl Into<String>, is_error: bool) -> Block {
        self.result_of(content.into(), is_error)
    }

    /// [`ToolCall::result`] past the conversion: one copy, not one per type of `content`.
    fn result_of(&self, content: String, is_error: bool) -> Block {
        if self.name == "todo_write" && !is_error {
            HostEvent::PlanWritten.decide();
        }
        Block::ToolResult { tool_use_id: self.id.clone(), content, is_error }
    }

    /// An error result for the model, and the same words as a warning the host keeps.
    pub fn refuse(&self, code: &'static str, text: impl Into<String>) -> (Block, Option<Warning>) {
        self.refuse_with(code, text.into())
    }

    /// [`ToolCall::refuse`] past the conversion: one copy, not one per type of `text`.
    fn refuse_with(&self, code: &'static str, message: String) -> (Block, Option<Warning>) {
        let refused =
            if code == PLAN_REFUSED { HostEvent::PlanRefused } else { HostEvent::Refused };
        refused.decide();
        let warning = Warning {
            tool_use_id: self.id.clone(),
            code: code.to_string(),
            message: message.clone(),
        };
        (self.result_of(message, true), Some(warning))
    }
}

/// The `tool_use` blocks of a reply, in order.
pub fn tool_calls(reply: &[Block]) -> Vec<ToolCall> {
    reply
        .iter()
        .filter_map(|block| match block {
            Block::ToolUse { id, name, input } => {
                Some(ToolCall { id: id.clone(), name: name.clone(), input: input.clone() })
            }
            _ => None,
        })
        .collect()
}

/// The text blocks of a reply, joined: the model's answer when it asked for no tool.
pub fn text_of(reply: &[Block]) -> String {
    let texts: Vec<&str> = reply
        .iter()
        .filter_map(|block| match block {
            Block::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

impl Message {
    /// The user's question: a plain text message.
    pub fn user(text: &str) -> Message {
        Message { role: Role::User, content: Content::Text(text.to_string()) }
    }

    /// A model's reply, stored as it came.
    pub fn assistant(blocks: Vec<Block>) -> Message {
        Message { role: Role::Assistant, content: Content::Blocks(blocks.into()) }
    }

    /// One round's tool results (and the reminder, when one is due), sent back as the user.
    pub fn results(blocks: Vec<Block>) -> Message {
        Message { role: Role::User, content: Content::Blocks(blocks.into()) }
    }
}

/// Something the host noticed and kept for itself; never sent to the model.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq)]
pub struct Warning {
    pub tool_use_id: String,
    /// `plan_refused`, `run_refused`, `run_blocked`, `path_refused` or `unknown_tool`.
    pub code: String,
    pub message: String,
}

/// Why the loop stopped.
#[derive(Serialize, Deserialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The model replied without a tool call. That says nothing about whether the work was done.
    Answered,
    /// `max_calls` model calls were made.
    CallLimit,
}

/// What a run of the loop leaves behind (the loop figure's result value).
// Its JSON is `OutcomeJson`'s (see the `Snapshot` impl below).
#[derive(Tsify, Clone, Debug, PartialEq)]
pub struct Outcome {
    pub stop: Stop,
    /// Model calls made.
    pub calls: usize,
    /// The host's final plan.
    pub plan: Vec<Todo>,
    pub history: Vec<Message>,
    pub warnings: Vec<Warning>,
    /// The final assistant text; empty on `call_limit`.
    pub answer: String,
}

/// An outcome as JSON (`Outcome::json`; `practice --json` prints it): its fields in the order
/// `Outcome::fields` hands them to the recorder.
#[derive(Serialize)]
pub struct OutcomeJson<'a> {
    stop: Stop,
    calls: usize,
    plan: &'a [Todo],
    history: &'a [Message],
    warnings: &'a [Warning],
    answer: &'a str,
}

impl Outcome {
    pub fn json(&self) -> OutcomeJson<'_> {
        let Outcome { stop, calls, plan, history, warnings, answer } = self;
        OutcomeJson { stop: *stop, calls: *calls, plan, history, warnings, answer }
    }
}

/// Not `Serialize` (which would make it a `Snapshot` like any value): the recorder stores an outcome
/// from its fields, and its history and plan are the host's, stored already.
impl Snapshot for Outcome {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.json().write_json(out);
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }

    fn fields(&self, visit: &mut dyn FnMut(&[Field<'_>])) -> bool {
        // The keys as `OutcomeJson` writes them.
        visit(&[
            Field::Value("stop", &self.stop),
            Field::Value("calls", &self.calls),
            Field::List("plan", &self.plan),
            Field::List("history", &self.history),
            Field::Value("warnings", &self.warnings),
            Field::Value("answer", &self.answer),
        ]);
        true
    }
}

/// The line a run ends with: why it stopped, after how many calls, and what the plan says.
pub fn stopped(outcome: &Outcome, lang: Lang) -> String {
    let calls = outcome.calls;
    match (outcome.stop, lang) {
        (Stop::Answered, Lang::Zh) => {
            format!("停止：answered，共 {calls} 次模型调用。模型给出了回答，这本身不说明工作已完成。最终计划：")
        }
        (Stop::Answered, Lang::En) => format!(
            "Stopped: answered, after {calls} model calls. The model gave an answer, which alone does not show the work was done. The final plan:"
        ),
        (Stop::CallLimit, Lang::Zh) => {
            format!("停止：call_limit，{calls} 次模型调用已用完。未完成的项仍未完成。最终计划：")
        }
        (Stop::CallLimit, Lang::En) => format!(
            "Stopped: call_limit, all {calls} model calls spent. Unfinished items stay unfinished. The final plan:"
        ),
    }
}

/// The user's answer to "may the model run main.py?".
#[derive(Serialize, Deserialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Allow,
    Deny,
}

/// A program's run as the model is told about it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct RunResult {
    pub text: String,
    /// It ran to the end with exit code 0; otherwise the result is an error.
    pub ok: bool,
    /// What the process did, when one was started. Kept for a run file; the model sees `text`.
    #[serde(skip)]
    pub process: Option<Process>,
}

impl RunResult {
    /// No process was started (no main.py, no python3, ...): `text` says why.
    pub fn not_run(text: impl Into<String>) -> RunResult {
        RunResult { text: text.into(), ok: false, process: None }
    }
}

/// What a started process did.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq, Eq)]
pub struct Process {
    /// Absent when it was killed (by a signal, or at the time limit).
    pub exit_code: Option<i32>,
    /// Its standard output, as far as it was kept.
    pub output: String,
    pub timed_out: bool,
}

/// Why a file could not be read.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReadError {
    /// An absolute path, or one climbing out with `..` (or through a link): refused.
    Outside,
    Missing,
    Failed(String),
}

impl ReadError {
    pub fn message(&self, path: &str, lang: Lang) -> String {
        match self {
            ReadError::Outside => match lang {
                Lang::Zh => format!("拒绝读取：{path} 在工作区之外。"),
                Lang::En => format!("Refused: {path} is outside the workspace."),
            },
            ReadError::Missing => match lang {
                Lang::Zh => format!("读取失败：工作区里没有 {path}。"),
                Lang::En => {
                    format!("Could not read {path}: there is no such file in the workspace.")
                }
            },
            ReadError::Failed(why) => match lang {
                Lang::Zh => format!("读取 {path} 失败：{why}"),
                Lang::En => format!("Could not read {path}: {why}"),
            },
        }
    }
}

/// The result text for a tool name the host does not know.
pub fn no_such_tool(name: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("没有名为 {name} 的工具。"),
        Lang::En => format!("There is no tool named {name}."),
    }
}

/// The parts of a relative path inside the workspace (`./a//b` gives `a`, `b`), or `None` when
/// it is absolute (a leading slash or backslash, or a drive letter such as `C:`) or climbs out
/// with `..`. Both implementations of [`Workspace`] start here.
pub fn inside(path: &str) -> Option<Vec<&str>> {
    let absolute = path.starts_with(['/', '\\']) || path.chars().nth(1) == Some(':');
    if absolute {
        return None;
    }
    let parts: Vec<&str> =
        path.split(['/', '\\']).filter(|part| !part.is_empty() && *part != ".").collect();
    if parts.contains(&"..") {
        return None;
    }
    Some(parts)
}

/// Every [`ModelError`] code, so that a failure read back from a run file keeps its code:
/// - `diverged`: a replay was asked for something its recording does not hold;
/// - `unauthorized`: the live API refused the key (401, 403);
/// - `network`: no connection, or no answer within the timeouts;
/// - `malformed`: the reply could not be read (not JSON, or a block of an unknown type);
/// - `rejected`: the live API refused the request (another 4xx);
/// - `retries_exhausted`: still overloaded or failing (429, 529, 5xx) after the retries.
pub const MODEL_ERROR_CODES: [&str; 6] =
    ["diverged", "unauthorized", "network", "malformed", "rejected", "retries_exhausted"];

/// Why a model gave no reply. The loop stops with it: a host never makes a reply up.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// One of [`MODEL_ERROR_CODES`].
    pub code: &'static str,
    /// In the run's language.
    pub message: String,
}

/// Why `run_loop` ended without an outcome: the plan could not be prepared, or the model gave no reply.
#[derive(Clone, Debug, PartialEq)]
pub enum LoopError {
    Plan(TodoError),
    Model(ModelError),
}

impl From<TodoError> for LoopError {
    fn from(error: TodoError) -> Self {
        LoopError::Plan(error)
    }
}

impl From<ModelError> for LoopError {
    fn from(error: ModelError) -> Self {
        LoopError::Model(error)
    }
}

impl LoopError {
    pub fn code(&self) -> &'static str {
        match self {
            LoopError::Plan(error) => error.code(),
            LoopError::Model(error) => error.code,
        }
    }

    pub fn message(&self, lang: Lang) -> String {
        match self {
            LoopError::Plan(error) => error.message(lang),
            LoopError::Model(error) => error.message.clone(),
        }
    }

    pub fn info(&self, lang: Lang) -> recorder::ErrorInfo {
        match self {
            LoopError::Plan(error) => error.info(lang),
            LoopError::Model(error) => recorder::ErrorInfo {
                code: error.code,
                message: error.message.clone(),
                line: None,
                column: None,
            },
        }
    }
}

/// The model: reads a request, replies with text and/or `tool_use` blocks, or says why it cannot.
pub trait Model {
    fn reply(&mut self, request: &Request) -> Result<Vec<Block>, ModelError>;
    /// Why the last reply ended, as the model said it (`tool_use`, `end_turn`, ...), for a run
    /// file; `None` when the model does not say.
    fn stop_reason(&self) -> Option<&str> {
        None
    }
    /// A short description for the locals pane, e.g. `stand-in model (standard)`.
    fn describe(&self) -> Cow<'_, str>;
}

/// Where `read_file` reads.
pub trait Workspace {
    /// The text of a file, by a path relative to the workspace.
    fn read(&self, path: &str) -> Result<String, ReadError>;
    fn describe(&self) -> Cow<'_, str>;
}

/// Who answers when the model asks to run a program.
pub trait Approval {
    fn decide(&mut self, lang: Lang) -> Decision;
    fn describe(&self) -> Cow<'_, str>;
}

/// What runs `python3 main.py` once it is allowed.
pub trait Runner {
    fn run(&mut self, lang: Lang) -> RunResult;
    fn describe(&self) -> Cow<'_, str>;
}

// The traced functions show every binding in their scope, so the trait objects are written too:
// as their one-line description, not their insides. The loop's `tools` is written again at most of
// its steps, so the browser's descriptions are borrowed, not formatted each time.
macro_rules! json_as_description {
    ($($object:ident),*) => {$(
        impl Serialize for dyn $object + '_ {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.describe())
            }
        }
    )*};
}

json_as_description!(Model, Workspace, Approval, Runner);

/// The host's side of the loop: how it executes tools, and its rules.
#[derive(Serialize)]
pub struct Tools<'a> {
    pub workspace: &'a dyn Workspace,
    pub approval: &'a mut dyn Approval,
    pub runner: &'a mut dyn Runner,
    /// While on, `run_main` is blocked without asking anyone.
    pub maintenance: bool,
    pub lang: Lang,
}
