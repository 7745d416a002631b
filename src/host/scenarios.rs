//! The lesson's scenarios (LESSON.md's table): the base data, and what each scenario changes in it.

use serde_json::{Map, Value};

use crate::host::entries::Data;
use crate::host::figures::FigureId;
use crate::lesson::{Block, Content, Lang, Message, Role, State, Todo};

/// One scenario of a figure: its id, its words in both languages, and its change to the base data.
pub struct ScenarioDef {
    pub figure: FigureId,
    pub id: &'static str,
    /// (Chinese, English)
    pub label: (&'static str, &'static str),
    pub hint: (&'static str, &'static str),
    pub change: fn(&mut Plans),
}

/// The two plans of the base data, before a scenario changes them: the host's and the submitted one.
pub struct Plans {
    pub host: Vec<Todo>,
    pub submitted: Vec<Todo>,
}

use FigureId::{Prepare, Validate, Write};

/// Every scenario of the three function figures, in the order the page lists them; the first of
/// each figure is its default.
#[rustfmt::skip]
pub const SCENARIOS: [ScenarioDef; 15] = [
    ScenarioDef { figure: Validate, id: "valid", change: |_| {},
        label: ("两项都合格", "Both items valid"),
        hint: ("停在 new_list.push 一行：当前项已通过，下一项还没检查；new_list 每轮多一项。",
               "Pause at the new_list.push line: this item passed, the next is unchecked; new_list grows by one per pass.") },
    ScenarioDef { figure: Validate, id: "duplicate", change: |p| p.submitted[1].id = "1".into(),
        label: ("重复的 id", "Duplicate id"),
        hint: ("第二项在 id 检查处失败，没有被追加：new_list 只有第一项。",
               "The second item fails the id checks before it is appended: new_list holds only the first item.") },
    ScenarioDef { figure: Validate, id: "active", change: |p| p.submitted[0].status = "in_progress".into(),
        label: ("两项都在进行", "Two items in progress"),
        hint: ("第二项的 id 已记入 seen_ids，随后 in_progress 计数超过 1 而失败。",
               "The second item's id is already in seen_ids when the in-progress count passes 1.") },
    ScenarioDef { figure: Validate, id: "unknown", change: |p| p.submitted[1].status = "done".into(),
        label: ("未知状态", "Unknown status"),
        hint: ("第二项的状态 \"done\" 不在三种状态之中。",
               "The second item's status \"done\" is not one of the three.") },
    ScenarioDef { figure: Validate, id: "clear", change: |p| p.submitted.clear(),
        label: ("空列表", "Empty list"),
        hint: ("空列表是合法的：循环一次也不执行，返回空的新清单。",
               "An empty list is valid: the loop never runs and an empty new list comes back.") },
    ScenarioDef { figure: Write, id: "replace", change: |_| {},
        label: ("整体替换", "Replace the plan"),
        hint: ("停在 state.items = replacement：replacement 已是新计划，state 还是旧的；再走一步就换了。",
               "Pause at state.items = replacement: replacement holds the new plan, state the old; one step later it is replaced.") },
    ScenarioDef { figure: Write, id: "duplicate", change: |p| p.submitted[1].id = "1".into(),
        label: ("重复的 id", "Duplicate id"),
        hint: ("错误来自 validate_todos，? 把它直接传回；state 保持旧计划。",
               "The error comes from validate_todos and ? passes it straight back; state keeps the old plan.") },
    ScenarioDef { figure: Write, id: "active", change: |p| p.submitted[0].status = "in_progress".into(),
        label: ("靠后的一项失败", "A late item fails"),
        hint: ("第一项已通过，第二项却失败：赋值那一行从未执行，最后的 state 仍是旧计划。",
               "The first item passed, the second fails: the assignment line never runs and state ends as the old plan.") },
    ScenarioDef { figure: Write, id: "unknown", change: |p| p.submitted[1].status = "done".into(),
        label: ("未知状态", "Unknown status"),
        hint: ("一个错误的状态就让整次写入作废，旧计划原样保留。",
               "One bad status rejects the whole write; the old plan stays exactly as it was.") },
    ScenarioDef { figure: Write, id: "clear", change: |p| p.submitted.clear(),
        label: ("清空计划", "Clear the plan"),
        hint: ("空列表是一次合法的提交：计划被清空，这不是失败。",
               "An empty list is a valid commit: the plan is emptied, and that is not a failure.") },
    ScenarioDef { figure: Write, id: "claim",
        change: |p| p.submitted.iter_mut().for_each(|item| item.status = "completed".into()),
        label: ("全部标为完成", "Everything marked completed"),
        hint: ("计划说全部完成了，但输出写明什么都没有运行：状态只是声明。",
               "The plan says everything is completed, yet the output says nothing was run: a status is a claim.") },
    ScenarioDef { figure: Write, id: "omit", change: |p| p.submitted.truncate(1),
        label: ("漏掉一项", "Leave an item out"),
        hint: ("只提交第 1 项：整体替换后，第 2 项从 state 中消失。",
               "Only item 1 is submitted: after the whole-list replacement, item 2 is gone from state.") },
    ScenarioDef { figure: Prepare, id: "pending", change: |_| {},
        label: ("带上当前计划", "Attach the current plan"),
        hint: ("prepared 的第一条消息带上了计划；messages 和工具 id 都没有变。",
               "The first message of prepared carries the plan; messages and the tool ids are unchanged.") },
    ScenarioDef { figure: Prepare, id: "updated", change: |p| p.host[1].status = "completed".into(),
        label: ("计划与证据矛盾", "Plan versus evidence"),
        hint: ("计划声称\u{201c}运行并核对\u{201d}已完成，工具结果却说用户拒绝了：计划是声明，工具结果才是证据。",
               "The plan claims \"Run and check\" is completed while the tool result says the user declined: the plan is a claim, the result is evidence.") },
    ScenarioDef { figure: Prepare, id: "empty",
        change: |p| {
            p.submitted.clear();
            p.host.clear();
        },
        label: ("空计划", "Empty plan"),
        hint: ("计划为空，渲染成占位行。", "The plan is empty and renders as the placeholder line.") },
];

impl ScenarioDef {
    /// LESSON.md's base data in `lang`, changed as this scenario says. The history is built only
    /// for `prepare`, the one entry that reads it, so that a short trace of another figure does not
    /// build and drop three messages it never reads.
    pub fn data(&self, lang: Lang) -> Data {
        let read = lang.pick("读取源码", "Read the source");
        let run = lang.pick("运行并核对", "Run and check");
        let mut plans = Plans {
            host: vec![todo("1", read, "completed"), todo("2", run, "pending")],
            submitted: vec![todo("1", read, "completed"), todo("2", run, "in_progress")],
        };
        (self.change)(&mut plans);
        Data {
            state: State { items: plans.host },
            items: plain(&plans.submitted),
            messages: if self.figure == Prepare { history(lang) } else { Vec::new() },
            agent: None,
            run: None,
            answer: None,
        }
    }
}

fn todo(id: &str, content: &str, status: &str) -> Todo {
    Todo { id: id.into(), content: content.into(), status: status.into() }
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
            content: Content::Blocks(std::sync::Arc::new(vec![Block::ToolUse {
                id: "run_1".into(),
                name: "run_main".into(),
                input: Value::Object(Map::new()),
            }])),
        },
        Message {
            role: Role::User,
            content: Content::Blocks(std::sync::Arc::new(vec![Block::ToolResult {
                tool_use_id: "run_1".into(),
                content: lang.pick("未执行：用户拒绝。", "Not run: the user declined.").into(),
                is_error: true,
            }])),
        },
    ]
}
