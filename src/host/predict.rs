//! "Predict, then reveal": the questions a figure asks before it shows a host decision or a function's result, derived from its trace.
//!
//! Nothing here is written per scenario. Each question is read off the recorded steps (where a
//! tool call is handled, which decisions the host made inside it, what the function returned),
//! so the same code asks about a built-in scenario, the reader's own input and a run file. A
//! question is asked before `step`: the page pauses on the step before it, where the reader can
//! see what the host is about to judge (the tool call in `run_loop`'s locals, the function's
//! arguments) but not yet what it decided. The words are in `predict_words.rs`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::OnceLock;
use tsify::Tsify;

use crate::host::figures::{FigureId, LOOP_BUILT};
use crate::host::predict_words::{self as words, Answer};
use crate::host::run::Trace;
use crate::host::source::lines_with;
use crate::lesson::agent_types::HostEvent;
use crate::lesson::{Lang, Todo};
use crate::recorder::{Event, Json, Recording, Step};

/// One question: asked before the page shows step `step`, answered by `choices[answer]`.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct Question {
    /// The index of the first step that could give the answer away: the page pauses on the step
    /// before it (or before the first step, when it is 0) until the reader has answered.
    pub step: u32,
    /// What is asked about: `result` (figures 1–3), `plan`, `run`, `read`, `tool`, `reminder` or
    /// `stop` (the loop).
    pub kind: &'static str,
    pub prompt: String,
    /// Two to four, each a different answer.
    pub choices: Vec<Choice>,
    /// The index in `choices` of the one right answer: what the trace then shows.
    pub answer: u32,
    /// One sentence of why, in the lesson's words.
    pub why: String,
}

/// An answer the reader can choose. `key` is stable across languages (`ok`, `accepted`, an error
/// code, `runs`, `items:2,3`, ...); `label` is in the trace's language.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub key: String,
    pub label: String,
}

/// The questions of a trace, in step order; none for a trace that did not run.
pub fn questions(trace: &Trace, lang: Lang) -> Vec<Question> {
    let steps = &trace.recording.steps;
    if !trace.ran || steps.is_empty() || steps.last().is_some_and(|s| s.event == Event::Truncated) {
        return Vec::new();
    }
    let mut found = match trace.figure {
        FigureId::Loop if LOOP_BUILT => loop_questions(trace, lang),
        FigureId::Loop => Vec::new(),
        figure => result_question(trace, figure, lang).into_iter().collect(),
    };
    found.sort_by_key(|q| q.step);
    found
}

/// Figures 1–3: "Ok, or which error?", asked on the function's first step, where its locals show
/// the arguments and nothing has been checked yet.
fn result_question(trace: &Trace, figure: FigureId, lang: Lang) -> Option<Question> {
    let steps = &trace.recording.steps;
    let step = if steps.len() >= 2 { 1 } else { 0 };
    let right = match &trace.result.error {
        None => Answer::Ok(figure),
        Some(error) => Answer::Code(error.code),
    };
    let mut choices = vec![Answer::Ok(figure), right.clone()];
    match figure {
        // prepare_messages fails only without a user text first; the other wrong answer is the
        // mistake the lesson warns about: that the stored history is edited too.
        FigureId::Prepare => choices.extend([Answer::EditsHistory, Answer::Code("no_user_text")]),
        _ => choices.extend(plausible_codes(trace.data.items.as_ref().unwrap_or(&Value::Null))),
    }
    let why = match &trace.result.error {
        None => words::ok_why(figure, lang),
        Some(error) => words::error_why(figure, &error.message, lang),
    };
    Some(ask(step, "result", words::result_prompt(figure, lang), choices, right, why, lang))
}

/// Builds a question from its answers: the right one first among the candidates, duplicates
/// dropped, at most four, then put in a fixed order (so the right answer's place says nothing).
fn ask(
    step: u32,
    kind: &'static str,
    prompt: String,
    candidates: Vec<Answer>,
    right: Answer,
    why: String,
    lang: Lang,
) -> Question {
    let mut picked: Vec<Answer> = vec![right.clone()];
    for candidate in candidates {
        if picked.len() == 4 {
            break;
        }
        if !picked.contains(&candidate) {
            picked.push(candidate);
        }
    }
    // Each key once (it is a `String`): `sort_by_key` made two for every comparison.
    picked.sort_by_cached_key(Answer::order);
    let answer = picked.iter().position(|a| *a == right).unwrap_or(0) as u32;
    let choices =
        picked.iter().map(|a| Choice { key: a.key(), label: words::label(a, lang) }).collect();
    Question { step, kind, prompt, choices, answer, why }
}

/// The error codes a reader might expect for these submitted items, most tempting first: a
/// second item in progress, a repeated id, a status spelled wrong; for a list with nothing to
/// get wrong, that it is not a list at all.
fn plausible_codes(items: &Value) -> Vec<Answer> {
    let Some(list) = items.as_array() else {
        return vec![Answer::Code("bad_shape"), Answer::Code("too_many_items")];
    };
    let active = list.iter().filter(|item| item["status"] == "in_progress").count();
    let mut codes = Vec::new();
    if active >= 1 {
        codes.push(Answer::Code("too_many_active"));
    }
    if list.len() >= 2 {
        codes.push(Answer::Code("duplicate_id"));
    }
    if !list.is_empty() {
        codes.push(Answer::Code("unknown_status"));
    }
    codes.extend([Answer::Code("not_a_list"), Answer::Code("too_many_items")]);
    codes
}

fn json(raw: &Json) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// A local of a step's call, as JSON (`null` if it has none by that name, or it was moved away).
/// Only that one is made whole: `run_loop`'s others hold the whole history.
fn local(trace: &Trace, step: &Step, name: &str) -> Value {
    let recording = &trace.recording;
    let scope = &recording.scopes[step.scope as usize];
    let at = scope.iter().position(|&b| recording.bindings[b as usize].name == name);
    let value = at.and_then(|i| step.values.get(i).copied().flatten());
    value.map_or(Value::Null, |v| json(&recording.value(v)))
}

/// The loop: one question per tool call the host handles, per round that could earn the
/// reminder, and one about how the run ends.
fn loop_questions(trace: &Trace, lang: Lang) -> Vec<Question> {
    let steps = &trace.recording.steps;
    let mut found = Vec::new();
    for (at, step) in steps.iter().enumerate() {
        if step.symbol == "execute_with_plan" && step.event == Event::Call {
            found.extend(tool_question(trace, at, lang));
        }
    }
    let reminder_checks = &loop_lines().checks;
    for (at, step) in steps.iter().enumerate() {
        if step.symbol == "run_loop"
            && step.event == Event::Line
            && reminder_checks.contains(&step.line)
            && at + 1 < steps.len()
        {
            found.extend(reminder_question(trace, at, lang));
        }
    }
    found.extend(stop_question(trace, lang));
    found
}

/// The lines of `run_loop` the loop's questions look for, found in its listing once: at every round
/// of every trace, looking them up again was 2% of a built-in loop trace natively.
struct LoopLines {
    /// The reminder check, where a reminder question is asked.
    checks: Vec<u32>,
    /// Where a round's results are stored: the reminder is decided before it.
    stores: Vec<u32>,
    /// The checks of the two stops, where the stop question looks for the last one run.
    stops: Vec<u32>,
}

fn loop_lines() -> &'static LoopLines {
    static LINES: OnceLock<LoopLines> = OnceLock::new();
    LINES.get_or_init(|| LoopLines {
        checks: lines_with("run_loop", "if rounds_without_plan == 3"),
        stores: lines_with("run_loop", "history.push(Message::results(results))"),
        stops: [
            lines_with("run_loop", "if calls >= max_calls"),
            lines_with("run_loop", "if requested.is_empty()"),
        ]
        .concat(),
    })
}

/// The decisions the host made from step `from` to step `to`, both included.
fn decisions(steps: &[Step], from: usize, to: usize) -> Vec<&'static str> {
    steps[from..=to].iter().flat_map(|s| s.decisions.iter().copied()).collect()
}

/// The question about one tool call, asked before `execute_with_plan` is entered for it (the
/// page pauses on `run_loop`'s line of the call, the call in its locals).
fn tool_question(trace: &Trace, call_at: usize, lang: Lang) -> Option<Question> {
    let steps = &trace.recording.steps;
    let caller = steps[call_at].caller;
    // The call's last step: its return to the same line of run_loop.
    let end = (call_at + 1..steps.len()).find(|&i| {
        steps[i].symbol == "execute_with_plan"
            && matches!(steps[i].event, Event::Return | Event::Error)
            && steps[i].caller == caller
    })?;
    let call = local(trace, &steps[call_at], "call");
    let name = call["name"].as_str().unwrap_or("");
    let events = decisions(steps, call_at, end);
    let has = |event: HostEvent| events.contains(&event.name());
    // The call's result: `(block, warning)`, read without its content (the message, up to a whole
    // file's text) unless a why quotes it.
    let returned = steps[end].value;
    let Handled(Flag { is_error }, warning) =
        returned.map(|v| handled(&trace.recording, v)).unwrap_or_default();
    let warning = warning["code"].as_str().unwrap_or("");
    let message = || {
        let returned = returned.map(|v| json(&trace.recording.value(v))).unwrap_or_default();
        returned[0]["content"].as_str().unwrap_or("").to_string()
    };
    let step = call_at as u32;
    Some(match name {
        "todo_write" => {
            let right = if has(HostEvent::PlanWritten) {
                Answer::Accepted
            } else {
                // The code comes from write_todos's own error step, inside this call.
                let code = steps[call_at..=end]
                    .iter()
                    .find(|s| s.symbol == "write_todos" && s.event == Event::Error)
                    .and_then(|s| s.error.as_ref())
                    .map_or("plan_refused", |e| e.code);
                Answer::Code(code)
            };
            let why = match right {
                Answer::Accepted => words::accepted_why(lang),
                _ => words::refused_why(&message(), lang),
            };
            let mut candidates = vec![Answer::Accepted];
            candidates.extend(plausible_codes(&call["input"]["items"]));
            ask(step, "plan", words::plan_prompt(lang), candidates, right, why, lang)
        }
        "run_main" => {
            let right = match (has(HostEvent::Ask), has(HostEvent::Refused)) {
                (true, false) => Answer::Runs,
                (true, true) => Answer::Declined,
                (false, _) => Answer::Blocked,
            };
            let why = words::run_why(&right, lang);
            let candidates = vec![Answer::Runs, Answer::Declined, Answer::Blocked];
            ask(step, "run", words::run_prompt(lang), candidates, right, why, lang)
        }
        "read_file" => {
            let path = call["input"]["path"].as_str().unwrap_or("").to_string();
            let right = match (warning, is_error) {
                ("path_refused", _) => Answer::Outside,
                (_, true) => Answer::ReadFails,
                _ => Answer::Reads,
            };
            // A read that succeeds is explained without its text.
            let why = match right {
                Answer::Reads => words::read_why(&right, "", lang),
                _ => words::read_why(&right, &message(), lang),
            };
            let candidates = vec![Answer::Reads, Answer::Outside, Answer::ReadFails];
            ask(step, "read", words::read_prompt(&path, lang), candidates, right, why, lang)
        }
        other => {
            let right = if has(HostEvent::Refused) { Answer::NoSuchTool } else { Answer::ToolRuns };
            let candidates = vec![Answer::ToolRuns, Answer::NoSuchTool];
            let why = words::tool_why(&right, lang);
            ask(step, "tool", words::tool_prompt(other, lang), candidates, right, why, lang)
        }
    })
}

/// A tool call's result as [`tool_question`] reads it: whether the block is an error, and the
/// warning's code. serde_json skips the fields left out without copying them.
#[derive(Deserialize, Default)]
struct Handled(Flag, Value);

#[derive(Deserialize, Default)]
struct Flag {
    #[serde(default)]
    is_error: bool,
}

/// The tool call's result at value `tuple`. Where the tuple is stored by its parts (its block is at
/// least a few hundred bytes), only the warning and the block's `is_error` are read: putting the
/// tuple together and reading it as JSON went twice through its text, up to a whole file, at every
/// call.
fn handled(recording: &Recording, tuple: u32) -> Handled {
    let (Some(block), Some(warning)) = (recording.element(tuple, 0), recording.element(tuple, 1))
    else {
        return serde_json::from_str(recording.value(tuple).get()).unwrap_or_default();
    };
    let is_error = recording.field(block, "is_error").is_some_and(|flag| flag.get() == "true");
    Handled(Flag { is_error }, json(&recording.value(warning)))
}

/// At the reminder check of a round without a plan update (the counter above 0): will the host
/// add the reminder? Rounds with an update reset the counter, so nothing is asked there.
fn reminder_question(trace: &Trace, check_at: usize, lang: Lang) -> Option<Question> {
    let steps = &trace.recording.steps;
    let rounds = local(trace, &steps[check_at], "rounds_without_plan").as_u64()?;
    if rounds == 0 {
        return None;
    }
    // The round ends where run_loop stores its results: the reminder, if any, is decided before.
    let stores = &loop_lines().stores;
    let end = (check_at + 1..steps.len())
        .find(|&i| steps[i].symbol == "run_loop" && stores.contains(&steps[i].line))
        .unwrap_or(steps.len() - 1);
    let added = decisions(steps, check_at + 1, end).contains(&HostEvent::Reminder.name());
    let right = if added { Answer::Yes } else { Answer::No };
    let why = words::reminder_why(added, rounds, lang);
    let prompt = words::reminder_prompt(rounds, lang);
    Some(ask(
        check_at as u32 + 1,
        "reminder",
        prompt,
        vec![Answer::Yes, Answer::No],
        right,
        why,
        lang,
    ))
}

/// What the stop question reads of the loop's outcome.
#[derive(Deserialize)]
struct Ending {
    calls: u64,
    plan: Vec<Todo>,
}

/// The stop question's fields of the outcome stored at `index`, read from its parts.
fn ending(recording: &Recording, index: u32) -> Option<Ending> {
    let field = |name| recording.field(index, name);
    let calls = serde_json::from_str(field("calls")?.get()).ok()?;
    Some(Ending { calls, plan: serde_json::from_str(field("plan")?.get()).ok()? })
}

/// How the run ends. On an outcome: which items the final plan leaves unfinished, asked at the
/// check that stops the loop (the budget's, or the reply without a tool call). On an error: what
/// the host does, asked before the error is returned.
fn stop_question(trace: &Trace, lang: Lang) -> Option<Question> {
    let steps = &trace.recording.steps;
    let last = steps.len() - 1;
    if steps[last].symbol != "run_loop" {
        return None;
    }
    if let Some(error) = &trace.result.error {
        let right = Answer::Code(error.code);
        let candidates = vec![Answer::GoesOn, Answer::Invents];
        let why = words::loop_error_why(&error.message, lang);
        let prompt = words::loop_error_prompt(lang);
        return Some(ask(last as u32, "stop", prompt, candidates, right, why, lang));
    }
    let limit = decisions(steps, last, last).contains(&HostEvent::CallLimit.name());
    let checks = &loop_lines().stops;
    let check = (0..last).rev().find(|&i| {
        steps[i].symbol == "run_loop"
            && steps[i].caller.is_none()
            && checks.contains(&steps[i].line)
    })?;
    // Only the two fields, from the stored outcome's parts; else read past the history (the longest
    // part) without building it.
    let outcome = match trace.result.stored.and_then(|index| ending(&trace.recording, index)) {
        Some(outcome) => outcome,
        None => serde_json::from_str(trace.result_value()?.get()).ok()?,
    };
    let item = |todo: &Todo| (todo.id.clone(), todo.content.clone());
    let all: Vec<(String, String)> = outcome.plan.iter().map(item).collect();
    let open: Vec<(String, String)> =
        outcome.plan.iter().filter(|todo| todo.status != "completed").map(item).collect();
    let prompt = words::stop_prompt(limit, outcome.calls, lang);
    let why = words::stop_why(limit, open.is_empty(), lang);
    if all.is_empty() {
        // An empty plan leaves nothing to choose among: ask why the loop stops instead.
        let right = if limit { Answer::CallLimit } else { Answer::Answered };
        let candidates = vec![Answer::Answered, Answer::CallLimit];
        let prompt = words::why_stop_prompt(lang);
        return Some(ask(check as u32 + 1, "stop", prompt, candidates, right, why, lang));
    }
    // The right set; none (what a reader might expect the host to do at the stop); all of them;
    // the right set with one more item, or one fewer.
    let right = Answer::Items(open.clone());
    let mut candidates = vec![Answer::Items(Vec::new()), Answer::Items(all.clone())];
    if let Some(extra) = all.iter().find(|item| !open.contains(item)) {
        let mut more = open.clone();
        more.push(extra.clone());
        more.sort_by_key(|item| all.iter().position(|a| a == item));
        candidates.push(Answer::Items(more));
    }
    if open.len() > 1 {
        candidates.push(Answer::Items(open[1..].to_vec()));
    }
    Some(ask(check as u32 + 1, "stop", prompt, candidates, right, why, lang))
}
