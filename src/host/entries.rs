//! The call entries: for each figure, set up a scenario's data, call the lesson function, print the outcome.
//!
//! The page shows these functions in its "setup and call entry" part, so they stay as plain as
//! the lesson functions. `say` prints a line to the figure's output pane.

use serde::Serialize;
use todo_trace_macros::listed;
use tsify::Tsify;

use crate::host::loop_scenarios::AgentSetup;
use crate::host::runs::{Replay, RunFile};
use crate::lesson::agent::run_loop;
use crate::lesson::agent_types::{stopped, Decision, LoopError, Outcome, Tools};
use crate::lesson::{
    format_todos, prepare_messages, validate_todos, write_todos, Content, Lang, Message, State,
    Todo, TodoError,
};
use crate::recorder::say;
use serde_json::Value;

/// A scenario's data: the host's plan, the items the model submits, the conversation so far.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct Data {
    pub state: State,
    #[tsify(type = "unknown")]
    pub items: Value,
    pub messages: Vec<Message>,
    /// How the stand-in made a built-in loop scenario's run (LOOP.md); absent elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub agent: Option<AgentSetup>,
    /// The run the loop figure replays; absent for the function figures.
    #[serde(skip)]
    pub run: Option<RunFile>,
    /// A changed answer to "run main.py?" for that replay (a "what if"); the recording's when absent.
    #[serde(skip)]
    pub answer: Option<Decision>,
}

#[listed]
pub fn run_validate(data: Data, lang: Lang) -> Result<Vec<Todo>, TodoError> {
    let result = validate_todos(&data.items);
    match &result {
        Ok(new_list) => {
            say(lang.pick("校验通过。新清单：", "Valid. The new list:"));
            say(format_todos(new_list, lang));
        }
        Err(error) => say(error.message(lang)),
    }
    result
}

#[listed]
pub fn run_write(data: Data, lang: Lang) -> Result<String, TodoError> {
    let mut state = data.state;
    let result = write_todos(&mut state, &data.items, lang);
    match &result {
        Ok(_) => say(lang.pick("已写入。当前计划：", "Written. Current plan:")),
        Err(error) => {
            say(error.message(lang));
            say(lang.pick("计划没有改变。当前计划：", "The plan is unchanged. Current plan:"));
        }
    }
    say(format_todos(&state.items, lang));
    say(lang.pick(
        "写入计划没有运行其中任何一项：状态只是声明，不是证据。",
        "Writing the plan ran none of its items: a status is a claim, not evidence.",
    ));
    result
}

#[listed]
pub fn run_prepare(data: Data, lang: Lang) -> Result<Vec<Message>, TodoError> {
    let result = prepare_messages(&data.messages, &data.state, lang);
    match &result {
        Ok(prepared) => {
            say(lang.pick(
                "原始问题没有改变；这一次请求带上了当前计划。准备好的第一条消息：",
                "The original question is unchanged; this request carries the current plan. The prepared first message:",
            ));
            if let Content::Text(text) = &prepared[0].content {
                say(text);
            }
        }
        Err(error) => say(error.message(lang)),
    }
    result
}

#[listed]
pub fn run_agent(replay: &Replay, lang: Lang) -> Result<Outcome, LoopError> {
    let run = replay.run;
    let settings = run.settings;
    let (mut model, mut approval, mut runner) = (replay, replay, replay);
    let mut tools = Tools {
        workspace: replay,
        approval: &mut approval,
        runner: &mut runner,
        maintenance: settings.maintenance,
        lang: settings.lang,
    };
    let result =
        run_loop(&mut model, &mut tools, settings.max_calls, settings.reminder, &run.question);
    match &result {
        Ok(outcome) => {
            say(stopped(outcome, lang));
            say(format_todos(&outcome.plan, lang));
            for warning in &outcome.warnings {
                say(format!("{} {}: {}", warning.tool_use_id, warning.code, warning.message));
            }
            say(&outcome.answer);
        }
        Err(error) => say(error.message(lang)),
    }
    if let Some(divergence) = replay.finish(&result) {
        say(divergence.message);
    }
    result
}
