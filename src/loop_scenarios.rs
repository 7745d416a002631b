//! The loop's workspace, question and eight scenarios (LOOP.md's table), and running one in memory as the page does.

use crate::agent::run_loop;
use crate::agent_types::{Decision, Outcome, Tools};
use crate::in_memory::{MemoryWorkspace, Preset, Recorded};
use crate::stand_in::{Script, StandIn};
use crate::types::{Lang, TodoError};

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

/// A scenario of the loop figure: everything that differs from one run to another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopScenario {
    pub id: &'static str,
    pub script: Script,
    pub decision: Decision,
    pub maintenance: bool,
    pub max_calls: usize,
    pub reminder: bool,
    /// zh, en
    pub label: (&'static str, &'static str),
    /// zh, en
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

/// The default number of model calls a run may make.
pub const MAX_CALLS: usize = 12;

const BASE: LoopScenario = LoopScenario {
    id: "allow",
    script: Script::Standard,
    decision: Decision::Allow,
    maintenance: false,
    max_calls: MAX_CALLS,
    reminder: false,
    label: ("", ""),
    hint: ("", ""),
};

/// LOOP.md's table, in its order; the first is the default.
pub const SCENARIOS: [LoopScenario; 8] = [
    LoopScenario {
        label: ("允许运行", "Run allowed"),
        hint: (
            "读两个文件，获准后运行并核对：8 次模型调用，其中 4 次只为更新计划。",
            "Read both files, run once allowed, check: 8 model calls, 4 of them only to update the plan.",
        ),
        ..BASE
    },
    LoopScenario {
        id: "deny",
        decision: Decision::Deny,
        label: ("拒绝运行", "Run declined"),
        hint: (
            "用户说不：run_main 得到错误结果，第 3 项仍是待办。计划里的状态不授予任何权限。",
            "The user says no: run_main gets an error result and item 3 stays pending. A status grants nothing.",
        ),
        ..BASE
    },
    LoopScenario {
        id: "maintenance",
        maintenance: true,
        label: ("维护中", "Maintenance"),
        hint: (
            "宿主规则先于分发：run_main 被直接挡下，没有人被询问。",
            "A host rule comes before dispatch: run_main is blocked and nobody is asked.",
        ),
        ..BASE
    },
    LoopScenario {
        id: "budget",
        max_calls: 4,
        label: ("4 次调用的预算", "A budget of 4 calls"),
        hint: (
            "第 4 次调用后循环以 call_limit 停下：计划没完成，也没有任何东西把它标成完成。",
            "After the 4th call the loop stops with call_limit: the plan is unfinished, and nothing marks it done.",
        ),
        ..BASE
    },
    LoopScenario {
        id: "skip",
        script: Script::Skip,
        label: ("跳过核对", "Check skipped"),
        hint: (
            "回答说输出是 42，计划里“读取预期”却仍是待办：expected.txt 从未被读。",
            "The answer says the output is 42, yet “Read the expected output” is still pending: expected.txt was never read.",
        ),
        ..BASE
    },
    LoopScenario {
        id: "claim",
        script: Script::Claim,
        label: ("只是声明完成", "Done, by claim"),
        hint: (
            "每一项都标成 completed，却没读任何文件，也没运行任何程序。",
            "Every item is marked completed, yet no file was read and nothing ran.",
        ),
        ..BASE
    },
    LoopScenario {
        id: "rejected",
        script: Script::Rejected,
        label: ("更新被拒", "Update refused"),
        hint: (
            "两项同时 in_progress 的计划被拒，旧计划原样保留；模型改正后重新提交。",
            "A plan with two items in progress is refused and the old plan stays; the model corrects it and resubmits.",
        ),
        ..BASE
    },
    LoopScenario {
        id: "nag",
        script: Script::Drift,
        reminder: true,
        label: ("提醒", "Reminder"),
        hint: (
            "连续三轮没有更新计划：第三轮的工具结果后面附上一条提醒。",
            "Three rounds without a plan update: the third round's tool results carry one reminder.",
        ),
        ..BASE
    },
];

/// The scenario with this id.
pub fn scenario(id: &str) -> Option<&'static LoopScenario> {
    SCENARIOS.iter().find(|scenario| scenario.id == id)
}

/// A run in memory, with what its stand-ins saw.
pub struct MemoryRun {
    pub outcome: Result<Outcome, TodoError>,
    pub model: StandIn,
    /// How often the user was asked for approval.
    pub asked: usize,
}

/// Runs a scenario as the page does: the stand-in, files in memory, the scenario's decision,
/// the recorded run.
pub fn run_in_memory(scenario: &LoopScenario, lang: Lang) -> MemoryRun {
    let mut model = StandIn::new(scenario.script, lang);
    let workspace = MemoryWorkspace::new(&FILES);
    let mut approval = Preset::new(scenario.decision);
    let mut runner = Recorded;
    let mut tools = Tools {
        workspace: &workspace,
        approval: &mut approval,
        runner: &mut runner,
        maintenance: scenario.maintenance,
        lang,
    };
    let outcome =
        run_loop(&mut model, &mut tools, scenario.max_calls, scenario.reminder, question(lang));
    MemoryRun { outcome, model, asked: approval.asked }
}
