//! The words of "predict, then reveal" (predict.rs) in Chinese and English: prompts, answers, and the sentence of why.
//!
//! The sentences of why restate the lesson's own points (LESSON.md, LOOP.md); where the host
//! already said why (a refused plan's message, a failed read), its words are used as they are.

use crate::host::figures::FigureId;
use crate::lesson::Lang;

/// An answer, before it is worded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The function returns its value (worded for the figure's function).
    Ok(FigureId),
    /// prepare_messages returns, and the stored history was edited too (never right).
    EditsHistory,
    /// An error, by its stable code.
    Code(&'static str),
    /// The host accepts the plan.
    Accepted,
    /// run_main: asked and allowed, so it runs; asked and declined; blocked without asking.
    Runs,
    Declined,
    Blocked,
    /// read_file: the text; refused as outside the workspace; an error result (no such file).
    Reads,
    Outside,
    ReadFails,
    /// Another tool: it runs, or there is no such tool.
    ToolRuns,
    NoSuchTool,
    /// The reminder: added, or not.
    Yes,
    No,
    /// The items (id, content) the final plan leaves unfinished.
    Items(Vec<(String, String)>),
    /// Why the loop stops, when the plan is empty.
    Answered,
    CallLimit,
    /// Where the loop ended in an error: it went on instead, or the host made up a reply.
    GoesOn,
    Invents,
}

/// The error codes in the order validation checks them (LESSON.md), then prepare_messages's.
const CODES: [&str; 12] = [
    "not_a_list",
    "too_many_items",
    "bad_shape",
    "not_a_string",
    "empty_id",
    "id_too_long",
    "duplicate_id",
    "empty_content",
    "content_too_long",
    "unknown_status",
    "too_many_active",
    "no_user_text",
];

impl Answer {
    /// The stable key the page puts on the answer's button (`data-answer`).
    pub fn key(&self) -> String {
        match self {
            Answer::Ok(_) => "ok".into(),
            Answer::EditsHistory => "edits_history".into(),
            Answer::Code(code) => (*code).into(),
            Answer::Accepted => "accepted".into(),
            Answer::Runs => "runs".into(),
            Answer::Declined => "declined".into(),
            Answer::Blocked => "blocked".into(),
            Answer::Reads => "reads".into(),
            Answer::Outside => "outside".into(),
            Answer::ReadFails => "read_fails".into(),
            Answer::ToolRuns => "tool_runs".into(),
            Answer::NoSuchTool => "no_such_tool".into(),
            Answer::Yes => "yes".into(),
            Answer::No => "no".into(),
            Answer::Items(items) => {
                let ids: Vec<&str> = items.iter().map(|(id, _)| id.as_str()).collect();
                format!("items:{}", ids.join(","))
            }
            Answer::Answered => "answered".into(),
            Answer::CallLimit => "call_limit".into(),
            Answer::GoesOn => "goes_on".into(),
            Answer::Invents => "invents".into(),
        }
    }

    /// Where the answer stands among the choices: a fixed order, so the right one's place gives
    /// nothing away (success first, then errors in check order; sets of items from fewest).
    pub fn order(&self) -> (usize, String) {
        let rank = match self {
            Answer::Ok(_) | Answer::Accepted | Answer::Runs | Answer::Reads | Answer::ToolRuns => 0,
            Answer::Yes | Answer::Answered | Answer::GoesOn => 0,
            Answer::EditsHistory | Answer::Declined | Answer::Outside | Answer::NoSuchTool => 1,
            Answer::No | Answer::CallLimit | Answer::Invents => 1,
            Answer::Blocked | Answer::ReadFails => 2,
            Answer::Code(code) => 10 + CODES.iter().position(|c| c == code).unwrap_or(CODES.len()),
            Answer::Items(items) => 100 + items.len(),
        };
        (rank, self.key())
    }
}

/// An answer as its button says it.
pub fn label(answer: &Answer, lang: Lang) -> String {
    let pick = |zh: &str, en: &str| lang.pick(zh, en).to_string();
    match answer {
        Answer::Ok(FigureId::Write) => {
            pick("Ok：宿主的计划被整体替换", "Ok: the host’s plan is replaced")
        }
        Answer::Ok(FigureId::Prepare) => pick(
            "Ok：返回一份带上计划的副本，保存的历史不变",
            "Ok: a copy that carries the plan; the stored history is unchanged",
        ),
        Answer::Ok(_) => pick("Ok：一份新建的、规范化的清单", "Ok: a new, normalized list"),
        Answer::EditsHistory => pick(
            "Ok，而且保存的历史也带上了计划",
            "Ok, and the stored history now carries the plan too",
        ),
        Answer::Code(code) => {
            let (zh, en) = code_words(code);
            match lang {
                Lang::Zh => format!("错误 {code}：{zh}"),
                Lang::En => format!("Error {code}: {en}"),
            }
        }
        Answer::Accepted => {
            pick("接受：宿主的计划被整体替换", "Accepted: the host’s plan is replaced")
        }
        Answer::Runs => {
            pick("会：询问用户，获准后运行", "Yes: the user is asked, allows it, and it runs")
        }
        Answer::Declined => {
            pick("不会：询问了用户，用户拒绝", "No: the user is asked and declines")
        }
        Answer::Blocked => pick(
            "不会：宿主规则直接挡下，不询问任何人",
            "No: a host rule blocks it without asking anyone",
        ),
        Answer::Reads => pick(
            "读取并返回文件内容，不需要批准",
            "It reads the file and returns its text, no approval needed",
        ),
        Answer::Outside => {
            pick("拒绝：路径在工作区之外", "Refused: the path is outside the workspace")
        }
        Answer::ReadFails => {
            pick("返回错误结果：读不到这个文件", "An error result: the file cannot be read")
        }
        Answer::ToolRuns => pick("宿主执行这个工具", "The host runs the tool"),
        Answer::NoSuchTool => pick("拒绝：宿主没有这个工具", "Refused: the host has no such tool"),
        Answer::Yes => pick("会，附上提醒", "Yes, the reminder is added"),
        Answer::No => pick("不会", "No"),
        Answer::Items(items) if items.is_empty() => {
            pick("没有：每一项都标成了 completed", "None: every item says completed")
        }
        Answer::Items(items) => {
            let listed: Vec<String> =
                items.iter().map(|(id, content)| format!("{id}. {content}")).collect();
            listed.join(lang.pick("；", "; "))
        }
        Answer::Answered => {
            pick("answered：模型不再调用工具", "answered: the model replies without a tool call")
        }
        Answer::CallLimit => {
            pick("call_limit：模型调用次数用完", "call_limit: the model calls are spent")
        }
        Answer::GoesOn => pick("模型照常回复，循环继续", "The model replies and the loop goes on"),
        Answer::Invents => {
            pick("宿主自己编一个回复，继续运行", "The host makes up a reply and goes on")
        }
    }
}

/// What each error code means, in a few words (Chinese, English).
fn code_words(code: &str) -> (&'static str, &'static str) {
    match code {
        "not_a_list" => ("items 不是列表", "items is not a list"),
        "too_many_items" => ("超过 20 项", "more than 20 items"),
        "bad_shape" => (
            "某项不是只含 id、content、status 的对象",
            "an item is not an object of exactly id, content, status",
        ),
        "not_a_string" => ("某个值不是字符串", "a value is not a string"),
        "empty_id" => ("某项的 id 为空", "an id is empty"),
        "id_too_long" => ("某项的 id 超过 32 个字符", "an id is over 32 characters"),
        "duplicate_id" => ("某个 id 与前面的重复", "an id repeats an earlier one"),
        "empty_content" => ("某项的 content 为空", "a content is empty"),
        "content_too_long" => {
            ("某项的 content 超过 150 个字符", "a content is over 150 characters")
        }
        "unknown_status" => (
            "某个状态不是 pending、in_progress、completed 之一",
            "a status is not pending, in_progress or completed",
        ),
        "too_many_active" => ("不止一项 in_progress", "more than one item in progress"),
        "no_user_text" => ("第一条消息不是用户的文本", "the first message is not a user text"),
        _ => ("", ""),
    }
}

pub fn result_prompt(figure: FigureId, lang: Lang) -> String {
    let (zh, en) = match figure {
        FigureId::Write => (
            "write_todos 会替换宿主的计划（Ok），还是返回哪个错误？",
            "Will write_todos replace the host’s plan (Ok), or return which error?",
        ),
        FigureId::Prepare => {
            ("prepare_messages 会返回什么？", "What will prepare_messages return?")
        }
        _ => (
            "validate_todos 会返回 Ok，还是哪个错误？",
            "Will validate_todos return Ok, or which error?",
        ),
    };
    lang.pick(zh, en).to_string()
}

pub fn ok_why(figure: FigureId, lang: Lang) -> String {
    let (zh, en) = match figure {
        FigureId::Write => (
            "每一项都通过了校验，所以宿主用一次赋值整体替换了计划。",
            "Every item passed validation, so the host replaced its plan in one assignment.",
        ),
        FigureId::Prepare => (
            "它深拷贝历史，只在副本的第一条消息后附上计划；保存的历史从不被修改。",
            "It deep-copies the history and attaches the plan to the copy’s first message only; the stored history is never edited.",
        ),
        _ => (
            "每一项都通过了全部检查，所以返回一份新建的、规范化的清单。",
            "Every item passed every check, so it returns a new, normalized list.",
        ),
    };
    lang.pick(zh, en).to_string()
}

/// Why a function failed: its own message; for write_todos, that nothing was assigned.
pub fn error_why(figure: FigureId, message: &str, lang: Lang) -> String {
    match (figure, lang) {
        (FigureId::Write, Lang::Zh) => format!("{message}校验失败，没有赋值：宿主的计划原样保留。"),
        (FigureId::Write, Lang::En) => {
            format!("{message} Validation failed, so nothing was assigned: the host keeps its old plan.")
        }
        _ => message.to_string(),
    }
}

pub fn plan_prompt(lang: Lang) -> String {
    lang.pick(
        "模型提交了这份计划（todo_write，见局部变量 call）。宿主会接受，还是拒绝？拒绝的话，为什么？",
        "The model submits this plan (todo_write; see call in the locals). Will the host accept it, or refuse it, and why?",
    )
    .to_string()
}

pub fn accepted_why(lang: Lang) -> String {
    lang.pick(
        "整份清单都通过了校验，宿主才用一次赋值替换旧计划；写入计划并不执行其中任何一项。",
        "The whole list passed validation, so the host replaced the old plan in one assignment; writing a plan runs none of its items.",
    )
    .to_string()
}

pub fn refused_why(message: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("{message}被拒的更新不会改动旧计划。"),
        Lang::En => format!("{message} A refused update leaves the old plan exactly as it was."),
    }
}

pub fn run_prompt(lang: Lang) -> String {
    lang.pick(
        "模型要求运行 main.py（run_main）。宿主会运行它吗？",
        "The model asks to run main.py (run_main). Will the host run it?",
    )
    .to_string()
}

pub fn run_why(answer: &Answer, lang: Lang) -> String {
    let (zh, en) = match answer {
        Answer::Runs => (
            "运行由宿主决定，每次都要先征得用户同意；这一次用户同意了，于是 main.py 运行了。",
            "Running is the host’s decision and needs the user’s approval every time; this time the user allowed it, so main.py ran.",
        ),
        Answer::Declined => (
            "宿主询问了用户，用户说不：计划里标成 completed 的项不授予任何权限。",
            "The host asked and the user said no: a plan item marked completed grants nothing.",
        ),
        _ => (
            "维护规则先于分发：run_main 被直接挡下，没有询问任何人。",
            "The maintenance rule comes before dispatch: run_main is blocked without asking anyone.",
        ),
    };
    lang.pick(zh, en).to_string()
}

pub fn read_prompt(path: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("模型要求读取 {path}（read_file）。宿主会怎么做？"),
        Lang::En => format!("The model asks to read {path} (read_file). What will the host do?"),
    }
}

pub fn read_why(answer: &Answer, message: &str, lang: Lang) -> String {
    match answer {
        Answer::Reads => lang
            .pick(
                "read_file 在工作区里读取，不需要用户批准；只有 run_main 要先问。",
                "read_file reads in the workspace without the user’s approval; only run_main asks first.",
            )
            .to_string(),
        _ => message.to_string(),
    }
}

pub fn tool_prompt(name: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("模型调用了名为 {name} 的工具。宿主会怎么做？"),
        Lang::En => format!("The model calls a tool named {name}. What will the host do?"),
    }
}

pub fn tool_why(answer: &Answer, lang: Lang) -> String {
    let (zh, en) = match answer {
        Answer::NoSuchTool => (
            "宿主只执行它知道的三个工具，其余的一律拒绝。",
            "The host runs only the three tools it knows and refuses any other.",
        ),
        _ => ("宿主执行了这个工具。", "The host ran the tool."),
    };
    lang.pick(zh, en).to_string()
}

pub fn reminder_prompt(rounds: u64, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("连续没有更新计划的轮数：{rounds}。宿主会在这一轮的工具结果后附上提醒吗？"),
        Lang::En => format!(
            "Rounds in a row without a plan update: {rounds}. Will the host add the reminder after this round’s tool results?"
        ),
    }
}

pub fn reminder_why(added: bool, rounds: u64, lang: Lang) -> String {
    match (added, lang) {
        (true, Lang::Zh) => "连续第三轮没有更新计划，于是这一轮的工具结果后附上一条提醒，计数归零。".into(),
        (true, Lang::En) => "This is the third round in a row without a plan update, so one reminder follows its tool results and the count starts again.".into(),
        (false, Lang::Zh) => format!("提醒只在连续三轮没有更新计划时出现；现在才 {rounds} 轮。"),
        (false, Lang::En) => format!("The reminder comes only after three rounds in a row without a plan update; this is round {rounds}."),
    }
}

pub fn stop_prompt(limit: bool, calls: u64, lang: Lang) -> String {
    match (limit, lang) {
        (true, Lang::Zh) => format!("{calls} 次模型调用已经用完，循环将以 call_limit 停下。哪些项仍未完成？"),
        (true, Lang::En) => format!("All {calls} model calls are spent, so the loop stops with call_limit. Which items stay unfinished?"),
        (false, Lang::Zh) => "模型这次没有调用工具，循环将以 answered 停下。计划里哪些项仍未完成？".into(),
        (false, Lang::En) => "The model replied without a tool call, so the loop stops with answered. Which items does the plan leave unfinished?".into(),
    }
}

pub fn why_stop_prompt(lang: Lang) -> String {
    lang.pick("循环要在这里停下了。为什么？", "The loop is about to stop. Why?").to_string()
}

pub fn stop_why(limit: bool, all_done: bool, lang: Lang) -> String {
    let (zh, en) = match (limit, all_done) {
        (true, _) => (
            "预算优先：调用次数一用完循环就停下，没有任何东西把未完成的项标成完成。",
            "The budget wins: once the calls are spent the loop stops, and nothing marks unfinished items done.",
        ),
        (false, true) => (
            "每一项都声明完成了，但状态只是声明：证据在工具结果里。",
            "Every item claims completed, but a status is a claim: the evidence is in the tool results.",
        ),
        (false, false) => (
            "模型给出了回答，这本身不说明工作已完成；计划如实留下了未完成的项。",
            "The model gave an answer, which alone does not show the work was done; the plan still shows what is unfinished.",
        ),
    };
    lang.pick(zh, en).to_string()
}

pub fn loop_error_prompt(lang: Lang) -> String {
    lang.pick(
        "宿主向模型要下一个回复。接下来会怎样？",
        "The host asks the model for its next reply. What happens?",
    )
    .to_string()
}

pub fn loop_error_why(message: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("宿主从不编造回复：没有回复，循环就带着错误结束。{message}"),
        Lang::En => format!(
            "A host never makes a reply up: with no reply, the loop ends with the error. {message}"
        ),
    }
}
