//! The deterministic model stand-in of LOOP.md: five scripts, replies in the run's language, branching on tool results.
//!
//! No real model is called anywhere. The stand-in plays one script call by call; where the script
//! depends on what happened (did the run succeed? what did it print?) it reads the tool results
//! in the request, as a model would. It keeps every request it received, so tests can check what
//! a model was actually sent.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use tsify::Tsify;

use crate::lesson::agent_types::{output_header, Model, ModelError, Request, REMINDER};
use crate::lesson::types::{Block, Content, Lang, Message};
use crate::recorder;
use serde_json::{json, Value};

/// Which story the stand-in plays.
#[derive(Serialize, Deserialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Script {
    /// Plan, read both files, run once allowed, check, answer.
    Standard,
    /// Runs without reading expected.txt, then reports the output anyway.
    Skip,
    /// Marks everything completed, reads and runs nothing.
    Claim,
    /// Standard, with one refused plan update (two items in progress) and its correction.
    Rejected,
    /// Reads and runs without updating the plan for three rounds (the reminder's case).
    Drift,
}

impl Script {
    pub const ALL: [Script; 5] =
        [Script::Standard, Script::Skip, Script::Claim, Script::Rejected, Script::Drift];

    pub fn name(self) -> &'static str {
        match self {
            Script::Standard => "standard",
            Script::Skip => "skip",
            Script::Claim => "claim",
            Script::Rejected => "rejected",
            Script::Drift => "drift",
        }
    }

    pub fn from_name(name: &str) -> Option<Script> {
        Script::ALL.into_iter().find(|script| script.name() == name)
    }

    fn moves(self) -> &'static [Move] {
        match self {
            Script::Standard => &STANDARD,
            Script::Skip => &SKIP,
            Script::Claim => &CLAIM,
            Script::Rejected => &REJECTED,
            Script::Drift => &DRIFT,
        }
    }
}

/// A status in a scripted plan, in item order: pending, in progress, completed.
#[derive(Clone, Copy, Debug)]
enum S {
    P,
    I,
    C,
}

/// One scripted reply.
#[derive(Clone, Copy, Debug)]
enum Move {
    Plan([S; 3]),
    Read(&'static str),
    Run,
    /// This plan if the last run succeeded; otherwise the answer that it did not run.
    PlanIfRan([S; 3]),
    /// This plan if the last user message carries the reminder; otherwise the answer at once,
    /// leaving the plan as it was (the drift story: a model that forgets its plan).
    PlanIfReminded([S; 3]),
    /// The answer: what the run printed, against expected.txt when that was read.
    Report,
    /// The answer that everything is done, with nothing to show for it.
    AllDone,
}

use S::{C, I, P};

const STANDARD: [Move; 8] = [
    Move::Plan([I, P, P]),
    Move::Read("main.py"),
    Move::Plan([C, I, P]),
    Move::Read("expected.txt"),
    Move::Plan([C, C, P]),
    Move::Run,
    Move::PlanIfRan([C, C, C]),
    Move::Report,
];
const SKIP: [Move; 5] =
    [Move::Plan([I, P, P]), Move::Read("main.py"), Move::Plan([C, P, P]), Move::Run, Move::Report];
const CLAIM: [Move; 3] = [Move::Plan([I, P, P]), Move::Plan([C, C, C]), Move::AllDone];
const REJECTED: [Move; 9] = [
    Move::Plan([I, P, P]),
    Move::Read("main.py"),
    Move::Plan([I, I, P]),
    Move::Plan([C, I, P]),
    Move::Read("expected.txt"),
    Move::Plan([C, C, P]),
    Move::Run,
    Move::PlanIfRan([C, C, C]),
    Move::Report,
];
const DRIFT: [Move; 6] = [
    Move::Plan([I, P, P]),
    Move::Read("main.py"),
    Move::Read("expected.txt"),
    Move::Run,
    Move::PlanIfReminded([C, C, C]),
    Move::Report,
];

/// The three items of every scripted plan, zh / en.
const ITEMS: [(&str, &str); 3] = [
    ("读取源码", "Read the source"),
    ("读取预期", "Read the expected output"),
    ("运行并核对", "Run and check"),
];

/// The tool call whose successful result is the evidence for one of the stand-in's items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// `read_file` of this path.
    Read(&'static str),
    /// `run_main`.
    Run,
}

/// What backs each item of the stand-in's plan, by item id: item 1 is reading main.py, item 2
/// reading expected.txt, item 3 the run.
pub const EVIDENCE: [(&str, Needs); 3] =
    [("1", Needs::Read("main.py")), ("2", Needs::Read("expected.txt")), ("3", Needs::Run)];

/// The model stand-in.
pub struct StandIn {
    pub script: Script,
    pub lang: Lang,
    /// The model calls made so far.
    pub calls: usize,
    /// Every request received, in order, if made by [`StandIn::keeping_requests`]. (A traced run
    /// has them in its trace; copying each one again took the loop figure's trace a tenth of its time.)
    pub requests: Vec<Request>,
    keep: bool,
}

impl StandIn {
    pub fn new(script: Script, lang: Lang) -> StandIn {
        StandIn { script, lang, calls: 0, requests: Vec::new(), keep: false }
    }

    /// A stand-in that keeps a copy of every request it receives, for the tests to read.
    pub fn keeping_requests(script: Script, lang: Lang) -> StandIn {
        StandIn { keep: true, ..StandIn::new(script, lang) }
    }

    fn plan(&self, statuses: [S; 3], call: usize) -> Vec<Block> {
        let items: Vec<Value> = ITEMS
            .iter()
            .zip(statuses)
            .enumerate()
            .map(|(index, (&(zh, en), status))| {
                let status = match status {
                    S::P => "pending",
                    S::I => "in_progress",
                    S::C => "completed",
                };
                let id = (index + 1).to_string();
                json!({"id": id, "content": self.lang.pick(zh, en), "status": status})
            })
            .collect();
        vec![tool_use(call, "todo_write", json!({"items": items}))]
    }

    fn text(&self, zh: String, en: String) -> Vec<Block> {
        let text = match self.lang {
            Lang::Zh => zh,
            Lang::En => en,
        };
        vec![Block::Text { text }]
    }

    /// The answer when the run did not succeed: the host's first line, and item 3 left pending.
    fn not_run(&self, result: &str) -> Vec<Block> {
        let why = result.lines().next().unwrap_or("").trim_end_matches(['。', '.']);
        self.text(
            format!("main.py 没有成功运行（宿主：{why}）。第 1、2 项已完成，第 3 项“运行并核对”仍是待办。"),
            format!("main.py has not run successfully (the host said: {why}). Items 1 and 2 are done; item 3, Run and check, stays pending."),
        )
    }

    fn report(&self, messages: &[Message]) -> Vec<Block> {
        let result = match latest_result(messages, "run_main", None) {
            Some((result, true)) => result,
            Some((result, false)) => return self.not_run(&result),
            None => return self.not_run(""),
        };
        // What follows the header line. A plain search: `split_once` with a string pattern would bring
        // core's two-way string searcher (about 3 KB of wasm) for this one short text.
        let header = format!("{}\n", output_header(self.lang));
        let at = result.as_bytes().windows(header.len()).position(|w| w == header.as_bytes());
        let output = at.and_then(|at| result.get(at + header.len()..)).unwrap_or("").trim();
        let expected = latest_result(messages, "read_file", Some("expected.txt"));
        match expected {
            Some((expected, true)) if expected.trim() == output => self.text(
                format!("main.py 已运行，输出 {output}，与 expected.txt 的 {output} 一致。"),
                format!("main.py ran and printed {output}, which matches expected.txt ({output})."),
            ),
            Some((expected, true)) => {
                let expected = expected.trim();
                self.text(
                    format!("main.py 已运行，输出 {output}，但 expected.txt 是 {expected}，两者不一致。"),
                    format!("main.py ran and printed {output}, but expected.txt says {expected}: they differ."),
                )
            }
            _ => self.text(format!("输出是 {output}。"), format!("The output is {output}.")),
        }
    }
}

fn tool_use(call: usize, name: &str, input: Value) -> Block {
    Block::ToolUse { id: format!("call_{call}"), name: name.to_string(), input }
}

/// The newest result of a call to `tool` (with this `path`, for `read_file`): its text, and
/// whether it succeeded.
fn latest_result(messages: &[Message], tool: &str, path: Option<&str>) -> Option<(String, bool)> {
    let blocks = messages.iter().rev().filter_map(|message| match &message.content {
        Content::Blocks(blocks) => Some(blocks),
        Content::Text(_) => None,
    });
    let all: Vec<&Block> = blocks.flat_map(|blocks| blocks.iter().rev()).collect();
    all.iter().find_map(|block| {
        let Block::ToolResult { tool_use_id, content, is_error } = block else { return None };
        let asked = all.iter().any(|other| {
            matches!(other, Block::ToolUse { id, name, input }
                if id == tool_use_id && name == tool
                    && path.is_none_or(|path| input["path"].as_str() == Some(path)))
        });
        asked.then(|| (content.clone(), !is_error))
    })
}

/// Whether the last message (the round's results) carries the reminder's text block.
fn reminded(messages: &[Message]) -> bool {
    let last = messages.last().map(|message| &message.content);
    matches!(last, Some(Content::Blocks(blocks))
        if blocks.iter().any(|block| matches!(block, Block::Text { text } if text == REMINDER)))
}

impl Model for StandIn {
    fn reply(&mut self, request: &Request) -> Result<Vec<Block>, ModelError> {
        Ok(self.play(request))
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Owned(format!("stand-in model ({})", self.script.name()))
    }
}

impl StandIn {
    /// The script's next reply: a stand-in always has one.
    fn play(&mut self, request: &Request) -> Vec<Block> {
        recorder::request(request);
        if self.keep {
            self.requests.push(request.clone());
        }
        self.calls += 1;
        let call = self.calls;
        let moves = self.script.moves();
        // Past its script (only if a host kept calling after the answer), it answers again.
        let Some(&next) = moves.get(call - 1).or(moves.last()) else { return Vec::new() };
        let ran = latest_result(&request.messages, "run_main", None);
        match next {
            Move::Plan(statuses) => self.plan(statuses, call),
            Move::Read(path) => vec![tool_use(call, "read_file", json!({"path": path}))],
            Move::Run => vec![tool_use(call, "run_main", json!({}))],
            Move::PlanIfRan(statuses) => match ran {
                Some((_, true)) => self.plan(statuses, call),
                Some((result, false)) => self.not_run(&result),
                None => self.not_run(""),
            },
            Move::PlanIfReminded(statuses) => match reminded(&request.messages) {
                true => self.plan(statuses, call),
                false => self.report(&request.messages),
            },
            Move::Report => self.report(&request.messages),
            Move::AllDone => self.text(
                "全部完成：计划里的每一项都已完成。".to_string(),
                "All done: every item of the plan is completed.".to_string(),
            ),
        }
    }
}
