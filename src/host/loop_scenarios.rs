//! The loop's workspace, question and nine scenarios (LOOP.md's table), and running one in memory as the page does.

use serde::Serialize;
use tsify::Tsify;

use crate::host::in_memory::{MemoryWorkspace, Preset, Recorded};
use crate::host::runs::tape::{TapedApproval, TapedModel, TapedRunner, TapedWorkspace};
use crate::host::runs::{RunFile, RunSettings, Source, Tape};
use crate::host::stand_in::{Script, StandIn};
use crate::lesson::agent::run_loop;
use crate::lesson::agent_types::{Decision, LoopError, Outcome, Tools};
use crate::lesson::types::Lang;

/// The program the model is asked to run. `ran.marker` is the evidence that it really ran.
pub const MAIN_PY: &str =
    "from pathlib import Path\nPath(\"ran.marker\").write_text(\"main.py ran\\n\")\nprint(6 * 7)\n";
/// What the program should print.
pub const EXPECTED_TXT: &str = "42\n";
/// The workspace every run starts from.
pub const FILES: [(&str, &str); 2] = [("main.py", MAIN_PY), ("expected.txt", EXPECTED_TXT)];
/// The file only a real run of `main.py` leaves behind.
pub const MARKER: &str = "ran.marker";

/// The user's question: the first message of every history.
pub fn question(lang: Lang) -> &'static str {
    lang.pick(
        "先读 main.py 和 expected.txt；运行前先问我，获准后运行并核对输出，报告实际结果，并用清单记录进度。",
        "Read main.py and expected.txt; ask me before running it; once allowed, run it, check its output against expected.txt, report what actually happened, and keep a plan as you go.",
    )
}

/// Everything that differs from one run of the loop to another: what the call entry is given.
#[derive(Serialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AgentSetup {
    /// The stand-in's script.
    pub model: Script,
    /// The user's answer when asked to run `main.py`.
    pub decision: Decision,
    /// The host's maintenance rule: runs are blocked without asking.
    pub maintenance: bool,
    pub max_calls: usize,
    /// The reminder variant: a reminder after three rounds without a plan update.
    pub reminder: bool,
}

/// The default number of model calls a run may make.
pub const MAX_CALLS: usize = 12;

impl Default for AgentSetup {
    /// The `allow` scenario, and `practice` without flags (which asks instead of allowing).
    fn default() -> Self {
        AgentSetup {
            model: Script::Standard,
            decision: Decision::Allow,
            maintenance: false,
            max_calls: MAX_CALLS,
            reminder: false,
        }
    }
}

/// A scenario of the loop figure: its id, its setup, and its words in both languages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopScenario {
    pub id: &'static str,
    pub setup: AgentSetup,
    /// (Chinese, English)
    pub label: (&'static str, &'static str),
    pub hint: (&'static str, &'static str),
}

impl LoopScenario {
    pub fn label(&self, lang: Lang) -> &'static str {
        lang.pick(self.label.0, self.label.1)
    }

    pub fn hint(&self, lang: Lang) -> &'static str {
        lang.pick(self.hint.0, self.hint.1)
    }
}

const fn setup(
    model: Script,
    decision: Decision,
    maintenance: bool,
    max_calls: usize,
    reminder: bool,
) -> AgentSetup {
    AgentSetup { model, decision, maintenance, max_calls, reminder }
}

use Decision::{Allow, Deny};
use Script::{Claim, Drift, Rejected, Skip, Standard};

/// LOOP.md's table, in its order; the first is the default.
#[rustfmt::skip]
pub const SCENARIOS: [LoopScenario; 9] = [
    LoopScenario { id: "allow", setup: setup(Standard, Allow, false, 12, false),
        label: ("允许运行", "Run allowed"),
        hint: ("读两个文件，获准后运行并核对：8 次模型调用，其中 4 次只为更新计划。",
               "Read both files, run once allowed, check: 8 model calls, 4 of them only to update the plan.") },
    LoopScenario { id: "deny", setup: setup(Standard, Deny, false, 12, false),
        label: ("拒绝运行", "Run declined"),
        hint: ("用户说不：run_main 得到错误结果，第 3 项仍是待办。计划里的状态不授予任何权限。",
               "The user says no: run_main gets an error result and item 3 stays pending. A status grants nothing.") },
    LoopScenario { id: "maintenance", setup: setup(Standard, Allow, true, 12, false),
        label: ("维护中", "Maintenance"),
        hint: ("宿主规则先于分发：run_main 被直接挡下，没有人被询问。",
               "A host rule comes before dispatch: run_main is blocked and nobody is asked.") },
    LoopScenario { id: "budget", setup: setup(Standard, Allow, false, 4, false),
        label: ("4 次调用的预算", "A budget of 4 calls"),
        hint: ("第 4 次调用后循环以 call_limit 停下：计划没完成，也没有任何东西把它标成完成。",
               "After the 4th call the loop stops with call_limit: the plan is unfinished, and nothing marks it done.") },
    LoopScenario { id: "skip", setup: setup(Skip, Allow, false, 12, false),
        label: ("跳过核对", "Check skipped"),
        hint: ("回答说输出是 42，计划里\u{201c}读取预期\u{201d}却仍是待办：expected.txt 从未被读。",
               "The answer says the output is 42, yet \u{201c}Read the expected output\u{201d} is still pending: expected.txt was never read.") },
    LoopScenario { id: "claim", setup: setup(Claim, Allow, false, 12, false),
        label: ("只是声明完成", "Done, by claim"),
        hint: ("每一项都标成 completed，却没读任何文件，也没运行任何程序。",
               "Every item is marked completed, yet no file was read and nothing ran.") },
    LoopScenario { id: "rejected", setup: setup(Rejected, Allow, false, 12, false),
        label: ("更新被拒", "Update refused"),
        hint: ("两项同时 in_progress 的计划被拒，旧计划原样保留；模型改正后重新提交。",
               "A plan with two items in progress is refused and the old plan stays; the model corrects it and resubmits.") },
    LoopScenario { id: "nag", setup: setup(Drift, Allow, false, 12, true),
        label: ("提醒", "Reminder"),
        hint: ("连续三轮没有更新计划：第三轮的工具结果后面附上一条提醒。",
               "Three rounds without a plan update: the third round's tool results carry one reminder.") },
    LoopScenario { id: "drift", setup: setup(Drift, Allow, false, 12, false),
        label: ("计划过时", "Stale plan"),
        hint: ("同一个模型，没有提醒：答案是对的，计划却停在 I P P，早已过时。",
               "The same model without the reminder: the answer is right, yet the plan stays at I P P, long out of date.") },
];

/// The scenario with this id.
pub fn scenario(id: &str) -> Option<&'static LoopScenario> {
    SCENARIOS.iter().find(|scenario| scenario.id == id)
}

/// A run in memory, with what its stand-ins saw.
pub struct MemoryRun {
    pub outcome: Result<Outcome, LoopError>,
    pub model: StandIn,
    /// How often the user was asked for approval.
    pub asked: usize,
}

/// Runs a setup as the page does (the stand-in, files in memory, the setup's decision, the
/// recorded run), keeping the stand-in to look at what it was sent.
pub fn run_in_memory(setup: &AgentSetup, lang: Lang) -> MemoryRun {
    let mut model = StandIn::keeping_requests(setup.model, lang);
    let workspace = MemoryWorkspace::new(&FILES);
    let mut approval = Preset::new(setup.decision);
    let mut runner = Recorded;
    let mut tools = Tools {
        workspace: &workspace,
        approval: &mut approval,
        runner: &mut runner,
        maintenance: setup.maintenance,
        lang,
    };
    let outcome = run_loop(&mut model, &mut tools, setup.max_calls, setup.reminder, question(lang));
    MemoryRun { outcome, model, asked: approval.asked }
}

/// A setup's run, made by the stand-in with the page's files, recorded: the run file the loop
/// figure replays. The built-in scenarios are runs like any other.
pub fn run_file(setup: &AgentSetup, lang: Lang) -> RunFile {
    let tape = Tape::new();
    let mut stand_in = StandIn::new(setup.model, lang);
    let mut model = TapedModel { model: &mut stand_in, tape: &tape };
    let files = MemoryWorkspace::new(&FILES);
    let workspace = TapedWorkspace { workspace: &files, tape: &tape };
    let mut preset = Preset::new(setup.decision);
    let mut approval = TapedApproval { approval: &mut preset, tape: &tape };
    let mut recorded = Recorded;
    let mut runner = TapedRunner { runner: &mut recorded, tape: &tape };
    let mut tools = Tools {
        workspace: &workspace,
        approval: &mut approval,
        runner: &mut runner,
        maintenance: setup.maintenance,
        lang,
    };
    let question = question(lang);
    let result = run_loop(&mut model, &mut tools, setup.max_calls, setup.reminder, question);
    let settings = RunSettings {
        lang,
        max_calls: setup.max_calls,
        maintenance: setup.maintenance,
        reminder: setup.reminder,
    };
    tape.finish(Source::StandIn { script: setup.model }, None, settings, question, &result)
}
