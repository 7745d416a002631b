//! Each plan item's claim beside the evidence in the history: the loop figure's last pane (at every step), and `practice`'s table.

use serde::Serialize;
use tsify::Tsify;

use crate::host::stand_in::{Needs, EVIDENCE};
use crate::lesson::agent_types::{output_header, Outcome};
use crate::lesson::types::{Block, Content, Lang, Message, Todo};
use crate::recorder::Recording;

/// One item of a plan beside the evidence in the history (LOOP.md's fourth point).
#[derive(Serialize, Tsify, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PlanClaim {
    pub id: String,
    pub content: String,
    pub status: String,
    /// The item says `completed`.
    pub completed: bool,
    /// The tool whose successful result would back it: `read_file` (of `path`) or `run_main`, whose
    /// output must also match the expected text.
    pub tool: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub path: Option<&'static str>,
    /// The result that would back it; absent when the history holds none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub evidence: Option<Evidence>,
    /// Claimed `completed` and the evidence is there. An item pending or in progress is never
    /// backed, whatever the history holds: it claims nothing yet.
    pub backed: bool,
    /// Claimed `completed` with nothing to back it: the gap a reader should see.
    pub gap: bool,
}

/// Where a backing result is: the history message holding it, and the call it answers.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    pub message: u32,
    pub tool_use_id: String,
}

/// The claims as they stood from `step` on, until the next entry: a recorded run's evidence pane at
/// every step, not only at the end.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq, Eq)]
pub struct ClaimsFrom {
    pub step: u32,
    pub claims: Vec<PlanClaim>,
}

/// Each item of the final plan against the tool results in the final history; a run of `main.py`
/// backs "Run and check" only if what it printed is `expected` (the workspace's expected.txt; with
/// none, no run backs it).
pub fn claims(outcome: &Outcome, expected: Option<&str>) -> Vec<PlanClaim> {
    claims_of(&outcome.plan, &outcome.history, expected)
}

/// Each item of `plan` against the tool results in `history`. An item outside the stand-in's three
/// has no evidence that could back it.
pub fn claims_of(plan: &[Todo], history: &[Message], expected: Option<&str>) -> Vec<PlanClaim> {
    claims_by(plan, |needs| backing(history, needs, expected))
}

/// Each item of `plan` against the evidence `backing` finds for what the item needs.
fn claims_by(plan: &[Todo], mut backing: impl FnMut(Needs) -> Option<Evidence>) -> Vec<PlanClaim> {
    plan.iter()
        .map(|item| {
            let needs = EVIDENCE.iter().find(|(id, _)| *id == item.id).map(|&(_, needs)| needs);
            let (tool, path) = match needs {
                Some(Needs::Read(path)) => ("read_file", Some(path)),
                Some(Needs::Run) | None => ("run_main", None),
            };
            let evidence = needs.and_then(&mut backing);
            let completed = item.status == "completed";
            PlanClaim {
                id: item.id.clone(),
                content: item.content.clone(),
                status: item.status.clone(),
                completed,
                tool,
                path,
                backed: completed && evidence.is_some(),
                gap: completed && evidence.is_none(),
                evidence,
            }
        })
        .collect()
}

/// The claims along a recorded run of the loop: one entry from the first step, and one from each
/// step where the plan or the evidence changed, read from the host state each step recorded, so the
/// page shows what Rust worked out rather than working it out again. `history` is the run's final
/// history: the stored history only ever grows, so a step's is as many of its messages as the step
/// holds, and only the plan's items (a few short values) are read back from the recording.
pub fn claims_along(
    recording: &Recording,
    history: &[Message],
    expected: Option<&str>,
) -> Vec<ClaimsFrom> {
    let mut along: Vec<ClaimsFrom> = Vec::new();
    // Each plan item is parsed once: the plan changes a few times in a run.
    let mut todos: Vec<(u32, Option<Todo>)> = Vec::new();
    let mut last: Option<(Vec<u32>, usize)> = None;
    // Most steps keep the view of the step before (views are stored once each): the same plan and
    // history, read again for nothing. Reading them at each of a long run's thousands of steps, the
    // history's hundreds of entries each time, was a tenth of its trace natively.
    let mut last_view = None;
    // Each need's backing results in the final history, found once: a step's history is a prefix of
    // it, and searching each prefix again was 5% of a 100-call run's trace natively (quadratic).
    let mut found: Vec<(Needs, Vec<(usize, Evidence)>)> = Vec::new();
    for (index, step) in recording.steps.iter().enumerate() {
        if last_view.replace(step.host) == Some(step.host) {
            continue;
        }
        let view = &recording.hosts[step.host as usize];
        let field = |name: &str| view.iter().find(|field| field.field == name);
        let kept = |name: &str| {
            field(name).map_or(Vec::new(), |field| {
                let marks = field.changes.chars();
                field
                    .entries
                    .iter()
                    .zip(marks)
                    .filter(|(_, m)| *m != '-')
                    .map(|(&e, _)| e)
                    .collect()
            })
        };
        let items = kept("items");
        // Removed entries are marked `-`: the history's length is its other marks.
        let length = field("messages")
            .map_or(0, |field| field.changes.bytes().filter(|&m| m != b'-').count());
        let length = length.min(history.len());
        if last.as_ref().is_some_and(|(i, l)| *i == items && *l == length) {
            continue;
        }
        let plan: Vec<Todo> = items
            .iter()
            .filter_map(|&entry| {
                if let Some((_, todo)) = todos.iter().find(|(at, _)| *at == entry) {
                    return todo.clone();
                }
                let todo: Option<Todo> = serde_json::from_str(recording.value(entry).get()).ok();
                todos.push((entry, todo.clone()));
                todo
            })
            .collect();
        let claims = claims_by(&plan, |needs| {
            let at = match found.iter().position(|(n, _)| *n == needs) {
                Some(at) => at,
                None => {
                    found.push((needs, backings(history, needs, expected)));
                    found.len() - 1
                }
            };
            let within = found[at].1.iter().find(|(from, _)| *from <= length);
            within.map(|(_, evidence)| evidence.clone())
        });
        last = Some((items, length));
        if along.last().is_none_or(|entry| entry.claims != claims) {
            along.push(ClaimsFrom { step: index as u32, claims });
        }
    }
    along
}

/// The blocks of a message (a plain text message has none).
fn blocks(message: &Message) -> &[Block] {
    match &message.content {
        Content::Blocks(blocks) => blocks,
        Content::Text(_) => &[],
    }
}

/// The first result in the history that backs what `needs`: a successful read of the path, or a
/// successful run whose output is `expected`.
fn backing(history: &[Message], needs: Needs, expected: Option<&str>) -> Option<Evidence> {
    backings(history, needs, expected).into_iter().next().map(|(_, evidence)| evidence)
}

/// Every result in `history` that backs what `needs`, in the history's order, each with the length
/// of the shortest prefix of the history that holds it and a call it answers: what backs the item
/// in a prefix is the first of these that the prefix holds.
fn backings(history: &[Message], needs: Needs, expected: Option<&str>) -> Vec<(usize, Evidence)> {
    // Each asked call's id, with the first message that asks it.
    let mut asked: Vec<(&str, usize)> = Vec::new();
    for (index, message) in history.iter().enumerate() {
        for block in blocks(message) {
            let id = match (block, needs) {
                (Block::ToolUse { id, name, input }, Needs::Read(path))
                    if name == "read_file" && input["path"].as_str() == Some(path) =>
                {
                    id
                }
                (Block::ToolUse { id, name, .. }, Needs::Run) if name == "run_main" => id,
                _ => continue,
            };
            if !asked.iter().any(|(seen, _)| *seen == id) {
                asked.push((id, index));
            }
        }
    }
    let mut found = Vec::new();
    for (index, message) in history.iter().enumerate() {
        for block in blocks(message) {
            let Block::ToolResult { tool_use_id, content, is_error: false } = block else {
                continue;
            };
            let Some(&(_, asked_at)) = asked.iter().find(|(id, _)| *id == tool_use_id) else {
                continue;
            };
            if needs == Needs::Run
                && !printed(content)
                    .is_some_and(|out| expected.is_some_and(|expected| same(out, expected)))
            {
                continue;
            }
            let evidence = Evidence { message: index as u32, tool_use_id: tool_use_id.clone() };
            found.push((index.max(asked_at) + 1, evidence));
        }
    }
    found
}

/// What a run printed: the text after its result's output header line, in either language.
fn printed(result: &str) -> Option<&str> {
    [Lang::En, Lang::Zh].iter().find_map(|&lang| {
        let header = output_header(lang);
        // A plain search by lines: `split_once` with a string pattern would bring core's two-way
        // string searcher (about 3 KB of wasm) for this one short text.
        let mut at = 0;
        for line in result.split('\n') {
            at += line.len() + 1;
            if line == header {
                return result.get(at.min(result.len())..);
            }
        }
        None
    })
}

/// Whether a program's output is the expected text, as a reader compares them: line ends and
/// surrounding white space aside.
fn same(output: &str, expected: &str) -> bool {
    output.trim() == expected.trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::loop_scenarios::{run_in_memory, SCENARIOS};
    use serde_json::json;

    /// `backings`, found once in the whole history, gives for every prefix what `backing` finds
    /// searching that prefix alone.
    fn agree(history: &[Message], what: &str) {
        for expected in [Some("42\n"), Some("41\n"), None] {
            for (_, needs) in EVIDENCE {
                let found = backings(history, needs, expected);
                for length in 0..=history.len() {
                    let within = found.iter().find(|(from, _)| *from <= length).map(|(_, e)| e);
                    let searched = backing(&history[..length], needs, expected);
                    assert_eq!(within, searched.as_ref(), "{what}: {needs:?} in {length} messages");
                }
            }
        }
    }

    #[test]
    fn backings_agree_with_a_search_of_each_prefix() {
        for scenario in &SCENARIOS {
            for lang in [Lang::Zh, Lang::En] {
                let outcome = run_in_memory(&scenario.setup, lang).outcome.unwrap();
                agree(&outcome.history, scenario.id);
            }
        }
        // A result before the call it answers, an id asked twice, a failed read.
        let read = |id: &str, path: &str| Block::ToolUse {
            id: id.into(),
            name: "read_file".into(),
            input: json!({ "path": path }),
        };
        let result = |id: &str, is_error: bool| Block::ToolResult {
            tool_use_id: id.into(),
            content: "text".into(),
            is_error,
        };
        let history = [
            Message::user("q"),
            Message::results(vec![result("a", false)]),
            Message::assistant(vec![read("b", "main.py"), read("a", "main.py")]),
            Message::results(vec![result("b", true), result("a", false)]),
            Message::assistant(vec![read("a", "expected.txt")]),
            Message::results(vec![result("a", false)]),
        ];
        agree(&history, "made up");
    }
}
