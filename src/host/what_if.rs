//! "What if": one thing the host controls changed (the user's answer, the maintenance rule, the budget, the reminder), the loop run again through the same traced code, and the two runs compared.
//!
//! A built-in scenario is the stand-in's run: the changed side is the stand-in run again with the
//! changed setup, so it goes on as the stand-in would. A run file (a live model's, or any file
//! the reader opened) has no model to ask again: its recording is replayed with the changed
//! settings up to the first model call whose request differs, and the replay stops there, never
//! inventing a reply (runs/replay.rs).

use serde::Serialize;
use tsify::Tsify;

use crate::host::compare::{compare, Comparison};
use crate::host::figures::{figure, loop_scenario, not_built, ApiError, FigureId, LOOP_BUILT};
use crate::host::loop_scenarios::{run_file, AgentSetup};
use crate::host::run::{replay_trace, run_file_trace, ReplayInfo, Trace, RUN_SCENARIO};
use crate::host::runs::{self, RunFile};
use crate::lesson::agent_types::Decision;
use crate::lesson::messages::quoted;
use crate::lesson::Lang;
use crate::recorder::Settings;

/// The largest budget a "what if" offers: the scenarios' own.
pub const MAX_BUDGET: usize = 12;

/// One thing the host controls, changed.
#[derive(Serialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// The user's answer to "run main.py?".
    Answer {
        decision: Decision,
    },
    Maintenance {
        on: bool,
    },
    /// `max_calls`, 1 to [`MAX_BUDGET`].
    Budget {
        max_calls: usize,
    },
    Reminder {
        on: bool,
    },
}

impl Change {
    /// Reads a change as a link writes it: `allow`, `deny`, `maintenance-on`, `maintenance-off`,
    /// `budget-N`, `reminder-on`, `reminder-off`.
    pub fn parse(text: &str) -> Result<Change, ApiError> {
        let on_off = |rest: &str| match rest {
            "on" => Some(true),
            "off" => Some(false),
            _ => None,
        };
        let change = match text {
            "allow" => Some(Change::Answer { decision: Decision::Allow }),
            "deny" => Some(Change::Answer { decision: Decision::Deny }),
            _ => match text.split_once('-') {
                Some(("maintenance", rest)) => on_off(rest).map(|on| Change::Maintenance { on }),
                Some(("reminder", rest)) => on_off(rest).map(|on| Change::Reminder { on }),
                // Digits only: "budget-+4" or "budget-04" is not how a link writes 4.
                Some(("budget", rest))
                    if !rest.starts_with('0') && rest.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    rest.parse()
                        .ok()
                        .filter(|n| (1..=MAX_BUDGET).contains(n))
                        .map(|max_calls| Change::Budget { max_calls })
                }
                _ => None,
            },
        };
        change.ok_or_else(|| {
            ApiError(format!(
                "unknown change {}: expected allow, deny, maintenance-on, maintenance-off, budget-1 to budget-{MAX_BUDGET}, reminder-on or reminder-off",
                quoted(text)
            ))
        })
    }

    /// The change as a link writes it.
    pub fn name(self) -> String {
        let on_off = |on| if on { "on" } else { "off" };
        match self {
            Change::Answer { decision: Decision::Allow } => "allow".to_string(),
            Change::Answer { decision: Decision::Deny } => "deny".to_string(),
            Change::Maintenance { on } => format!("maintenance-{}", on_off(on)),
            Change::Budget { max_calls } => format!("budget-{max_calls}"),
            Change::Reminder { on } => format!("reminder-{}", on_off(on)),
        }
    }

    /// A scenario's setup with the change.
    pub fn setup(self, setup: AgentSetup) -> AgentSetup {
        match self {
            Change::Answer { decision } => AgentSetup { decision, ..setup },
            Change::Maintenance { on } => AgentSetup { maintenance: on, ..setup },
            Change::Budget { max_calls } => AgentSetup { max_calls, ..setup },
            Change::Reminder { on } => AgentSetup { reminder: on, ..setup },
        }
    }

    /// A run file with the change to its settings, and the user's answer to give in its replay.
    pub fn run(self, mut run: RunFile) -> (RunFile, Option<Decision>) {
        let settings = &mut run.settings;
        let answer = match self {
            Change::Answer { decision } => Some(decision),
            Change::Maintenance { on } => {
                settings.maintenance = on;
                None
            }
            Change::Budget { max_calls } => {
                settings.max_calls = max_calls;
                None
            }
            Change::Reminder { on } => {
                settings.reminder = on;
                None
            }
        };
        (run, answer)
    }
}

/// A "what if": the change, where each run came from, and the two runs compared.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct WhatIf {
    /// The change as a link writes it (`deny`, `budget-4`, ...).
    pub id: String,
    pub change: Change,
    /// The changed side goes on with the stand-in (`stand_in`), or replays a recording (`replay`).
    pub continues: Continues,
    /// Each run's origin and settings (base, changed).
    pub runs: Vec<ReplayInfo>,
    pub comparison: Comparison,
}

/// How the changed side gets its model's replies.
#[derive(Serialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Continues {
    StandIn,
    Replay,
}

/// A built-in scenario with a change: the stand-in runs again with the changed setup.
pub fn what_if(scenario_id: &str, change: &str, lang: Lang) -> Result<WhatIf, ApiError> {
    if !LOOP_BUILT {
        return Err(not_built());
    }
    let scenario = loop_scenario(scenario_id)?;
    let change = Change::parse(change)?;
    let figure = figure(FigureId::Loop.name())?;
    let trace = |setup: AgentSetup| {
        let mut trace =
            run_file_trace(figure, scenario.id, run_file(&setup, lang), lang, Settings::default());
        trace.data.agent = Some(setup);
        trace
    };
    let base = trace(scenario.setup);
    let changed = trace(change.setup(scenario.setup));
    Ok(finish(change, Continues::StandIn, &base, &changed))
}

/// A run file's bytes with a change: its recording replayed with the changed settings. A file
/// that cannot be read is an error here: the page only offers a "what if" on a run it replayed.
pub fn what_if_run(bytes: &[u8], change: &str, lang: Lang) -> Result<WhatIf, ApiError> {
    if !LOOP_BUILT {
        return Err(not_built());
    }
    let change = Change::parse(change)?;
    let run = runs::parse(bytes).map_err(|error| ApiError(error.message(lang)))?;
    let figure = figure(FigureId::Loop.name())?;
    let base = run_file_trace(figure, RUN_SCENARIO, run.clone(), lang, Settings::default());
    let (changed_run, answer) = change.run(run);
    let changed =
        replay_trace(figure, RUN_SCENARIO, changed_run, answer, lang, Settings::default());
    Ok(finish(change, Continues::Replay, &base, &changed))
}

fn finish(change: Change, continues: Continues, base: &Trace, changed: &Trace) -> WhatIf {
    WhatIf {
        id: change.name(),
        change,
        continues,
        runs: [base, changed].iter().filter_map(|t| t.replay.clone()).collect(),
        comparison: compare(base, changed),
    }
}
