//! The loop figure's traces: the same outcome as the loop run plainly, the stored history at every step, stepping into the plan functions, and a trace that stays small.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use serde_json::Value;
use todo_trace::agent_types::REMINDER;
use todo_trace::figures::{self, FigureId};
use todo_trace::lesson::Lang;
use todo_trace::loop_scenarios::{question, run_in_memory, SCENARIOS};
use todo_trace::run::{self, Trace};
use todo_trace::source::source;

use support::host;

const LANGS: [Lang; 2] = [Lang::Zh, Lang::En];

fn trace(scenario: &str, lang: Lang) -> Trace {
    run::trace("loop", scenario, lang).unwrap()
}

fn result_value(trace: &Trace) -> Value {
    assert!(trace.result.ok, "{:?}", trace.result.error);
    serde_json::from_str(trace.result.value.as_ref().unwrap().get()).unwrap()
}

#[test]
fn the_loop_figure_lists_the_eight_scenarios_and_runs_run_loop() {
    let figure = figures::figure("loop").unwrap();
    assert_eq!(figure.id, FigureId::Loop);
    assert_eq!(
        (figure.symbol, figure.file, figure.entry),
        ("run_loop", "src/agent.rs", "run_agent")
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
    for scenario in &SCENARIOS {
        for lang in LANGS {
            let t = trace(scenario.id, lang);
            let plain = run_in_memory(&scenario.setup, lang).outcome.unwrap();
            assert_eq!(result_value(&t), serde_json::to_value(&plain).unwrap(), "{}", scenario.id);
            assert_eq!(t.data.agent, Some(scenario.setup));
            assert!(t.data.messages.is_empty() && t.data.state.items.is_empty());
            // The output pane: the stop line, the final plan, the answer last.
            assert!(t.recording.output[0].contains(if scenario.id == "budget" {
                "call_limit"
            } else {
                "answered"
            }));
            assert_eq!(t.recording.output.last().unwrap(), &plain.answer);
        }
    }
}

#[test]
fn the_stored_history_starts_with_the_bare_question_at_every_step() {
    for scenario in &SCENARIOS {
        for lang in LANGS {
            let t = trace(scenario.id, lang);
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
}

#[test]
fn the_trace_steps_into_the_plan_functions() {
    let t = trace("rejected", Lang::En);
    let stacks: Vec<Vec<&str>> =
        t.recording.steps.iter().map(|s| s.frames.iter().map(|f| f.symbol).collect()).collect();
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
        .filter(|s| matches!(s.event, todo_trace::trace::Event::Error))
        .map(|s| (s.symbol(), s.error.as_ref().unwrap().code))
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
        // times larger than the largest step (each of whose frames names its latest step, so that the
        // page can show a caller's locals: about 11 bytes a frame).
        assert!(largest <= 512, "{}: a step of {largest} bytes", scenario.id);
        let history = serde_json::to_string(&result_value(&t)["history"]).unwrap().len();
        assert!(
            history > 3 * largest,
            "{}: {history} bytes of history, a step of {largest}",
            scenario.id
        );
        let total = serde_json::to_string(&t).unwrap().len();
        assert!(total <= 300_000, "{}: {total} bytes", scenario.id);
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
