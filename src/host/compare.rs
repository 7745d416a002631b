//! Two loop traces side by side: each run summed up per model call, and where the two runs first part (issue 29, "What if").
//!
//! A loop trace records every line; a comparison reads it by model call, the unit both runs share
//! whatever their control flow: the request sent, the reply, each tool call with the host's
//! decisions and its result, the reminder, the plan and the warnings after the round, and the end.
//! Lines are not compared: with the reminder on the loop takes other lines in every round, yet the
//! runs only part where the reminder is appended. Everything here is read from the traces as they
//! were recorded; nothing is run again.

use serde::Serialize;
use tsify::Tsify;

use crate::host::claims::PlanClaim;
use crate::host::run::Trace;
use crate::host::runs::Divergence;
use crate::lesson::agent_types::{Decision, Stop, Warning};
use crate::lesson::{Block, Content, Message, Todo};
use crate::recorder::{ErrorInfo, Event, Json, Recording};
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// A trace's outcome read back (the lesson's `Outcome` is only ever written).
#[derive(Deserialize)]
struct Outcome {
    stop: Stop,
    calls: usize,
    plan: Vec<Todo>,
    history: Vec<Message>,
    warnings: Vec<Warning>,
    answer: String,
}

/// Both runs, call by call, and where they first part.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The run as it was (`sides[0]`), and the run with the change (`sides[1]`).
    pub sides: Vec<Side>,
    /// Absent when the two runs are the same throughout.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub first: Option<FirstDifference>,
}

/// One run, call by call.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct Side {
    pub calls: Vec<CallSummary>,
    pub end: RunEnd,
}

/// One model call and the round of tool calls it asked for.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct CallSummary {
    /// 1-based.
    pub call: u32,
    /// The step recorded just after the call was made (an index into the trace's steps).
    pub step: u32,
    /// The prepared messages the model was sent.
    pub request: Vec<Message>,
    /// The reply; absent when the call got none (a replay that left its recording).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub reply: Option<Vec<Block>>,
    pub tools: Vec<ToolRun>,
    /// The step carrying the reminder, when the host appended it after this round's results.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub reminder: Option<u32>,
    /// The host's plan after the round.
    pub plan: Vec<Todo>,
    /// The warnings the host kept in this round.
    pub warnings: Vec<Warning>,
    /// What differs from the other run's call of the same number; `missing` when it made no such call.
    pub differs: Vec<Aspect>,
}

/// One tool call of a round, as the host executed it.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct ToolRun {
    pub id: String,
    pub name: String,
    #[tsify(type = "unknown")]
    pub input: serde_json::Value,
    /// The step where `execute_with_plan` began with it; absent when it never began.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub step: Option<u32>,
    pub decisions: Vec<Decided>,
    /// The `tool_result` content and whether it was an error; absent when the round's results were never stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub result: Option<String>,
    pub is_error: bool,
}

/// A host decision and the step that carries it.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct Decided {
    #[tsify(type = "HostEvent")]
    pub event: &'static str,
    pub step: u32,
}

/// How a run ended.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct RunEnd {
    /// Absent when the loop failed (a replay that left its recording).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub stop: Option<Stop>,
    pub calls: usize,
    pub answer: String,
    pub plan: Vec<Todo>,
    /// The step carrying the stop (`answered`, `call-limit`), or the last step.
    pub step: u32,
    /// Why the loop failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub error: Option<ErrorInfo>,
    /// Where a replay left its recording.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub diverged: Option<Divergence>,
    /// The loop stopped because a model call needed a reply the recording does not hold: the
    /// recorded model never saw this request, and none is invented.
    pub unseen: bool,
    pub claims: Vec<PlanClaim>,
    /// What differs from the other run's end.
    pub differs: Vec<Aspect>,
}

/// A part of a call or an end that can differ between the two runs.
#[derive(Serialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Aspect {
    Missing,
    Request,
    Reply,
    Decisions,
    Results,
    Reminder,
    Plan,
    Warnings,
    Stop,
    Answer,
    Claims,
}

/// Where the two runs first part.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct FirstDifference {
    /// The model call whose round they part in (one past the last call for a run that stopped
    /// where the other went on).
    pub call: u32,
    /// What parts them: `request`, `reply`, a host decision (`ask`, `refused`, `plan-written`,
    /// `plan-refused`, `reminder`, `call-limit`, `answered`), `result`, `plan`, `warnings`,
    /// `diverged` (a replay that left its recording), `end`.
    pub kind: &'static str,
    /// Each run at that point (base, changed).
    pub at: Vec<Mark>,
}

/// One run at the first difference.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct Mark {
    /// The step to show (an index into that run's steps).
    pub step: u32,
    /// The host decision there, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "HostEvent")]
    pub event: Option<&'static str>,
    /// For `ask`: the user's answer in this run.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub answer: Option<Decision>,
}

/// Compares two loop traces: `base` as it ran, `changed` with the change.
pub fn compare(base: &Trace, changed: &Trace) -> Comparison {
    let mut sides = vec![summarize(base), summarize(changed)];
    mark_differences(&mut sides);
    let first = first_difference(&sides[0], &sides[1]);
    Comparison { sides, first }
}

/// A JSON value the recorder stored, read back into its type.
fn read<T: DeserializeOwned>(json: &Json) -> Option<T> {
    serde_json::from_str(json.get()).ok()
}

/// A host field's entries at a step.
fn host<T: DeserializeOwned>(recording: &Recording, step: Option<u32>, field: &str) -> Vec<T> {
    let Some(step) = step.and_then(|i| recording.steps.get(i as usize)) else { return Vec::new() };
    recording.host_entries(step, field).iter().filter_map(read).collect()
}

fn blocks(message: &Message) -> &[Block] {
    match &message.content {
        Content::Blocks(blocks) => blocks,
        Content::Text(_) => &[],
    }
}

/// The steps where a replay's model call failed, and the symbols that belong to the loop itself
/// rather than to one tool call.
const LOOP_SYMBOLS: [&str; 2] = ["run_loop", "run_agent"];
const ENDS: [&str; 2] = ["answered", "call-limit"];

/// One run, call by call.
pub fn summarize(trace: &Trace) -> Side {
    let recording = &trace.recording;
    let last = recording.steps.len().checked_sub(1).map(|i| i as u32);
    let outcome: Option<Outcome> =
        trace.result.ok.then(|| trace.result_value().as_ref().and_then(read)).flatten();
    // The whole stored history: the outcome's, or the host's at the last step when the loop failed.
    let history: Vec<Message> = match &outcome {
        Some(outcome) => outcome.history.clone(),
        None => host(recording, last, "messages"),
    };
    let warnings: Vec<Warning> = outcome.as_ref().map_or_else(Vec::new, |o| o.warnings.clone());
    let requests = &recording.requests;
    let mut calls = Vec::with_capacity(requests.len());
    for (index, request) in requests.iter().enumerate() {
        let from = request.step;
        let to = requests.get(index + 1).map_or(recording.steps.len() as u32, |next| next.step);
        // The question, then per call its reply and its round's results.
        let reply = history.get(1 + 2 * index).map(|m| blocks(m).to_vec());
        let results = history.get(2 + 2 * index).map(blocks).unwrap_or(&[]);
        let mut tools: Vec<ToolRun> = reply
            .iter()
            .flatten()
            .filter_map(|block| match block {
                Block::ToolUse { id, name, input } => {
                    let result = results.iter().find_map(|r| match r {
                        Block::ToolResult { tool_use_id, content, is_error }
                            if tool_use_id == id =>
                        {
                            Some((content.clone(), *is_error))
                        }
                        _ => None,
                    });
                    Some(ToolRun {
                        id: id.clone(),
                        name: name.clone(),
                        input: input.clone(),
                        step: None,
                        decisions: Vec::new(),
                        is_error: result.as_ref().is_some_and(|r| r.1),
                        result: result.map(|r| r.0),
                    })
                }
                _ => None,
            })
            .collect();
        let mut reminder = None;
        let mut tool: Option<usize> = None;
        for i in from..to {
            let step = &recording.steps[i as usize];
            if step.symbol == "execute_with_plan" && step.event == Event::Call {
                let next = tool.map_or(0, |t| t + 1);
                tool = Some(next);
                if let Some(run) = tools.get_mut(next) {
                    run.step = Some(i);
                }
            }
            for &event in &step.decisions {
                if ENDS.contains(&event) {
                    continue;
                }
                if event == "reminder" {
                    reminder = Some(i);
                } else if !LOOP_SYMBOLS.contains(&step.symbol) {
                    if let Some(run) = tool.and_then(|t| tools.get_mut(t)) {
                        run.decisions.push(Decided { event, step: i });
                    }
                }
            }
        }
        let plan =
            host(recording, if index + 1 < requests.len() { Some(to) } else { last }, "items");
        let ids: Vec<&str> = tools.iter().map(|t| t.id.as_str()).collect();
        let kept =
            warnings.iter().filter(|w| ids.contains(&w.tool_use_id.as_str())).cloned().collect();
        calls.push(CallSummary {
            call: index as u32 + 1,
            step: from,
            request: request.messages.iter().filter_map(|&v| read(&recording.value(v))).collect(),
            reply,
            tools,
            reminder,
            plan,
            warnings: kept,
            differs: Vec::new(),
        });
    }
    let end_step = recording
        .steps
        .iter()
        .rposition(|s| s.decisions.iter().any(|e| ENDS.contains(e)))
        .map(|i| i as u32)
        .or(last)
        .unwrap_or(0);
    let error = trace.result.error.clone();
    let diverged = trace.replay.as_ref().and_then(|r| r.diverged.clone());
    let end = RunEnd {
        stop: outcome.as_ref().map(|o| o.stop),
        calls: outcome
            .as_ref()
            .map_or(calls.iter().filter(|c| c.reply.is_some()).count(), |o| o.calls),
        answer: outcome.as_ref().map_or_else(String::new, |o| o.answer.clone()),
        plan: outcome.as_ref().map_or_else(|| host(recording, last, "items"), |o| o.plan.clone()),
        step: end_step,
        unseen: error.as_ref().is_some_and(|e| e.code == "diverged"),
        error,
        diverged,
        claims: trace.claims.clone().unwrap_or_default(),
        differs: Vec::new(),
    };
    Side { calls, end }
}

/// Marks, on both sides, what each call and the end has that the other's has not.
fn mark_differences(sides: &mut [Side]) {
    let [a, b] = sides else { return };
    let longest = a.calls.len().max(b.calls.len());
    for i in 0..longest {
        let differs = match (a.calls.get(i), b.calls.get(i)) {
            (Some(x), Some(y)) => call_differences(x, y),
            _ => vec![Aspect::Missing],
        };
        for side in [&mut *a, &mut *b] {
            if let Some(call) = side.calls.get_mut(i) {
                call.differs.clone_from(&differs);
            }
        }
    }
    let (x, y) = (&a.end, &b.end);
    let mut differs = Vec::new();
    if x.stop != y.stop || x.error.as_ref().map(|e| e.code) != y.error.as_ref().map(|e| e.code) {
        differs.push(Aspect::Stop);
    }
    if x.answer != y.answer {
        differs.push(Aspect::Answer);
    }
    if x.plan != y.plan {
        differs.push(Aspect::Plan);
    }
    if x.claims != y.claims {
        differs.push(Aspect::Claims);
    }
    a.end.differs.clone_from(&differs);
    b.end.differs = differs;
}

fn call_differences(x: &CallSummary, y: &CallSummary) -> Vec<Aspect> {
    let decisions = |c: &CallSummary| -> Vec<Vec<&str>> {
        c.tools.iter().map(|t| t.decisions.iter().map(|d| d.event).collect()).collect()
    };
    let results = |c: &CallSummary| -> Vec<(Option<String>, bool)> {
        c.tools.iter().map(|t| (t.result.clone(), t.is_error)).collect()
    };
    let checks = [
        (Aspect::Request, x.request != y.request),
        (Aspect::Reply, x.reply != y.reply),
        (Aspect::Decisions, decisions(x) != decisions(y)),
        (Aspect::Results, results(x) != results(y)),
        (Aspect::Reminder, x.reminder.is_some() != y.reminder.is_some()),
        (Aspect::Plan, x.plan != y.plan),
        (Aspect::Warnings, x.warnings != y.warnings),
    ];
    checks.into_iter().filter(|&(_, differs)| differs).map(|(aspect, _)| aspect).collect()
}

/// The user's answer at an `ask`: declined when the same tool call was then refused.
fn answer_after(tool: &ToolRun, at: usize) -> Decision {
    let refused = tool.decisions[at + 1..].iter().any(|d| d.event == "refused");
    if refused {
        Decision::Deny
    } else {
        Decision::Allow
    }
}

fn mark(step: u32, event: Option<&'static str>) -> Mark {
    Mark { step, event, answer: None }
}

/// The first point, in the order the host met them, where the two runs part: in the first call
/// whose round differs, its request, its reply, each tool call's decisions and result in turn,
/// the reminder, the plan, the warnings; then a call one run made and the other did not; then the
/// end.
pub fn first_difference(a: &Side, b: &Side) -> Option<FirstDifference> {
    let pair =
        |kind, call: u32, x: Mark, y: Mark| Some(FirstDifference { call, kind, at: vec![x, y] });
    for (x, y) in a.calls.iter().zip(&b.calls) {
        let call = x.call;
        let at = |kind| pair(kind, call, mark(x.step, None), mark(y.step, None));
        if x.request != y.request {
            return at("request");
        }
        if x.reply != y.reply {
            // A replay whose call got no reply left its recording here.
            let kind = if x.reply.is_none() || y.reply.is_none() { "diverged" } else { "reply" };
            return at(kind);
        }
        for (s, t) in x.tools.iter().zip(&y.tools) {
            let start = |run: &ToolRun, fallback| run.step.unwrap_or(fallback);
            let (xs, ys) = (start(s, x.step), start(t, y.step));
            let shared = s
                .decisions
                .iter()
                .zip(&t.decisions)
                .take_while(|(d, e)| d.event == e.event)
                .count();
            // The runs part at an `ask` when they were asked alike and answered otherwise.
            let asked = s.decisions.iter().position(|d| d.event == "ask");
            if let (Some(i), Some(j)) = (asked, t.decisions.iter().position(|d| d.event == "ask")) {
                if i == j && i < shared && answer_after(s, i) != answer_after(t, j) {
                    let side = |run: &ToolRun, k: usize| Mark {
                        step: run.decisions[k].step,
                        event: Some("ask"),
                        answer: Some(answer_after(run, k)),
                    };
                    return pair("ask", call, side(s, i), side(t, j));
                }
            }
            if shared < s.decisions.len().max(t.decisions.len()) {
                let side = |run: &ToolRun, fallback| match run.decisions.get(shared) {
                    Some(d) => mark(d.step, Some(d.event)),
                    None => mark(fallback, None),
                };
                // Named by what the changed run did there, when it did something.
                let kind = t
                    .decisions
                    .get(shared)
                    .or(s.decisions.get(shared))
                    .map_or("result", |d| d.event);
                return pair(kind, call, side(s, xs), side(t, ys));
            }
            if (&s.result, s.is_error) != (&t.result, t.is_error) {
                return pair("result", call, mark(xs, None), mark(ys, None));
            }
        }
        if x.reminder.is_some() != y.reminder.is_some() {
            let side = |c: &CallSummary, own: &Side| {
                let next = next_step(c, own);
                mark(c.reminder.unwrap_or(next), c.reminder.map(|_| "reminder"))
            };
            return pair("reminder", call, side(x, a), side(y, b));
        }
        if x.plan != y.plan {
            return at("plan");
        }
        if x.warnings != y.warnings {
            return at("warnings");
        }
    }
    // One run made a call the other did not: the other stopped (at its budget, with an answer,
    // or where its replay left the recording).
    let common = a.calls.len().min(b.calls.len());
    if a.calls.len() != b.calls.len() {
        let call = common as u32 + 1;
        let side = |s: &Side| match s.calls.get(common) {
            Some(c) => mark(c.step, None),
            None => mark(s.end.step, end_event(&s.end)),
        };
        let stopped = if a.calls.len() < b.calls.len() { &a.end } else { &b.end };
        let kind = end_event(stopped).unwrap_or("diverged");
        return pair(kind, call, side(a), side(b));
    }
    let same_end =
        a.end.stop == b.end.stop && a.end.answer == b.end.answer && a.end.error == b.end.error;
    if !same_end {
        let call = common as u32;
        return pair(
            "end",
            call,
            mark(a.end.step, end_event(&a.end)),
            mark(b.end.step, end_event(&b.end)),
        );
    }
    None
}

/// The step a side goes on from after a call's round: the next call's, or its end's.
fn next_step(call: &CallSummary, side: &Side) -> u32 {
    side.calls.get(call.call as usize).map_or(side.end.step, |next| next.step)
}

/// The host's decision that ended a run, as a trace names it.
fn end_event(end: &RunEnd) -> Option<&'static str> {
    match end.stop {
        Some(Stop::Answered) => Some("answered"),
        Some(Stop::CallLimit) => Some("call-limit"),
        None => None,
    }
}
