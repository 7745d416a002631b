//! Run files: their limits, replays that follow the recording or say where they left it, and the built-in scenarios as runs.

use serde_json::{json, Value};
use todo_trace::host::loop_scenarios::{run_file, SCENARIOS};
use todo_trace::host::run::{self, Trace};
use todo_trace::host::runs::{self, Replay, RunFile};
use todo_trace::lesson::agent::run_loop;
use todo_trace::lesson::agent_types::{LoopError, Outcome, Tools};
use todo_trace::lesson::Lang;

const LANGS: [Lang; 2] = [Lang::Zh, Lang::En];

fn scenario_run(id: &str, lang: Lang) -> RunFile {
    let scenario = SCENARIOS.iter().find(|scenario| scenario.id == id).unwrap();
    run_file(&scenario.setup, lang)
}

fn as_value(run: &RunFile) -> Value {
    serde_json::to_value(run).unwrap()
}

/// Replays a run file untraced, as `practice --replay` does: the result, and where it diverged.
fn replay(run: &RunFile) -> (Result<Outcome, LoopError>, Option<String>) {
    let replay = Replay::new(run);
    let result = replay.run(&mut &replay);
    let diverged = replay.finish(&result).map(|divergence| divergence.message);
    (result, diverged)
}

/// `text` read as a run file, then replayed.
fn replay_text(text: &str) -> (Result<Outcome, LoopError>, Option<String>) {
    replay(&runs::parse(text.as_bytes()).expect("a readable run file"))
}

fn refused(text: &str) -> &'static str {
    runs::parse(text.as_bytes()).expect_err("refused").code()
}

#[test]
fn every_built_in_scenario_replays_to_its_recorded_end() {
    for scenario in &SCENARIOS {
        for lang in LANGS {
            let run = run_file(&scenario.setup, lang);
            let text = serde_json::to_string(&run).unwrap();
            let (result, diverged) = replay_text(&text);
            assert_eq!(diverged, None, "{} {lang:?}", scenario.id);
            let outcome = result.unwrap();
            assert_eq!(outcome.calls, run.calls.len(), "{}", scenario.id);
            assert_eq!(outcome.history, run.history(), "{}", scenario.id);
        }
    }
}

#[test]
fn a_scenario_traced_and_its_run_file_traced_are_the_same_trace() {
    // The round trip the page makes when a reader saves a scenario's run and opens it again.
    let comparable = |trace: &Trace| {
        let mut value = serde_json::to_value(trace).unwrap();
        let object = value.as_object_mut().unwrap();
        object.remove("scenario");
        object.remove("data");
        value
    };
    for scenario in &SCENARIOS {
        for lang in LANGS {
            let text = serde_json::to_string(&run_file(&scenario.setup, lang)).unwrap();
            let from_file = run::trace_run(text.as_bytes(), lang).unwrap();
            let built_in = run::trace("loop", scenario.id, lang).unwrap();
            assert!(from_file.ran && from_file.result.ok, "{}", scenario.id);
            assert_eq!(comparable(&from_file), comparable(&built_in), "{} {lang:?}", scenario.id);
        }
    }
}

#[test]
fn the_drift_scenario_ends_with_a_stale_plan_and_nag_brings_it_up_to_date() {
    // LOOP.md's table: drift 5 calls, 1 plan update, I P P; nag 6 calls, C C C.
    let statuses = |run: &RunFile| match &run.end {
        runs::file::End::Outcome { plan, .. } => {
            plan.iter().map(|item| item.status.clone()).collect::<Vec<_>>()
        }
        other => panic!("{other:?}"),
    };
    let drift = scenario_run("drift", Lang::En);
    assert_eq!(drift.calls.len(), 5);
    assert_eq!(statuses(&drift), ["in_progress", "pending", "pending"]);
    let nag = scenario_run("nag", Lang::En);
    assert_eq!(nag.calls.len(), 6);
    assert_eq!(statuses(&nag), ["completed", "completed", "completed"]);
}

#[test]
fn a_run_file_holds_what_came_from_outside_and_nothing_of_the_machine() {
    let value = as_value(&scenario_run("allow", Lang::En));
    let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["version", "model", "settings", "question", "calls", "world", "end"]);
    let kinds: Vec<&str> =
        value["world"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["read", "read", "answer", "run"]);
    assert_eq!(
        value["world"][3]["process"],
        json!({"exit_code": 0, "output": "42\n", "timed_out": false})
    );
    assert_eq!(value["calls"][0]["reply"]["stop_reason"], "tool_use");
    assert_eq!(value["calls"][7]["reply"]["stop_reason"], "end_turn");
    assert_eq!(value["end"]["type"], "outcome");
}

#[test]
fn each_limit_refuses_the_file_with_its_code() {
    let good = as_value(&scenario_run("allow", Lang::En));
    let with = |change: &dyn Fn(&mut Value)| {
        let mut value = good.clone();
        change(&mut value);
        serde_json::to_string(&value).unwrap()
    };
    // Over 1 MiB: refused before it is parsed.
    let huge = with(&|v| v["question"] = json!("x".repeat(runs::file::MAX_BYTES)));
    assert_eq!(refused(&huge), "run_too_large");
    assert_eq!(refused("{not json"), "run_malformed");
    assert_eq!(refused("[]"), "run_malformed");
    assert_eq!(refused(&with(&|v| v["version"] = json!(2))), "run_unknown_version");
    assert_eq!(refused(&with(&|v| v["version"] = json!("1"))), "run_unknown_version");
    // A later version with a field this one does not know: the version is what is refused.
    let later = with(&|v| {
        v["version"] = json!(2);
        v["cost"] = json!(1);
    });
    assert_eq!(refused(&later), "run_unknown_version");
    // The file's fields as a list, in order: serde could read a struct so, but a run file is an object.
    let fields = good.as_object().unwrap().values().cloned().collect::<Vec<_>>();
    assert_eq!(refused(&serde_json::to_string(&fields).unwrap()), "run_malformed");
    assert_eq!(
        refused(&with(&|v| v.as_object_mut().unwrap().remove("version").map(drop).unwrap())),
        "run_malformed"
    );
    // A block of a type no message has.
    let unknown_block = with(&|v| v["calls"][0]["reply"]["content"][0]["type"] = json!("image"));
    assert_eq!(refused(&unknown_block), "run_malformed");
    let extra_field = with(&|v| v["settings"]["api_key"] = json!("sk-..."));
    assert_eq!(refused(&extra_field), "run_malformed");
    // 201 model calls.
    let many = with(&|v| {
        let call = v["calls"][1].clone();
        let calls = v["calls"].as_array_mut().unwrap();
        while calls.len() <= runs::file::MAX_MODEL_CALLS {
            calls.insert(1, call.clone());
        }
    });
    assert_eq!(refused(&many), "run_too_many_calls");
    // The read_file of call 2 without its result in the next message.
    let unpaired =
        with(&|v| v["calls"][2]["sent"][0]["content"][0]["tool_use_id"] = json!("other"));
    assert_eq!(refused(&unpaired), "run_unpaired_tool_use");
    let both = with(&|v| v["world"][0]["error"] = json!("missing"));
    assert_eq!(refused(&both), "run_malformed");
    let failure = with(&|v| {
        v["end"] = json!({"type": "failed", "code": "teapot", "message": "", "after": []})
    });
    assert_eq!(refused(&failure), "run_unknown_failure");
    // Bytes that are not UTF-8 (a file can hold any) are refused where they stop being text, not
    // read with replacement characters.
    let text = serde_json::to_string(&as_value(&scenario_run("allow", Lang::En))).unwrap();
    let at = text.find("main.py").unwrap();
    let mut bytes = text.into_bytes();
    bytes[at] = 0xff;
    let error = runs::parse(&bytes).unwrap_err();
    assert_eq!(error.code(), "run_malformed");
    assert!(
        error.message(Lang::En).ends_with(&format!("not UTF-8 text (at byte {at})")),
        "{error:?}"
    );
    // Every message is worded in both languages, and names no internals.
    let error = runs::parse(huge.as_bytes()).unwrap_err();
    assert!(error.message(Lang::En).contains("1 MiB"));
    assert!(error.message(Lang::Zh).contains("1 MiB"));
}

#[test]
fn a_changed_budget_diverges_where_the_host_stops() {
    let mut run = scenario_run("allow", Lang::En);
    run.settings.max_calls = 4;
    let (result, diverged) = replay(&run);
    assert!(result.is_ok(), "the host itself stopped: nothing was invented");
    assert_eq!(
        diverged.as_deref(),
        Some("diverged at model call 5: the host stopped at its budget of 4 calls; the recording holds 8")
    );
    // A larger budget than a run that hit its limit: the recording has no fifth reply.
    let mut run = scenario_run("budget", Lang::Zh);
    run.settings.max_calls = 12;
    let (result, diverged) = replay(&run);
    let error = result.unwrap_err();
    assert_eq!(error.code(), "diverged");
    assert_eq!(diverged.as_deref(), Some("在第 5 次模型调用处偏离记录：记录里只有 4 次模型调用"));
}

#[test]
fn a_removed_answer_or_a_changed_rule_diverges_and_nothing_is_invented() {
    let run = scenario_run("allow", Lang::En);
    // Without the user's answer the host's question has nothing to answer it.
    let mut no_answer = run.clone();
    no_answer.world.retain(|event| !matches!(event, runs::file::WorldEvent::Answer { .. }));
    let (result, diverged) = replay(&no_answer);
    assert_eq!(result.unwrap_err().code(), "diverged");
    assert_eq!(
        diverged.as_deref(),
        Some("diverged at model call 7: the host asked the user, but the recording holds a program run")
    );
    // Maintenance blocks the run without asking: call 7 would be sent a result the model never saw.
    let mut maintenance = run.clone();
    maintenance.settings.maintenance = true;
    let (result, diverged) = replay(&maintenance);
    assert_eq!(result.unwrap_err().code(), "diverged");
    assert_eq!(
        diverged.as_deref(),
        Some("diverged at model call 7: this request differs from what the recorded model was sent (the recorded model never saw this)")
    );
    // The reminder on, for a model that reads three rounds without a plan update.
    let mut drift = scenario_run("drift", Lang::En);
    drift.settings.reminder = true;
    let (result, diverged) = replay(&drift);
    assert_eq!(result.unwrap_err().code(), "diverged");
    assert_eq!(
        diverged.as_deref(),
        Some("diverged at model call 5: this request differs from what the recorded model was sent (the recorded model never saw this)")
    );
    // The same reminder on for the standard model changes no request: the replay follows it.
    let mut allow = run.clone();
    allow.settings.reminder = true;
    assert_eq!(replay(&allow).1, None);
}

#[test]
fn a_changed_answer_replays_up_to_the_first_call_the_model_never_saw() {
    let run = scenario_run("allow", Lang::En);
    let mut replay = Replay::new(&run);
    replay.answer = Some(todo_trace::lesson::agent_types::Decision::Deny);
    let (mut model, mut approval, mut runner) = (&replay, &replay, &replay);
    let mut tools = Tools {
        workspace: &replay,
        approval: &mut approval,
        runner: &mut runner,
        maintenance: false,
        lang: Lang::En,
    };
    let result = run_loop(&mut model, &mut tools, 12, false, &run.question);
    let divergence = replay.finish(&result).unwrap();
    assert_eq!(divergence.call, 7);
    assert!(
        divergence.message.contains("the recorded model never saw this"),
        "{}",
        divergence.message
    );
}

#[test]
fn an_edited_outcome_is_a_divergence_at_the_end() {
    let mut value = as_value(&scenario_run("allow", Lang::En));
    value["end"]["answer"] = json!("something else");
    let (result, diverged) = replay_text(&value.to_string());
    assert!(result.is_ok());
    assert_eq!(
        diverged.as_deref(),
        Some("diverged at model call 8: the run ended otherwise than recorded")
    );
}

#[test]
fn a_failed_live_run_replays_to_the_same_failure() {
    // A live run whose third call got a 401: the partial run replays to the same error, and
    // that is no divergence.
    let mut value = as_value(&scenario_run("allow", Lang::En));
    let third = value["calls"][2]["sent"].clone();
    value["calls"].as_array_mut().unwrap().truncate(2);
    value["world"].as_array_mut().unwrap().truncate(1);
    value["model"] = json!({"kind": "live", "name": "claude-test"});
    value["end"] = json!({"type": "failed", "code": "unauthorized", "message": "401: invalid key", "after": third});
    let (result, diverged) = replay_text(&value.to_string());
    assert_eq!(diverged, None);
    let error = result.unwrap_err();
    assert_eq!(
        (error.code(), error.message(Lang::En)),
        ("unauthorized", "401: invalid key".to_string())
    );
    let run = runs::parse(value.to_string().as_bytes()).unwrap();
    assert_eq!(run.origin(Lang::En), "live: claude-test");
}

#[test]
fn a_refused_run_file_gives_a_trace_that_did_not_run_with_its_coded_error() {
    for lang in LANGS {
        let trace = run::trace_run(br#"{"version": 9}"#, lang).unwrap();
        assert!(!trace.ran);
        let error = trace.result.error.unwrap();
        assert_eq!(error.code, "run_unknown_version");
        assert!(error.message.contains('9'));
    }
}
