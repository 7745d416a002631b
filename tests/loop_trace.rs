//! The loop figure's traces: the same outcome as the loop run plainly, the stored history at every step, stepping into the plan functions, and a trace that stays small.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use serde_json::Value;
use todo_trace::host::claims::{claims, claims_of};
use todo_trace::host::figures::{self, FigureId};
use todo_trace::host::loop_scenarios::{
    question, run_in_memory, LoopScenario, EXPECTED_TXT, SCENARIOS,
};
use todo_trace::host::run::{self, Trace};
use todo_trace::host::source::source;
use todo_trace::lesson::agent_types::REMINDER;
use todo_trace::lesson::{Lang, Message, Todo};
use todo_trace::recorder::{
    kept_fields, kept_requests, HostField, HostView, Json, KeptField, KeptRequest, ModelRequest,
    KEPT_FROM,
};

use support::host;

const LANGS: [Lang; 2] = [Lang::Zh, Lang::En];

fn trace(scenario: &str, lang: Lang) -> Trace {
    run::trace("loop", scenario, lang).unwrap()
}

/// Every built-in scenario traced in each language.
fn every_trace() -> impl Iterator<Item = (&'static LoopScenario, Lang, Trace)> {
    let each = |scenario: &'static LoopScenario| LANGS.map(|lang| (scenario, lang));
    SCENARIOS
        .iter()
        .flat_map(each)
        .map(|(scenario, lang)| (scenario, lang, trace(scenario.id, lang)))
}

fn result_value(trace: &Trace) -> Value {
    assert!(trace.result.ok, "{:?}", trace.result.error);
    serde_json::from_str(trace.result_value().unwrap().get()).unwrap()
}

#[test]
fn the_loop_figure_lists_the_eight_scenarios_and_runs_run_loop() {
    let figure = figures::figure("loop").unwrap();
    assert_eq!(figure.id, FigureId::Loop);
    assert_eq!(
        (figure.symbol, figure.file, figure.entry),
        ("run_loop", "src/lesson/agent.rs", "run_agent")
    );
    for lang in LANGS {
        let listed = figures::scenarios("loop", lang).unwrap();
        let ids: Vec<&str> = listed.iter().map(|s| s.id).collect();
        assert_eq!(ids, SCENARIOS.map(|s| s.id));
        assert!(listed[0].is_default && listed.iter().filter(|s| s.is_default).count() == 1);
    }
    let unknown = run::trace("loop", "valid", Lang::En).unwrap_err();
    assert!(unknown.0.contains("expected one of allow, deny"), "{unknown}");
    let input = run::trace_input("loop", "[]", Lang::En).unwrap_err();
    assert!(input.0.contains("takes no input"), "{input}");
}

#[test]
fn each_trace_returns_the_outcome_of_the_loop_run_plainly() {
    for (scenario, lang, t) in every_trace() {
        let plain = run_in_memory(&scenario.setup, lang).outcome.unwrap();
        assert_eq!(
            result_value(&t),
            serde_json::to_value(plain.json()).unwrap(),
            "{}",
            scenario.id
        );
        // The result refers to the outcome as `run_loop`'s return stored it, which is the very
        // text writing the outcome whole gives (what the trace's `result.value` held before).
        assert!(t.result.value.is_none() && t.result.stored.is_some(), "{}", scenario.id);
        let written = serde_json::to_string(&plain.json()).unwrap();
        assert_eq!(t.result_value().unwrap().get(), written, "{}", scenario.id);
        // Its fields can be read alone, as the stop question reads them.
        let field = |name| t.recording.field(t.result.stored.unwrap(), name).unwrap();
        assert_eq!(field("calls").get(), plain.calls.to_string());
        assert_eq!(field("plan").get(), serde_json::to_string(&plain.plan).unwrap());
        assert_eq!(t.data.agent, Some(scenario.setup));
        // run_agent reads only its setup: the loop makes its own plan and history.
        assert_eq!((&t.data.state, &t.data.items, &t.data.messages), (&None, &None, &None));
        // The output pane: the stop line, the final plan, the answer last.
        assert!(t.recording.output[0].contains(if scenario.id == "budget" {
            "call_limit"
        } else {
            "answered"
        }));
        assert_eq!(t.recording.output.last().unwrap(), &plain.answer);
    }
}

#[test]
fn the_stored_history_starts_with_the_bare_question_at_every_step() {
    for (scenario, lang, t) in every_trace() {
        let mut longest = 0;
        for step in &t.recording.steps {
            let messages = host(&t, step)["messages"].as_array().unwrap().clone();
            if let Some(first) = messages.first() {
                assert_eq!(first["role"], "user");
                assert_eq!(first["content"], question(lang), "{} {lang:?}", scenario.id);
            }
            // The history only grows: nothing is ever taken out of it.
            assert!(messages.len() >= longest);
            longest = messages.len();
        }
        let outcome = result_value(&t);
        assert_eq!(longest, outcome["history"].as_array().unwrap().len());
    }
}

#[test]
fn the_trace_steps_into_the_plan_functions() {
    let t = trace("rejected", Lang::En);
    let stacks: Vec<Vec<&str>> = (0..t.recording.steps.len() as u32)
        .map(|i| t.recording.frames(i).iter().map(|f| f.symbol).collect())
        .collect();
    for path in [
        &["run_loop", "prepare_messages", "format_todos"][..],
        &["run_loop", "execute_with_plan", "write_todos", "validate_todos"],
    ] {
        assert!(stacks.iter().any(|stack| stack == path), "no step in {path:?}");
    }
    assert!(stacks.iter().all(|stack| stack[0] == "run_loop"));
    // The refused update ends in an error step of validate_todos, inside the loop.
    let errors: Vec<_> = t
        .recording
        .steps
        .iter()
        .filter(|s| matches!(s.event, todo_trace::recorder::Event::Error))
        .map(|s| (s.symbol, s.error.as_ref().unwrap().code))
        .collect();
    assert_eq!(errors, [("validate_todos", "too_many_active"), ("write_todos", "too_many_active")]);
}

#[test]
fn the_reminder_reaches_the_host_history_once_in_nag() {
    for scenario in &SCENARIOS {
        let t = trace(scenario.id, Lang::En);
        let last = t.recording.steps.last().unwrap();
        let text = host(&t, last)["messages"].to_string();
        let expected = usize::from(scenario.id == "nag");
        assert_eq!(text.matches(REMINDER).count(), expected, "{}", scenario.id);
    }
}

#[test]
fn the_recorded_run_is_labelled_where_the_trace_shows_it() {
    for (lang, word) in [(Lang::Zh, "录制"), (Lang::En, "recorded")] {
        let t = trace("allow", lang);
        let last = t.recording.steps.last().unwrap();
        let messages = host(&t, last)["messages"].to_string();
        assert_eq!(messages.matches(word).count(), 1, "{messages}");
    }
}

#[test]
fn a_loop_trace_stays_small() {
    for scenario in &SCENARIOS {
        let t = trace(scenario.id, Lang::En);
        let steps = &t.recording.steps;
        let largest = steps.iter().map(|s| serde_json::to_string(s).unwrap().len()).max().unwrap();
        // A step is indices and marks: it does not carry the conversation, which ends up several
        // times larger than the largest step, nor its callers (only the index of its caller's step).
        assert!(largest <= 320, "{}: a step of {largest} bytes", scenario.id);
        let history = serde_json::to_string(&result_value(&t)["history"]).unwrap().len();
        assert!(
            history > 3 * largest,
            "{}: {history} bytes of history, a step of {largest}",
            scenario.id
        );
        let total = serde_json::to_string(&t).unwrap().len();
        assert!(total <= 240_000, "{}: {total} bytes", scenario.id);
        assert!(steps.len() < 1_000, "{}: {} steps", scenario.id, steps.len());
    }
}

#[test]
fn the_loops_functions_are_listed_from_the_compiled_file() {
    for symbol in ["run_loop", "execute_with_plan", "run_agent"] {
        let listing = source(symbol).unwrap();
        let path = format!("{}/{}", env!("CARGO_MANIFEST_DIR"), listing.file);
        let file = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = file.lines().collect();
        assert!(listing.lines[0].text.contains(&format!("fn {symbol}(")));
        for line in &listing.lines {
            assert_eq!(line.text, lines[line.no as usize - 1]);
        }
        let steps = listing.lines.iter().filter(|l| l.step).count();
        assert_eq!(
            steps > 0,
            symbol != "run_agent",
            "{symbol}: only the traced functions have steps"
        );
    }
}

/// The host decisions of a trace, in step order, as the page's event names.
fn decisions(t: &Trace) -> Vec<String> {
    let steps = &t.recording.steps;
    let events = steps.iter().flat_map(|s| s.decisions.iter());
    events.map(|e| serde_json::to_value(e).unwrap().as_str().unwrap().to_string()).collect()
}

#[test]
fn each_scenario_marks_what_the_host_decided() {
    let expected: [(&str, &[&str]); 8] = [
        (
            "allow",
            &["plan-written", "plan-written", "plan-written", "ask", "plan-written", "answered"],
        ),
        ("deny", &["plan-written", "plan-written", "plan-written", "ask", "refused", "answered"]),
        ("maintenance", &["plan-written", "plan-written", "plan-written", "refused", "answered"]),
        ("budget", &["plan-written", "plan-written", "call-limit"]),
        ("skip", &["plan-written", "plan-written", "ask", "answered"]),
        ("claim", &["plan-written", "plan-written", "answered"]),
        (
            "rejected",
            &[
                "plan-written",
                "plan-refused",
                "plan-written",
                "plan-written",
                "ask",
                "plan-written",
                "answered",
            ],
        ),
        ("nag", &["plan-written", "ask", "reminder", "plan-written", "answered"]),
    ];
    for (id, events) in expected {
        for lang in LANGS {
            let t = trace(id, lang);
            assert_eq!(decisions(&t), events, "{id} {lang:?}");
            // The stop is on the loop's last step, its return.
            let last = t.recording.steps.last().unwrap();
            assert_eq!(last.symbol, "run_loop");
            assert!(matches!(last.event, todo_trace::recorder::Event::Return));
            assert!(last.decisions.len() == 1, "{id}: {:?}", last.decisions);
        }
    }
    // Plan updates accepted and refused, as LOOP.md counts them, match the marks.
    for scenario in &SCENARIOS {
        let t = trace(scenario.id, Lang::En);
        let outcome = result_value(&t);
        let refused = outcome["warnings"].as_array().unwrap();
        let plan_refused = refused.iter().filter(|w| w["code"] == "plan_refused").count();
        let marks = decisions(&t);
        assert_eq!(marks.iter().filter(|m| *m == "plan-refused").count(), plan_refused);
        let others = refused.len() - plan_refused;
        assert_eq!(marks.iter().filter(|m| *m == "refused").count(), others, "{}", scenario.id);
    }
}

#[test]
fn a_decision_is_on_the_first_step_after_it() {
    let t = trace("deny", Lang::En);
    let steps = &t.recording.steps;
    let line = |s: &todo_trace::recorder::Step| {
        let listing = source(s.symbol).unwrap();
        listing.lines.iter().find(|l| l.no == s.line).unwrap().text.trim().to_string()
    };
    let ask = steps
        .iter()
        .find(|s| s.decisions.iter().any(|e| serde_json::to_value(e).unwrap() == "ask"));
    let ask = ask.unwrap();
    // The user was asked in the `if` that calls the approval; the next step is the refusal.
    assert_eq!(ask.symbol, "execute_with_plan");
    assert!(line(ask).starts_with("let text"), "{}", line(ask));
    let refused = steps
        .iter()
        .position(|s| s.decisions.iter().any(|e| serde_json::to_value(e).unwrap() == "refused"));
    let refused = &steps[refused.unwrap()];
    assert!(matches!(refused.event, todo_trace::recorder::Event::Return), "{:?}", refused.event);
}

#[test]
fn every_model_call_has_its_request_and_only_the_first_message_differs() {
    for (scenario, lang, t) in every_trace() {
        let outcome = result_value(&t);
        let requests = &t.recording.requests;
        assert_eq!(requests.len() as u64, outcome["calls"].as_u64().unwrap(), "{}", scenario.id);
        let plain = run_in_memory(&scenario.setup, lang);
        let value = |i: u32| -> Value { serde_json::from_str(t.recording.value(i).get()).unwrap() };
        for (request, sent) in requests.iter().zip(&plain.model.requests) {
            assert_eq!(request.differs, [0], "{}", scenario.id);
            let messages: Vec<Value> = request.messages.iter().map(|&i| value(i)).collect();
            assert_eq!(Value::Array(messages), serde_json::to_value(&sent.messages).unwrap());
            assert_eq!(value(request.tools), serde_json::to_value(sent.tools).unwrap());
            // The history is the stored one at the request's step, which never holds the plan.
            let step = &t.recording.steps[request.step as usize];
            assert_eq!(
                Value::Array(request.history.iter().map(|&i| value(i)).collect()),
                host(&t, step)["messages"]
            );
            assert_eq!(value(request.history[0])["content"], question(lang));
            assert_eq!(request.history.len(), request.messages.len());
        }
    }
}

#[test]
fn claims_meet_evidence_at_the_end() {
    // Per item: (completed, backed, evidence in the history).
    type Items = [(bool, bool, bool); 3];
    let expected: [(&str, Items); 8] = [
        ("allow", [(true, true, true), (true, true, true), (true, true, true)]),
        ("deny", [(true, true, true), (true, true, true), (false, false, false)]),
        ("maintenance", [(true, true, true), (true, true, true), (false, false, false)]),
        // Item 2 is in progress: expected.txt was read, yet an item that claims nothing is not backed.
        ("budget", [(true, true, true), (false, false, true), (false, false, false)]),
        ("skip", [(true, true, true), (false, false, false), (false, false, true)]),
        ("claim", [(true, false, false), (true, false, false), (true, false, false)]),
        ("rejected", [(true, true, true), (true, true, true), (true, true, true)]),
        ("nag", [(true, true, true), (true, true, true), (true, true, true)]),
    ];
    for (id, items) in expected {
        for lang in LANGS {
            let t = trace(id, lang);
            let claims = t.claims.as_ref().unwrap();
            let got: Vec<(bool, bool, bool)> =
                claims.iter().map(|c| (c.completed, c.backed, c.evidence.is_some())).collect();
            assert_eq!(got, items, "{id} {lang:?}");
            for claim in claims {
                assert_eq!(claim.gap, claim.completed && claim.evidence.is_none());
                assert_eq!(claim.backed, claim.completed && claim.evidence.is_some());
            }
            let gaps = claims.iter().filter(|c| c.gap).count();
            // In claim the whole plan is a claim; in skip the answer hides an unread file.
            match id {
                "claim" => assert_eq!(gaps, 3),
                _ => assert_eq!(gaps, 0, "{id}"),
            }
            let outcome = result_value(&t);
            for claim in claims.iter().filter_map(|c| c.evidence.as_ref()) {
                let message = &outcome["history"][claim.message as usize];
                assert!(message.to_string().contains(&claim.tool_use_id));
            }
        }
    }
    // In skip the gap is the unread expected output beside an answer that reports the output.
    let skip = trace("skip", Lang::En);
    let claims = skip.claims.as_ref().unwrap();
    assert_eq!((claims[1].tool, claims[1].path), ("read_file", Some("expected.txt")));
    assert!(claims[1].evidence.is_none() && claims[2].evidence.is_some());
}

#[test]
fn a_run_backs_run_and_check_only_if_it_printed_the_expected_text() {
    for lang in LANGS {
        let run = run_in_memory(&SCENARIOS[0].setup, lang);
        let outcome = run.outcome.unwrap();
        // The recorded run printed 42: against another expected text it backs nothing.
        let matching = claims(&outcome, Some("42\n"));
        assert!(matching[2].backed && !matching[2].gap, "{lang:?}");
        for other in ["41\n", "", "42 and more\n"] {
            let wrong = claims(&outcome, Some(other));
            assert!(
                !wrong[2].backed && wrong[2].gap && wrong[2].evidence.is_none(),
                "{other:?} {lang:?}"
            );
            assert!(wrong[0].backed && wrong[1].backed, "the reads still back items 1 and 2");
        }
    }
}

#[test]
fn claims_cross_at_every_step_and_end_as_the_final_claims() {
    for (scenario, _, t) in every_trace() {
        let along = t.claims_along.as_ref().unwrap();
        assert_eq!(along[0].step, 0, "{}: from the first step", scenario.id);
        assert!(along[0].claims.is_empty(), "no plan, no claims at the start");
        assert_eq!(&along.last().unwrap().claims, t.claims.as_ref().unwrap(), "{}", scenario.id);
        assert!(along.windows(2).all(|w| w[0].step < w[1].step && w[0].claims != w[1].claims));
        for entry in along {
            // The claims at a step are those of the plan and history that step holds.
            let step = &t.recording.steps[entry.step as usize];
            let plan = t.recording.host_entries(step, "items");
            assert_eq!(entry.claims.len(), plan.len(), "{} step {}", scenario.id, entry.step);
            for claim in &entry.claims {
                assert_eq!(claim.backed, claim.completed && claim.evidence.is_some());
            }
            // Read back whole from the recording, the step's own plan and history give the same claims.
            fn parse<T: serde::de::DeserializeOwned>(json: &Json) -> T {
                serde_json::from_str(json.get()).unwrap()
            }
            let plan: Vec<Todo> = plan.iter().map(parse).collect();
            let history: Vec<Message> =
                t.recording.host_entries(step, "messages").iter().map(parse).collect();
            assert_eq!(
                entry.claims,
                claims_of(&plan, &history, Some(EXPECTED_TXT)),
                "{}",
                scenario.id
            );
        }
    }
    // budget: item 2 is read while in progress; the pane then shows the evidence, not backed.
    let budget = trace("budget", Lang::En);
    let along = budget.claims_along.as_ref().unwrap();
    assert!(along.iter().any(|e| e
        .claims
        .get(1)
        .is_some_and(|c| c.status == "in_progress" && c.evidence.is_some() && !c.backed)));
}

#[test]
fn a_loop_step_does_not_grow_with_the_conversation() {
    for scenario in &SCENARIOS {
        let t = trace(scenario.id, Lang::En);
        let requests = &t.recording.requests;
        let bytes = |from: u32, to: usize| -> f64 {
            let steps = &t.recording.steps[from as usize..to];
            let total: usize = steps.iter().map(|s| serde_json::to_string(s).unwrap().len()).sum();
            total as f64 / steps.len() as f64
        };
        let first = bytes(requests[0].step, requests[1].step as usize);
        let last_round = requests.last().unwrap().step;
        let last = bytes(last_round, t.recording.steps.len());
        assert!(last <= first * 1.5, "{}: {first:.0} then {last:.0} bytes a step", scenario.id);
    }
}

#[test]
fn each_request_names_the_step_its_call_is_made_from() {
    for scenario in &SCENARIOS {
        let t = trace(scenario.id, Lang::En);
        for request in &t.recording.requests {
            // Paused there, the call is about to be made: `let reply = model.reply(&request)?;`.
            let from = &t.recording.steps[request.at as usize];
            assert_eq!(
                (from.symbol, from.line, request.at + 1),
                ("run_loop", 46, request.step),
                "{}",
                scenario.id
            );
        }
    }
}

/// The host views as written, made whole as `www/api.js` makes them: each field's first `kept`
/// entries are the same field's in the view before.
fn whole_hosts(written: &[Vec<KeptField>]) -> Vec<HostView> {
    let mut hosts: Vec<HostView> = Vec::new();
    for view in written {
        let mut whole = Vec::new();
        for (at, field) in view.iter().enumerate() {
            let mut entries = match hosts.last() {
                Some(before) => before[at].entries[..field.kept].to_vec(),
                None => Vec::new(),
            };
            entries.extend(&field.entries);
            let (changes, was) = (field.changes.clone(), field.was.clone());
            whole.push(HostField { field: field.field, entries, changes, was });
        }
        hosts.push(whole);
    }
    hosts
}

#[test]
fn host_views_written_with_kept_entries_are_whole_again() {
    let mut kept = 0;
    for (scenario, _, t) in every_trace() {
        let written = kept_fields(&t.recording.hosts);
        assert_eq!(whole_hosts(&written), t.recording.hosts, "{}", scenario.id);
        kept += written.iter().flatten().filter(|field| field.kept >= KEPT_FROM).count();
    }
    assert!(kept > 0, "some view keeps its history from the view before");
}

/// The requests as written, made whole as `www/api.js` makes them: each history's first `kept`
/// entries are the request before's, and `changed` puts the messages that differ into that history.
fn whole_requests(written: &[KeptRequest]) -> Vec<ModelRequest> {
    let mut requests: Vec<ModelRequest> = Vec::new();
    for request in written {
        let mut history = match requests.last() {
            Some(before) => before.history[..request.kept].to_vec(),
            None => Vec::new(),
        };
        history.extend(&request.history);
        let messages = match (&request.messages, &request.changed) {
            (Some(messages), None) => messages.clone(),
            (None, Some(changed)) => {
                let mut messages = history.clone();
                for (&at, &entry) in request.differs.iter().zip(changed) {
                    messages[at as usize] = entry;
                }
                messages
            }
            _ => panic!("a request writes its messages one way: {request:?}"),
        };
        let (at, step, tools, differs) =
            (request.at, request.step, request.tools, request.differs.clone());
        requests.push(ModelRequest { at, step, tools, messages, history, differs });
    }
    requests
}

#[test]
fn requests_written_by_what_they_share_are_whole_again() {
    let (mut kept, mut changed) = (0, 0);
    for (scenario, _, t) in every_trace() {
        let written = kept_requests(&t.recording.requests);
        assert_eq!(whole_requests(&written), t.recording.requests, "{}", scenario.id);
        kept += written.iter().filter(|request| request.kept >= KEPT_FROM).count();
        changed += written.iter().filter(|request| request.changed.is_some()).count();
    }
    assert!(kept > 0, "some request keeps its history from the request before");
    assert!(changed > 0, "some request writes only the messages that differ");
}

/// A grown list (`Recording::grown`) is written as its entries past an earlier list's: read back in
/// Rust, each version of the stored history is still the host's `messages` entries at that step.
#[test]
fn grown_lists_read_back_whole() {
    let mut checked = 0;
    for (scenario, _, t) in every_trace() {
        let r = &t.recording;
        let grown: Vec<u32> = r.grown.iter().map(|grown| grown.value).collect();
        for step in r.steps.iter().filter(|step| step.symbol == "run_loop") {
            let local = r.locals(step).into_iter().find(|local| local.name == "history");
            let Some(Some(history)) = local.map(|local| local.value) else { continue };
            let field = r.hosts[step.host as usize].iter().find(|f| f.field == "messages");
            let entries = &field.unwrap().entries;
            let whole: Vec<Value> = entries.iter().map(|&e| json(&r.value(e))).collect();
            assert_eq!(json(&history), Value::Array(whole), "{}", scenario.id);
            let at = step.scope as usize;
            let index = r.scopes[at].iter().position(|&b| r.bindings[b as usize].name == "history");
            let value = index.and_then(|i| step.values[i]);
            checked += usize::from(value.is_some_and(|value| grown.contains(&value)));
        }
    }
    assert!(checked > 0, "some history checked is a grown list");
}

fn json(text: &Json) -> Value {
    serde_json::from_str(text.get()).unwrap()
}
