//! The page's figures and scenarios (LESSON.md's table), and running one of them into a trace.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::entries::{run_prepare, run_validate, run_write, Setup};
use crate::input::{self, InputError};
use crate::lesson::{validate_todos, Block, Content, Lang, Message, Role, State, Todo, TodoError};
use crate::messages::quoted;
use crate::trace::{self, ErrorInfo, Snapshot, Step};

/// A figure: one lesson function, stepped through from its call entry.
#[derive(Serialize, Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    pub id: &'static str,
    pub symbol: &'static str,
    pub file: &'static str,
    pub entry: &'static str,
}

pub const FIGURES: [Figure; 3] = [
    Figure {
        id: "validate",
        symbol: "validate_todos",
        file: "src/lesson.rs",
        entry: "run_validate",
    },
    Figure { id: "write", symbol: "write_todos", file: "src/lesson.rs", entry: "run_write" },
    Figure {
        id: "prepare",
        symbol: "prepare_messages",
        file: "src/lesson.rs",
        entry: "run_prepare",
    },
];

/// A scenario as the page's switcher lists it.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Scenario {
    pub id: &'static str,
    pub label: &'static str,
    pub hint: &'static str,
    pub is_default: bool,
}

/// (figure, scenario, zh label, en label, zh hint, en hint); the first of each figure is its default.
type ScenarioRow =
    (&'static str, &'static str, &'static str, &'static str, &'static str, &'static str);

const SCENARIOS: [ScenarioRow; 15] = [
    ("validate", "valid", "两项都合格", "Both items valid",
     "停在 new_list.push 一行：当前项已通过，下一项还没检查；new_list 每轮多一项。",
     "Pause at the new_list.push line: this item passed, the next is unchecked; new_list grows by one per pass."),
    ("validate", "duplicate", "重复的 id", "Duplicate id",
     "第二项在 id 检查处失败，没有被追加：new_list 只有第一项。",
     "The second item fails the id checks before it is appended: new_list holds only the first item."),
    ("validate", "active", "两项都在进行", "Two items in progress",
     "第二项的 id 已记入 seen_ids，随后 in_progress 计数超过 1 而失败。",
     "The second item's id is already in seen_ids when the in-progress count passes 1."),
    ("validate", "unknown", "未知状态", "Unknown status",
     "第二项的状态 \"done\" 不在三种状态之中。",
     "The second item's status \"done\" is not one of the three."),
    ("validate", "clear", "空列表", "Empty list",
     "空列表是合法的：循环一次也不执行，返回空的新清单。",
     "An empty list is valid: the loop never runs and an empty new list comes back."),
    ("write", "replace", "整体替换", "Replace the plan",
     "停在 state.items = replacement：replacement 已是新计划，state 还是旧的；再走一步就换了。",
     "Pause at state.items = replacement: replacement holds the new plan, state the old; one step later it is replaced."),
    ("write", "duplicate", "重复的 id", "Duplicate id",
     "错误来自 validate_todos，? 把它直接传回；state 保持旧计划。",
     "The error comes from validate_todos and ? passes it straight back; state keeps the old plan."),
    ("write", "active", "靠后的一项失败", "A late item fails",
     "第一项已通过，第二项却失败：赋值那一行从未执行，最后的 state 仍是旧计划。",
     "The first item passed, the second fails: the assignment line never runs and state ends as the old plan."),
    ("write", "unknown", "未知状态", "Unknown status",
     "一个错误的状态就让整次写入作废，旧计划原样保留。",
     "One bad status rejects the whole write; the old plan stays exactly as it was."),
    ("write", "clear", "清空计划", "Clear the plan",
     "空列表是一次合法的提交：计划被清空，这不是失败。",
     "An empty list is a valid commit: the plan is emptied, and that is not a failure."),
    ("write", "claim", "全部标为完成", "Everything marked completed",
     "计划说全部完成了，但输出写明什么都没有运行：状态只是声明。",
     "The plan says everything is completed, yet the output says nothing was run: a status is a claim."),
    ("write", "omit", "漏掉一项", "Leave an item out",
     "只提交第 1 项：整体替换后，第 2 项从 state 中消失。",
     "Only item 1 is submitted: after the whole-list replacement, item 2 is gone from state."),
    ("prepare", "pending", "带上当前计划", "Attach the current plan",
     "prepared 的第一条消息带上了计划；messages 和工具 id 都没有变。",
     "The first message of prepared carries the plan; messages and the tool ids are unchanged."),
    ("prepare", "updated", "计划与证据矛盾", "Plan versus evidence",
     "计划声称\u{201c}运行并核对\u{201d}已完成，工具结果却说用户拒绝了：计划是声明，工具结果才是证据。",
     "The plan claims \"Run and check\" is completed while the tool result says the user declined: the plan is a claim, the result is evidence."),
    ("prepare", "empty", "空计划", "Empty plan",
     "计划为空，渲染成占位行。",
     "The plan is empty and renders as the placeholder line."),
];

/// Why an API call could not run at all (an unknown id or language).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError(pub String);

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ApiError {}

pub fn parse_lang(lang: &str) -> Result<Lang, ApiError> {
    match lang {
        "zh" => Ok(Lang::Zh),
        "en" => Ok(Lang::En),
        other => Err(ApiError(format!("unknown language {}: use \"zh\" or \"en\"", quoted(other)))),
    }
}

pub fn figure(id: &str) -> Result<Figure, ApiError> {
    FIGURES.iter().copied().find(|f| f.id == id).ok_or_else(|| {
        let known: Vec<&str> = FIGURES.iter().map(|f| f.id).collect();
        ApiError(format!("unknown figure {}: expected one of {}", quoted(id), known.join(", ")))
    })
}

pub fn scenarios(figure_id: &str, lang: Lang) -> Result<Vec<Scenario>, ApiError> {
    let figure = figure(figure_id)?;
    let rows = SCENARIOS.iter().filter(|row| row.0 == figure.id);
    Ok(rows
        .enumerate()
        .map(|(i, &(_, id, label_zh, label_en, hint_zh, hint_en))| Scenario {
            id,
            label: lang.pick(label_zh, label_en),
            hint: lang.pick(hint_zh, hint_en),
            is_default: i == 0,
        })
        .collect())
}

/// A recorded run of one figure, as the page replays it.
#[derive(Serialize, Clone, Debug)]
pub struct Trace {
    pub figure: &'static str,
    pub scenario: String,
    /// The data the call entry was given.
    pub input: Setup,
    pub steps: Vec<Step>,
    pub output: Vec<String>,
    pub result: Outcome,
}

/// `{ok: true, value}` or `{ok: false, error: {code, message}}`; the value is kept as JSON text.
#[derive(Serialize, Clone, Debug)]
pub struct Outcome {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<trace::Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
}

impl Outcome {
    pub fn of<T: Serialize>(result: Result<T, TodoError>, lang: Lang) -> Outcome {
        match result {
            Ok(value) => Outcome { ok: true, value: Some(trace::raw_json(&value)), error: None },
            Err(error) => Outcome::failed(error.info(lang)),
        }
    }

    pub fn failed(error: ErrorInfo) -> Outcome {
        Outcome { ok: false, value: None, error: Some(error) }
    }
}

pub fn trace(figure_id: &str, scenario_id: &str, lang: Lang) -> Result<Trace, ApiError> {
    let figure = figure(figure_id)?;
    let known = scenarios(figure.id, lang)?;
    if !known.iter().any(|s| s.id == scenario_id) {
        let ids: Vec<&str> = known.iter().map(|s| s.id).collect();
        return Err(ApiError(format!(
            "unknown scenario {} for figure \"{}\": expected one of {}",
            quoted(scenario_id),
            figure.id,
            ids.join(", ")
        )));
    }
    Ok(run(figure, scenario_id, setup(scenario_id, lang), lang))
}

/// The `scenario` of a trace made from the reader's own text.
pub const INPUT_SCENARIO: &str = "input";

/// Runs a figure on the reader's own text, parsed by [`input::parse`] (JSON or a Python literal).
///
/// For validate and write the text is the submitted `items`; for prepare it is the host plan,
/// which must pass `validate_todos` first, since the host only ever stores a valid plan. The
/// rest of the setup is the default scenario's data. Text that does not parse, or a host plan
/// that is not valid, gives a trace with that error as its result and no steps: nothing ran.
/// Only an unknown figure is an `ApiError`.
pub fn trace_input(figure_id: &str, text: &str, lang: Lang) -> Result<Trace, ApiError> {
    let figure = figure(figure_id)?;
    let default = SCENARIOS.iter().find(|row| row.0 == figure.id).map_or("", |row| row.1);
    let mut setup = setup(default, lang);
    let parsed = match input::parse(text) {
        Ok(value) => value,
        Err(error) => return Ok(rejected(figure, setup, error.info(lang))),
    };
    if figure.id == "prepare" {
        match validate_todos(&parsed) {
            Ok(plan) => setup.state.items = plan,
            Err(error) => return Ok(rejected(figure, setup, error.info(lang))),
        }
    } else {
        setup.items = parsed;
    }
    Ok(run(figure, INPUT_SCENARIO, setup, lang))
}

/// The trace of reader text refused before it was read: the wasm layer refuses a string whose
/// UTF-16 length is already over the size limit without copying it into the module.
pub fn refused_input(figure_id: &str, error: &InputError, lang: Lang) -> Result<Trace, ApiError> {
    let figure = figure(figure_id)?;
    let default = SCENARIOS.iter().find(|row| row.0 == figure.id).map_or("", |row| row.1);
    Ok(rejected(figure, setup(default, lang), error.info(lang)))
}

/// The trace of reader input that never reached the call entry: the reader's part of `input`
/// is left empty (`items: null`, or for prepare an empty host plan) and nothing was recorded.
fn rejected(figure: Figure, mut setup: Setup, error: ErrorInfo) -> Trace {
    if figure.id == "prepare" {
        setup.state.items.clear();
    } else {
        setup.items = Value::Null;
    }
    Trace {
        figure: figure.id,
        scenario: INPUT_SCENARIO.to_string(),
        input: setup,
        steps: Vec::new(),
        output: Vec::new(),
        result: Outcome::failed(error),
    }
}

/// Runs a figure's call entry on `setup` while recording.
pub fn run(figure: Figure, scenario: &str, setup: Setup, lang: Lang) -> Trace {
    let mut fields: Vec<(&'static str, &dyn Snapshot)> = vec![("items", &setup.state.items)];
    if figure.id == "prepare" {
        fields.push(("messages", &setup.messages));
    }
    let host = trace::host(&fields);
    let input = setup.clone();
    let (recording, result) = trace::record(figure.symbol, lang, host, || match figure.id {
        "validate" => Outcome::of(run_validate(setup, lang), lang),
        "write" => Outcome::of(run_write(setup, lang), lang),
        _ => Outcome::of(run_prepare(setup, lang), lang),
    });
    Trace {
        figure: figure.id,
        scenario: scenario.to_string(),
        input,
        steps: recording.steps,
        output: recording.output,
        result,
    }
}

fn todo(id: &str, content: &str, status: &str) -> Todo {
    Todo { id: id.into(), content: content.into(), status: status.into() }
}

/// LESSON.md's base data in `lang`, changed as the scenario says.
pub fn setup(scenario: &str, lang: Lang) -> Setup {
    let read = lang.pick("读取源码", "Read the source");
    let run = lang.pick("运行并核对", "Run and check");
    let mut state = vec![todo("1", read, "completed"), todo("2", run, "pending")];
    let mut items = vec![todo("1", read, "completed"), todo("2", run, "in_progress")];
    match scenario {
        "duplicate" => items[1].id = "1".into(),
        "active" => items[0].status = "in_progress".into(),
        "unknown" => items[1].status = "done".into(),
        "clear" => items.clear(),
        "claim" => items.iter_mut().for_each(|item| item.status = "completed".into()),
        "omit" => items.truncate(1),
        "updated" => state[1].status = "completed".into(),
        "empty" => {
            items.clear();
            state.clear();
        }
        _ => {}
    }
    Setup { state: State { items: state }, items: plain(&items), messages: history(lang) }
}

/// Items as the untrusted JSON a model sends. Built by hand rather than with `json!`, which would
/// bring serde's whole value serializer into the module for this one use.
fn plain(items: &[Todo]) -> Value {
    let item = |todo: &Todo| {
        let fields = [("id", &todo.id), ("content", &todo.content), ("status", &todo.status)];
        Value::Object(
            fields.into_iter().map(|(k, v)| (k.to_string(), Value::String(v.clone()))).collect(),
        )
    };
    Value::Array(items.iter().map(item).collect())
}

fn history(lang: Lang) -> Vec<Message> {
    vec![
        Message {
            role: Role::User,
            content: Content::Text(
                lang.pick(
                    "读文件，获准后运行并核对。",
                    "Read the files; run after approval and check.",
                )
                .into(),
            ),
        },
        Message {
            role: Role::Assistant,
            content: Content::Blocks(vec![Block::ToolUse {
                id: "run_1".into(),
                name: "run_main".into(),
                input: Value::Object(Map::new()),
            }]),
        },
        Message {
            role: Role::User,
            content: Content::Blocks(vec![Block::ToolResult {
                tool_use_id: "run_1".into(),
                content: lang.pick("未执行：用户拒绝。", "Not run: the user declined.").into(),
                is_error: true,
            }]),
        },
    ]
}
