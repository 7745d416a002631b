//! Predict, then reveal: every question derived from a trace has one right answer, and it is what the trace then shows.

use std::borrow::Cow;

use serde_json::{json, Value};
use todo_trace::host::figures::{self, FigureId, FIGURES};
use todo_trace::host::in_memory::{MemoryWorkspace, Preset, Recorded};
use todo_trace::host::loop_scenarios::{question, FILES, SCENARIOS};
use todo_trace::host::predict::{questions, Question};
use todo_trace::host::run::{self, CallResult, Given, Trace};
use todo_trace::lesson::agent::run_loop;
use todo_trace::lesson::agent_types::{Decision, LoopError, Model, ModelError, Request, Tools};
use todo_trace::lesson::{validate_todos, Block, Lang, Message, Todo};
use todo_trace::recorder::{self, HostList, Settings};

mod support;
use support::local;

const LANGS: [Lang; 2] = [Lang::Zh, Lang::En];

fn right(q: &Question) -> &str {
    &q.choices[q.answer as usize].key
}

/// The shape every question keeps: two to four different answers, one of them right, words in both fields.
fn well_formed(name: &str, qs: &[Question]) {
    for q in qs {
        assert!((2..=4).contains(&q.choices.len()), "{name}: {q:?}");
        assert!((q.answer as usize) < q.choices.len(), "{name}: {q:?}");
        let mut keys: Vec<&str> = q.choices.iter().map(|c| c.key.as_str()).collect();
        let mut labels: Vec<&str> = q.choices.iter().map(|c| c.label.as_str()).collect();
        keys.sort();
        keys.dedup();
        labels.sort();
        labels.dedup();
        assert_eq!(keys.len(), q.choices.len(), "{name}: two answers share a key: {q:?}");
        assert_eq!(labels.len(), q.choices.len(), "{name}: two answers read the same: {q:?}");
        assert!(!q.prompt.is_empty() && !q.why.is_empty(), "{name}: {q:?}");
    }
    assert!(
        qs.windows(2).all(|w| w[0].step < w[1].step),
        "{name}: one question per pause, in order"
    );
}

/// The same questions in both languages: where they are asked and what is right does not depend on the words.
fn same_in_both(zh: &[Question], en: &[Question]) {
    let shape = |qs: &[Question]| -> Vec<(u32, &str, Vec<String>, u32)> {
        qs.iter()
            .map(|q| (q.step, q.kind, q.choices.iter().map(|c| c.key.clone()).collect(), q.answer))
            .collect()
    };
    assert_eq!(shape(zh), shape(en));
}

/// Checks every host decision of a loop trace against the question asked last before it, from
/// what the trace shows by other roads: the validation of the submitted items done again, the
/// decisions near it, and the outcome's final plan.
fn every_decision_was_asked(name: &str, trace: &Trace) {
    let steps = &trace.recording.steps;
    let qs = &trace.questions;
    for (at, step) in steps.iter().enumerate() {
        for &event in &step.decisions {
            let q = qs.iter().rev().find(|q| (q.step as usize) <= at);
            let q =
                q.unwrap_or_else(|| panic!("{name}: step {at} ({event}) came before any question"));
            let next = qs.iter().find(|n| n.step > q.step).map_or(steps.len(), |n| n.step as usize);
            assert!(at < next, "{name}: step {at} ({event}) is past the next question");
            let span: Vec<&str> =
                steps[q.step as usize..next].iter().flat_map(|s| s.decisions.clone()).collect();
            let (kind, answer) = (q.kind, right(q));
            match event {
                "plan-written" => assert_eq!((kind, answer), ("plan", "accepted"), "{name} @{at}"),
                "plan-refused" => {
                    // The submitted items, validated again here, outside the recording.
                    let call = local(trace, &steps[q.step as usize - 1], "call");
                    let code = validate_todos(&call["input"]["items"]).unwrap_err().code();
                    assert_eq!((kind, answer), ("plan", code), "{name} @{at}");
                }
                "ask" => {
                    let expected = if span.contains(&"refused") { "declined" } else { "runs" };
                    assert_eq!((kind, answer), ("run", expected), "{name} @{at}");
                }
                "refused" => match kind {
                    "run" if span.contains(&"ask") => {
                        assert_eq!(answer, "declined", "{name} @{at}")
                    }
                    "run" => assert_eq!(answer, "blocked", "{name} @{at}"),
                    "read" => assert_eq!(answer, "outside", "{name} @{at}"),
                    "tool" => assert_eq!(answer, "no_such_tool", "{name} @{at}"),
                    other => panic!("{name} @{at}: refused answered by a {other} question"),
                },
                "reminder" => assert_eq!((kind, answer), ("reminder", "yes"), "{name} @{at}"),
                "call-limit" | "answered" => {
                    let outcome: Value =
                        serde_json::from_str(trace.result_value().unwrap().get()).unwrap();
                    let stop = if event == "call-limit" { "call_limit" } else { "answered" };
                    assert_eq!(outcome["stop"], stop, "{name}");
                    let open: Vec<&str> = outcome["plan"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|t| t["status"] != "completed")
                        .map(|t| t["id"].as_str().unwrap())
                        .collect();
                    assert_eq!(
                        (kind, answer),
                        ("stop", &*format!("items:{}", open.join(","))),
                        "{name}"
                    );
                }
                other => panic!("{name}: an event no question covers: {other}"),
            }
        }
    }
    // And the other way: an answer that says nothing happens is not followed by that happening.
    for (i, q) in qs.iter().enumerate() {
        let next = qs.get(i + 1).map_or(steps.len(), |n| n.step as usize);
        let span: Vec<&str> =
            steps[q.step as usize..next].iter().flat_map(|s| s.decisions.clone()).collect();
        match (q.kind, right(q)) {
            ("reminder", "no") => assert!(!span.contains(&"reminder"), "{name}: {q:?}"),
            ("read", "reads") => assert!(span.is_empty(), "{name}: {q:?}"),
            ("run", "runs") => assert!(!span.contains(&"refused"), "{name}: {q:?}"),
            _ => {}
        }
    }
}

#[test]
fn every_loop_scenarios_decisions_get_a_question_that_the_trace_then_answers() {
    for scenario in SCENARIOS {
        let [zh, en] = LANGS.map(|lang| run::trace("loop", scenario.id, lang).unwrap());
        for trace in [&zh, &en] {
            let name = format!("loop/{}", scenario.id);
            well_formed(&name, &trace.questions);
            every_decision_was_asked(&name, trace);
            // The page pauses on the step before a question: nothing is decided there yet.
            for q in &trace.questions {
                assert!(q.step >= 1, "{name}");
                let paused = &trace.recording.steps[q.step as usize - 1];
                assert!(paused.decisions.is_empty(), "{name}: {q:?} pauses on a decision");
            }
        }
        same_in_both(&zh.questions, &en.questions);
    }
    // The scenarios that turn on one question each.
    let kinds = |id: &str, kind: &str| -> Vec<String> {
        let t = run::trace("loop", id, Lang::En).unwrap();
        t.questions.iter().filter(|q| q.kind == kind).map(|q| right(q).to_string()).collect()
    };
    assert_eq!(kinds("allow", "run"), ["runs"]);
    assert_eq!(kinds("deny", "run"), ["declined"]);
    assert_eq!(kinds("maintenance", "run"), ["blocked"]);
    assert_eq!(
        kinds("rejected", "plan"),
        ["accepted", "too_many_active", "accepted", "accepted", "accepted"]
    );
    assert_eq!(kinds("nag", "reminder"), ["no", "no", "yes"]);
    assert_eq!(kinds("budget", "stop"), ["items:2,3"]);
    assert_eq!(kinds("claim", "stop"), ["items:"]);
}

#[test]
fn figures_1_to_3_ask_ok_or_which_error_for_every_scenario_and_for_reader_input() {
    for figure in FIGURES.iter().filter(|f| f.id != FigureId::Loop) {
        let id = figure.id.name();
        let scenario_ids: Vec<&str> =
            figures::scenarios(id, Lang::En).unwrap().iter().map(|s| s.id).collect();
        for scenario in scenario_ids {
            let [zh, en] = LANGS.map(|lang| run::trace(id, scenario, lang).unwrap());
            for t in [&zh, &en] {
                result_question_matches(&format!("{id}/{scenario}"), t);
            }
            same_in_both(&zh.questions, &en.questions);
        }
    }
    // The reader's own text: each error validation can give, and some that pass.
    let mut many: Vec<Value> = (0..21)
        .map(|i| json!({"id": i.to_string(), "content": "x", "status": "pending"}))
        .collect();
    let inputs = [
        json!([{"id": "a", "content": "x", "status": "pending"}, {"id": " a ", "content": "y", "status": "pending"}]),
        json!([{"id": "a", "content": "x", "status": "in_progress"}, {"id": "b", "content": "y", "status": "in_progress"}]),
        json!([{"id": "a", "content": "x", "status": "done"}]),
        json!({"items": []}),
        json!([["a", "x", "pending"]]),
        json!([{"id": "", "content": "x", "status": "pending"}]),
        json!([{"id": "a", "content": " ", "status": "pending"}]),
        json!([{"id": "a", "content": 5, "status": "pending"}]),
        Value::Array(many.split_off(0)),
        json!([]),
        json!([{"id": "a", "content": "写测试", "status": "completed"}]),
    ];
    for input in &inputs {
        for figure in ["validate", "write"] {
            for lang in LANGS {
                let t = run::trace_input(figure, &input.to_string(), lang).unwrap();
                let name = format!("{figure} on {input}");
                result_question_matches(&name, &t);
                let expected = validate_todos(input).err().map_or("ok", |e| e.code());
                assert_eq!(right(&t.questions[0]), expected, "{name}");
            }
        }
    }
    // Python-literal text, as the editor takes it.
    let t =
        run::trace_input("validate", "[{'id': 'a', 'content': 'x', 'status': 'done'}]", Lang::Zh)
            .unwrap();
    assert_eq!(right(&t.questions[0]), "unknown_status");
    // prepare takes a plan: a valid one runs and is asked about; one that is not never runs, so nothing is asked.
    let t = run::trace_input(
        "prepare",
        r#"[{"id": "a", "content": "write tests", "status": "pending"}]"#,
        Lang::En,
    )
    .unwrap();
    result_question_matches("prepare on a plan", &t);
    assert_eq!(right(&t.questions[0]), "ok");
    let refused = run::trace_input("prepare", r#"[{"id": "a"}]"#, Lang::En).unwrap();
    assert!(!refused.ran && refused.questions.is_empty());
    let unparsed = run::trace_input("validate", "[{", Lang::En).unwrap();
    assert!(!unparsed.ran && unparsed.questions.is_empty());
}

/// A function figure's one question: on its first step's arguments, before anything is checked,
/// right when it names what the function returned.
fn result_question_matches(name: &str, t: &Trace) {
    well_formed(name, &t.questions);
    assert_eq!(t.questions.len(), 1, "{name}");
    let q = &t.questions[0];
    assert_eq!((q.kind, q.step), ("result", 1), "{name}");
    let returned = t.result.error.as_ref().map_or("ok", |e| e.code);
    assert_eq!(right(q), returned, "{name}");
    // The last step shows the same: a return, or an error with that code.
    let last = t.recording.steps.last().unwrap();
    assert_eq!(last.error.as_ref().map_or("ok", |e| e.code), returned, "{name}");
}

/// A model that asks for what a run file might hold (a path outside the workspace, a tool the host
/// does not know) and then has no reply, as a replay that left its recording.
struct Wanders(usize);

impl Model for Wanders {
    fn reply(&mut self, _: &Request) -> Result<Vec<Block>, ModelError> {
        self.0 += 1;
        let call = |name: &str, input: Value| Block::ToolUse {
            id: format!("w_{}", self.0),
            name: name.into(),
            input,
        };
        // Each read twice: the second with a path long enough that the result is stored by its parts,
        // where the question reads only the warning and `is_error` of it.
        let long = "d/".repeat(300);
        match self.0 {
            1 => Ok(vec![call("read_file", json!({"path": "../secret.txt"}))]),
            2 => Ok(vec![call("read_file", json!({"path": "missing.txt"}))]),
            3 => Ok(vec![call("read_file", json!({"path": format!("../{long}secret.txt")}))]),
            4 => Ok(vec![call("read_file", json!({"path": format!("{long}missing.txt")}))]),
            5 => Ok(vec![call("delete_all", json!({}))]),
            _ => Err(ModelError {
                code: "diverged",
                message: "The recording holds no reply for call 6.".into(),
            }),
        }
    }

    fn describe(&self) -> Cow<'_, str> {
        "a model that wanders".into()
    }
}

#[test]
fn a_run_that_wanders_and_ends_in_an_error_is_asked_about_too() {
    for lang in LANGS {
        let workspace = MemoryWorkspace::new(&FILES);
        let (mut approval, mut runner) = (Preset::new(Decision::Allow), Recorded);
        let mut tools = Tools {
            workspace: &workspace,
            approval: &mut approval,
            runner: &mut runner,
            maintenance: false,
            lang,
        };
        let (items, messages): (Vec<Todo>, Vec<Message>) = (Vec::new(), Vec::new());
        let fields: [(&'static str, &dyn HostList); 2] =
            [("items", &items), ("messages", &messages)];
        let settings = Settings { history: Some("messages"), ..Settings::default() };
        let describe =
            |error: &dyn std::any::Any| error.downcast_ref::<LoopError>().unwrap().info(Lang::En);
        let (recording, result) =
            recorder::record_with("run_loop", &fields, settings, describe, || {
                run_loop(&mut Wanders(0), &mut tools, 12, false, question(lang))
            });
        let mut trace = Trace {
            figure: FigureId::Loop,
            scenario: "wanders".into(),
            ran: true,
            data: Given::default(),
            recording,
            result: CallResult::of(result, lang),
            claims: None,
            claims_along: None,
            replay: None,
            questions: Vec::new(),
        };
        trace.questions = questions(&trace, lang);
        well_formed("wanders", &trace.questions);
        every_decision_was_asked("wanders", &trace);
        let asked: Vec<(&str, &str)> = trace.questions.iter().map(|q| (q.kind, right(q))).collect();
        assert_eq!(
            asked,
            [
                ("read", "outside"),
                ("read", "read_fails"),
                ("read", "outside"),
                ("read", "read_fails"),
                ("tool", "no_such_tool"),
                ("stop", "diverged")
            ]
        );
        // The error question is asked on the line of the model's call, before the error step.
        let stop = trace.questions.last().unwrap();
        assert_eq!(stop.step as usize, trace.recording.steps.len() - 1);
        assert!(stop.choices.iter().any(|c| c.key == "invents"));
    }
}
