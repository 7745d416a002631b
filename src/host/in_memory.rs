//! The loop's host in the browser: files in memory, the scenario's decision, and the recorded run of `main.py`.
//!
//! There is no process in the page. `run_main` returns what one real run of `main.py` printed,
//! and its result text says that it is a recording.

use crate::lesson::agent_types::HostEvent;
use crate::lesson::agent_types::{
    exit_line, inside, output_header, Approval, Decision, Process, ReadError, RunResult, Runner,
    Workspace,
};
use crate::lesson::types::Lang;
use std::borrow::Cow;

/// A workspace whose files are strings.
pub struct MemoryWorkspace {
    files: Vec<(String, String)>,
    /// Its description, made once: the files never change.
    description: String,
}

impl MemoryWorkspace {
    pub fn new(files: &[(&str, &str)]) -> MemoryWorkspace {
        let files: Vec<(String, String)> =
            files.iter().map(|&(name, text)| (name.to_string(), text.to_string())).collect();
        let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        let description = format!("files in memory: {}", names.join(", "));
        MemoryWorkspace { files, description }
    }
}

impl Workspace for MemoryWorkspace {
    fn read(&self, path: &str) -> Result<String, ReadError> {
        let name = inside(path).ok_or(ReadError::Outside)?.join("/");
        let file = self.files.iter().find(|(known, _)| *known == name);
        file.map(|(_, text)| text.clone()).ok_or(ReadError::Missing)
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.description)
    }
}

/// A decision made in advance (the scenario's, or `practice --decision`); counts how often it was asked.
pub struct Preset {
    pub decision: Decision,
    pub asked: usize,
}

impl Preset {
    pub fn new(decision: Decision) -> Preset {
        Preset { decision, asked: 0 }
    }
}

impl Approval for Preset {
    fn decide(&mut self, _lang: Lang) -> Decision {
        HostEvent::Ask.decide();
        self.asked += 1;
        self.decision
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Borrowed(match self.decision {
            Decision::Allow => "decided in advance: allow",
            Decision::Deny => "decided in advance: deny",
        })
    }
}

/// What `python3 main.py` printed when it was run once for real (exit code 0).
pub const RECORDED_OUTPUT: &str = "42\n";

/// The recorded run: the same result every time, labelled as recorded.
pub struct Recorded;

impl Runner for Recorded {
    fn run(&mut self, lang: Lang) -> RunResult {
        let label = lang.pick(
            "（录制的结果：页面里不运行程序，这是 python3 main.py 真实运行一次时的输出）",
            "(recorded: the page runs no program; this is what python3 main.py printed when it was run once)",
        );
        let text =
            format!("{label}\n{}\n{}\n{RECORDED_OUTPUT}", exit_line(0, lang), output_header(lang));
        let process =
            Process { exit_code: Some(0), output: RECORDED_OUTPUT.to_string(), timed_out: false };
        RunResult { text, ok: true, process: Some(process) }
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Borrowed("recorded run of main.py (exit code 0, output 42)")
    }
}
