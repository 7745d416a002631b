//! The agent loop in memory (as the page runs it): LOOP.md's table row by row, the reminder, and what each request carries.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use todo_trace::host::in_memory::{MemoryWorkspace, Preset, Recorded};
use todo_trace::host::loop_scenarios::{
    question, run_in_memory, scenario, MemoryRun, FILES, SCENARIOS,
};
use todo_trace::host::stand_in::Script;
use todo_trace::lesson::agent::execute_with_plan;
use todo_trace::lesson::agent_types::{
    tool_definitions, Decision, Outcome, ReadError, Stop, ToolCall, Tools, Workspace, REMINDER,
};
use todo_trace::lesson::{format_todos, prepare_messages, Block, Content, Lang, Message, State};
use todo_trace::recorder::Snapshot;

const LANGS: [Lang; 2] = [Lang::Zh, Lang::En];

/// One row of LOOP.md's table of scenarios and outcomes.
struct Row {
    id: &'static str,
    stop: Stop,
    calls: usize,
    accepted: usize,
    refused: usize,
    reads: usize,
    runs: usize,
    plan: [&'static str; 3],
    /// How often the user was asked for approval.
    asked: usize,
}

const C: &str = "completed";
const I: &str = "in_progress";
const P: &str = "pending";

#[rustfmt::skip]
const TABLE: [Row; 9] = [
    Row { id: "allow", stop: Stop::Answered, calls: 8, accepted: 4, refused: 0, reads: 2, runs: 1, plan: [C, C, C], asked: 1 },
    Row { id: "deny", stop: Stop::Answered, calls: 7, accepted: 3, refused: 0, reads: 2, runs: 0, plan: [C, C, P], asked: 1 },
    Row { id: "maintenance", stop: Stop::Answered, calls: 7, accepted: 3, refused: 0, reads: 2, runs: 0, plan: [C, C, P], asked: 0 },
    Row { id: "budget", stop: Stop::CallLimit, calls: 4, accepted: 2, refused: 0, reads: 2, runs: 0, plan: [C, I, P], asked: 0 },
    Row { id: "skip", stop: Stop::Answered, calls: 5, accepted: 2, refused: 0, reads: 1, runs: 1, plan: [C, P, P], asked: 1 },
    Row { id: "claim", stop: Stop::Answered, calls: 3, accepted: 2, refused: 0, reads: 0, runs: 0, plan: [C, C, C], asked: 0 },
    Row { id: "rejected", stop: Stop::Answered, calls: 9, accepted: 4, refused: 1, reads: 2, runs: 1, plan: [C, C, C], asked: 1 },
    Row { id: "nag", stop: Stop::Answered, calls: 6, accepted: 2, refused: 0, reads: 2, runs: 1, plan: [C, C, C], asked: 1 },
    Row { id: "drift", stop: Stop::Answered, calls: 5, accepted: 1, refused: 0, reads: 2, runs: 1, plan: [I, P, P], asked: 1 },
];

/// Every tool call of a history with its result: (name, input, result text, is_error).
fn calls_with_results(history: &[Message]) -> Vec<(String, Value, String, bool)> {
    let blocks: Vec<&Block> = history
        .iter()
        .flat_map(|message| match &message.content {
            Content::Blocks(blocks) => blocks.iter().collect(),
            Content::Text(_) => Vec::new(),
        })
        .collect();
    blocks
        .iter()
        .filter_map(|block| {
            let Block::ToolUse { id, name, input } = block else { return None };
            let result = blocks.iter().find_map(|other| match other {
                Block::ToolResult { tool_use_id, content, is_error } if tool_use_id == id => {
                    Some((content.clone(), *is_error))
                }
                _ => None,
            });
            let (content, is_error) = result.expect("every tool call has a result");
            Some((name.clone(), input.clone(), content, is_error))
        })
        .collect()
}

fn count(history: &[Message], tool: &str, succeeded: bool) -> usize {
    calls_with_results(history)
        .iter()
        .filter(|(name, _, _, is_error)| name == tool && *is_error != succeeded)
        .count()
}

fn run(id: &str, lang: Lang) -> (Outcome, MemoryRun) {
    let mut run = run_in_memory(&scenario(id).unwrap().setup, lang);
    let outcome =
        std::mem::replace(&mut run.outcome, Err(todo_trace::lesson::TodoError::NoUserText.into()));
    (outcome.expect("the loop never fails on its own question"), run)
}

/// Where the reminder text block appears: (message index, block index).
fn reminders(history: &[Message]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (m, message) in history.iter().enumerate() {
        match &message.content {
            Content::Text(text) => assert!(!text.contains(REMINDER)),
            Content::Blocks(blocks) => {
                for (b, block) in blocks.iter().enumerate() {
                    if matches!(block, Block::Text { text } if text == REMINDER) {
                        found.push((m, b));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn the_table_holds_row_by_row_in_both_languages() {
    assert_eq!(SCENARIOS.map(|s| s.id), TABLE.map(|r| r.id), "the scenarios in the table's order");
    for row in &TABLE {
        for lang in LANGS {
            let (outcome, run) = run(row.id, lang);
            let at = format!("{} {lang:?}", row.id);
            assert_eq!(outcome.stop, row.stop, "{at}: stop");
            assert_eq!(outcome.calls, row.calls, "{at}: calls");
            assert_eq!(run.model.requests.len(), row.calls, "{at}: requests the model received");
            assert_eq!(count(&outcome.history, "todo_write", true), row.accepted, "{at}: accepted");
            assert_eq!(count(&outcome.history, "todo_write", false), row.refused, "{at}: refused");
            assert_eq!(count(&outcome.history, "read_file", true), row.reads, "{at}: reads");
            assert_eq!(count(&outcome.history, "run_main", true), row.runs, "{at}: runs");
            let statuses: Vec<&str> =
                outcome.plan.iter().map(|item| item.status.as_str()).collect();
            assert_eq!(statuses, row.plan, "{at}: final plan");
            assert_eq!(
                outcome.plan.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
                ["1", "2", "3"]
            );
            assert_eq!(run.asked, row.asked, "{at}: times the user was asked");
            match outcome.stop {
                Stop::CallLimit => assert_eq!(outcome.answer, "", "{at}"),
                Stop::Answered => assert!(!outcome.answer.is_empty(), "{at}"),
            }
            let codes: Vec<&str> = outcome.warnings.iter().map(|w| w.code.as_str()).collect();
            let expected: &[&str] = match row.id {
                "deny" => &["run_refused"],
                "maintenance" => &["run_blocked"],
                "rejected" => &["plan_refused"],
                _ => &[],
            };
            assert_eq!(codes, expected, "{at}: warnings");
        }
    }
}

#[test]
fn the_rejected_update_leaves_the_plan_as_it_was() {
    for lang in LANGS {
        let (outcome, run) = run("rejected", lang);
        let refused: Vec<_> = calls_with_results(&outcome.history)
            .into_iter()
            .filter(|(name, _, _, is_error)| name == "todo_write" && *is_error)
            .collect();
        assert_eq!(refused.len(), 1);
        let (_, input, text, _) = &refused[0];
        let active = input["items"].as_array().unwrap().iter().filter(|i| i["status"] == I).count();
        assert_eq!(active, 2);
        assert!(text.contains('2'), "the message names the item: {text}");
        // The request after the refusal still carries the plan from before it (call 2's: I P P).
        let fourth = first_text(&run.model.requests[3].messages);
        assert!(fourth.contains("1 [in_progress]") && fourth.contains("2 [pending]"), "{fourth}");
    }
}

fn first_text(messages: &[Message]) -> &str {
    match &messages[0].content {
        Content::Text(text) => text,
        Content::Blocks(_) => panic!("the first message is text"),
    }
}

#[test]
fn the_reminder_comes_once_in_nag_after_the_third_round_and_nowhere_else() {
    for scenario in &SCENARIOS {
        for lang in LANGS {
            let (outcome, run) = run(scenario.id, lang);
            let found = reminders(&outcome.history);
            if scenario.id != "nag" {
                assert!(found.is_empty(), "{} {lang:?}: {found:?}", scenario.id);
                continue;
            }
            // question, then (assistant, user) per round: round 4's results are message 8.
            assert_eq!(found, [(8, 1)], "{lang:?}");
            let Content::Blocks(blocks) = &outcome.history[8].content else { panic!() };
            assert_eq!(blocks.len(), 2, "the run's result, then the reminder");
            assert!(
                matches!(&blocks[0], Block::ToolResult { tool_use_id, .. } if tool_use_id == "call_4")
            );
            // The model saw it once, in the request after that round, and never before.
            let seen: Vec<usize> = run
                .model
                .requests
                .iter()
                .map(|request| reminders(&request.messages).len())
                .collect();
            assert_eq!(seen, [0, 0, 0, 0, 1, 1]);
        }
    }
}

#[test]
fn every_request_carries_the_current_plan_once_and_the_history_keeps_the_bare_question() {
    for scenario in &SCENARIOS {
        for lang in LANGS {
            let (outcome, run) = run(scenario.id, lang);
            let bare = Message::user(question(lang));
            assert_eq!(outcome.history[0], bare, "{}", scenario.id);
            let header = {
                let prepared =
                    prepare_messages(&[Message::user("")], &State::default(), lang).unwrap();
                first_text(&prepared).trim().lines().next().unwrap().to_string()
            };
            let mut plan = State::default();
            for (n, request) in run.model.requests.iter().enumerate() {
                // The plan as the host held it before this call: the latest accepted update.
                for (name, input, _, is_error) in calls_with_results(&request.messages[1..]) {
                    if name == "todo_write" && !is_error {
                        plan.items = todo_trace::lesson::validate_todos(&input["items"]).unwrap();
                    }
                }
                let expected = prepare_messages(std::slice::from_ref(&bare), &plan, lang).unwrap();
                assert_eq!(request.messages[0], expected[0], "{} call {}", scenario.id, n + 1);
                assert!(first_text(&request.messages).ends_with(&format_todos(&plan.items, lang)));
                // Everything after the first message is the stored history as it was then.
                assert_eq!(request.messages[1..], outcome.history[1..request.messages.len()]);
                let mut text = Vec::new();
                Snapshot::write_json(request, &mut text);
                let text = String::from_utf8(text).unwrap();
                assert_eq!(text.matches(&header).count(), 1, "{} call {}", scenario.id, n + 1);
                assert_eq!(request.tools, tool_definitions(lang));
            }
            // No scenario updates the plan in its last round, so the last request saw the final plan.
            assert_eq!(plan.items, outcome.plan);
        }
    }
}

#[test]
fn the_tools_are_described_with_their_schemas() {
    for lang in LANGS {
        let tools = tool_definitions(lang);
        assert_eq!(
            tools.iter().map(|t| t.name).collect::<Vec<_>>(),
            ["todo_write", "read_file", "run_main"]
        );
        let items = &tools[0].input_schema["properties"]["items"];
        assert_eq!(items["maxItems"], serde_json::json!(20));
        assert_eq!(items["items"]["required"], serde_json::json!(["id", "content", "status"]));
        assert_eq!(
            items["items"]["properties"]["status"]["enum"],
            serde_json::json!(["pending", "in_progress", "completed"])
        );
        assert_eq!(tools[0].input_schema["required"], serde_json::json!(["items"]));
        assert_eq!(tools[1].input_schema["required"], serde_json::json!(["path"]));
        assert!(tools.iter().all(|t| !t.description.is_empty()));
    }
}

#[test]
fn the_answers_tell_what_happened() {
    let (allow, _) = run("allow", Lang::En);
    assert!(allow.answer.contains("42") && allow.answer.contains("matches"), "{}", allow.answer);
    let (skip, _) = run("skip", Lang::En);
    assert_eq!(skip.answer, "The output is 42.");
    let (deny, _) = run("deny", Lang::En);
    assert!(deny.answer.contains("stays pending"), "{}", deny.answer);
    let (claim, _) = run("claim", Lang::Zh);
    assert!(claim.answer.contains("全部完成"));
    assert!(claim.history.iter().all(|m| !matches!(&m.content, Content::Blocks(b)
        if b.iter().any(|b| matches!(b, Block::ToolUse { name, .. } if name != "todo_write")))));
    let (budget, _) = run("budget", Lang::En);
    assert!(calls_with_results(&budget.history).iter().all(|(name, ..)| name != "run_main"));
}

#[test]
fn the_recorded_run_says_it_is_recorded() {
    for (lang, word) in [(Lang::Zh, "录制"), (Lang::En, "recorded")] {
        let (outcome, _) = run("allow", lang);
        let runs: Vec<_> = calls_with_results(&outcome.history)
            .into_iter()
            .filter(|(name, ..)| name == "run_main")
            .collect();
        assert_eq!(runs.len(), 1);
        assert!(runs[0].2.contains(word) && runs[0].2.ends_with("\n42\n"), "{}", runs[0].2);
    }
}

fn tools_for<'a>(
    workspace: &'a MemoryWorkspace,
    approval: &'a mut Preset,
    runner: &'a mut Recorded,
    maintenance: bool,
) -> Tools<'a> {
    Tools { workspace, approval, runner, maintenance, lang: Lang::En }
}

fn call(name: &str, input: Value) -> ToolCall {
    ToolCall { id: "t1".into(), name: name.into(), input }
}

#[test]
fn the_host_refuses_paths_outside_the_workspace_and_unknown_tools() {
    let workspace = MemoryWorkspace::new(&FILES);
    assert_eq!(workspace.read("main.py").unwrap(), FILES[0].1);
    assert_eq!(workspace.read("./expected.txt").unwrap(), "42\n");
    for path in
        ["../main.py", "/etc/passwd", "a/../../main.py", "..", "\\etc", "C:/x", "./../main.py"]
    {
        assert_eq!(workspace.read(path), Err(ReadError::Outside), "{path}");
    }
    assert_eq!(workspace.read("missing.txt"), Err(ReadError::Missing));

    let (mut approval, mut runner) = (Preset::new(Decision::Allow), Recorded);
    let mut tools = tools_for(&workspace, &mut approval, &mut runner, false);
    let mut state = State::default();
    let (result, warning) = execute_with_plan(
        &call("read_file", serde_json::json!({"path": "../secret"})),
        &mut state,
        &mut tools,
    );
    assert!(matches!(result, Block::ToolResult { is_error: true, .. }));
    assert_eq!(warning.unwrap().code, "path_refused");
    let (result, warning) = execute_with_plan(
        &call("read_file", serde_json::json!({"path": "nope.txt"})),
        &mut state,
        &mut tools,
    );
    assert!(matches!(result, Block::ToolResult { is_error: true, .. }));
    assert!(warning.is_none(), "a missing file is the model's business, not the host's");
    let (result, warning) =
        execute_with_plan(&call("rm_rf", serde_json::json!({})), &mut state, &mut tools);
    assert!(matches!(result, Block::ToolResult { is_error: true, .. }));
    assert_eq!(warning.unwrap().code, "unknown_tool");
}

#[test]
fn maintenance_blocks_runs_before_asking_and_plans_grant_nothing() {
    let workspace = MemoryWorkspace::new(&FILES);
    let (mut approval, mut runner) = (Preset::new(Decision::Allow), Recorded);
    let mut tools = tools_for(&workspace, &mut approval, &mut runner, true);
    let mut state = State::default();
    let done = serde_json::json!({"items": [{"id": "1", "content": "Run", "status": "completed"}]});
    let (result, warning) = execute_with_plan(&call("todo_write", done), &mut state, &mut tools);
    assert!(matches!(result, Block::ToolResult { is_error: false, .. }) && warning.is_none());
    let (result, warning) =
        execute_with_plan(&call("run_main", serde_json::json!({})), &mut state, &mut tools);
    assert!(matches!(result, Block::ToolResult { is_error: true, .. }));
    assert_eq!(warning.unwrap().code, "run_blocked");
    assert_eq!(approval.asked, 0);
}

#[test]
fn scripts_and_scenarios_are_typed() {
    for script in Script::ALL {
        assert_eq!(Script::from_name(script.name()), Some(script));
    }
    assert_eq!(Script::from_name("Standard"), None);
    assert!(scenario("nope").is_none());
    for s in &SCENARIOS {
        for lang in LANGS {
            assert!(!s.label(lang).is_empty() && !s.hint(lang).is_empty(), "{}", s.id);
        }
    }
    assert_eq!(SCENARIOS[0].id, "allow");
}

/// A host event's name in a trace is the one serde gives it (the TS type `HostEvent` comes from serde).
#[test]
fn host_event_names_are_serdes() {
    use todo_trace::lesson::agent_types::HostEvent::*;
    for event in [PlanWritten, PlanRefused, Ask, Refused, Reminder, CallLimit, Answered] {
        assert_eq!(serde_json::to_value(event).unwrap(), event.name(), "{event:?}");
    }
}
