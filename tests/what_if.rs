//! What if: the comparison of two loop runs finds where they first part, for the lesson's pairs and for a recorded run replayed with a changed setting.
#![cfg(not(target_arch = "wasm32"))]

use todo_trace::host::compare::{Aspect, FirstDifference, Mark};
use todo_trace::host::loop_scenarios::scenario;
use todo_trace::host::run::{self, scenario_run};
use todo_trace::host::runs::Source;
use todo_trace::host::what_if::{what_if, what_if_run, Change, Continues, WhatIf};
use todo_trace::lesson::agent_types::{Decision, Stop};
use todo_trace::lesson::Lang;

const LANGS: [Lang; 2] = [Lang::Zh, Lang::En];

/// The step of a scenario's trace that carries host decision `event` (the first one).
fn step_of(scenario: &str, event: &str, lang: Lang) -> u32 {
    let trace = run::trace("loop", scenario, lang).unwrap();
    trace.recording.steps.iter().position(|s| s.decisions.contains(&event)).unwrap() as u32
}

fn first(w: &WhatIf) -> &FirstDifference {
    w.comparison.first.as_ref().expect("the runs differ")
}

fn statuses(w: &WhatIf, side: usize) -> Vec<&str> {
    w.comparison.sides[side].end.plan.iter().map(|t| t.status.as_str()).collect()
}

/// A built-in scenario's run file, as if a live model had made it.
fn recorded(scenario: &str, lang: Lang) -> String {
    let mut run = scenario_run(scenario, lang).unwrap();
    run.model = Source::Live { name: "recorded-model".into() };
    serde_json::to_string(&run).unwrap()
}

#[test]
fn allow_and_deny_part_at_the_ask_of_call_6() {
    for lang in LANGS {
        let w = what_if("allow", "deny", lang).unwrap();
        assert_eq!(w.continues, Continues::StandIn);
        let ask = step_of("allow", "ask", lang);
        // deny asks at the same step: the runs are the same until the user's answer.
        assert_eq!(ask, step_of("deny", "ask", lang));
        let at = |answer| Mark { step: ask, event: Some("ask"), answer: Some(answer) };
        assert_eq!(
            first(&w),
            &FirstDifference {
                call: 6,
                kind: "ask",
                at: vec![at(Decision::Allow), at(Decision::Deny)]
            }
        );
        let [base, changed] = &w.comparison.sides[..] else { panic!() };
        assert_eq!((base.calls.len(), changed.calls.len()), (8, 7));
        assert!(base.calls[..5].iter().all(|c| c.differs.is_empty()), "calls 1 to 5 are the same");
        assert!(base.calls[5].differs.contains(&Aspect::Decisions));
        assert_eq!(changed.calls[5].warnings[0].code, "run_refused");
        assert_eq!(statuses(&w, 0), ["completed"; 3]);
        assert_eq!(statuses(&w, 1), ["completed", "completed", "pending"]);
        assert_eq!(base.end.differs, [Aspect::Answer, Aspect::Plan, Aspect::Claims]);
        // The changed run is the deny scenario's: the same stand-in, the changed answer.
        let (deny, settings) = (scenario("deny").unwrap().setup, w.runs[1].settings);
        assert_eq!(
            (settings.max_calls, settings.maintenance, settings.reminder),
            (deny.max_calls, deny.maintenance, deny.reminder)
        );
    }
}

#[test]
fn nag_and_drift_part_at_the_reminder() {
    for lang in LANGS {
        for (base, change, reminded) in [("nag", "reminder-off", 0), ("drift", "reminder-on", 1)] {
            let w = what_if(base, change, lang).unwrap();
            let f = first(&w);
            assert_eq!((f.call, f.kind), (4, "reminder"), "{base}");
            let mark = &f.at[reminded];
            assert_eq!(
                (mark.step, mark.event),
                (step_of("nag", "reminder", lang), Some("reminder"))
            );
            // The other run goes on to call 5 without it.
            assert_eq!(f.at[1 - reminded].step, w.comparison.sides[1 - reminded].calls[4].step);
            // The reminder brings the stale plan up to date: the same model, one more call.
            assert_eq!(statuses(&w, reminded), ["completed"; 3]);
            assert_eq!(statuses(&w, 1 - reminded), ["in_progress", "pending", "pending"]);
            assert_eq!(w.comparison.sides[reminded].calls.len(), 6);
            assert_eq!(w.comparison.sides[1 - reminded].calls.len(), 5);
        }
    }
}

#[test]
fn allow_and_a_budget_of_4_part_at_the_call_limit() {
    for lang in LANGS {
        let w = what_if("allow", "budget-4", lang).unwrap();
        let f = first(&w);
        assert_eq!((f.call, f.kind), (5, "call-limit"));
        let [base, changed] = &w.comparison.sides[..] else { panic!() };
        assert_eq!(f.at[0], Mark { step: base.calls[4].step, event: None, answer: None });
        assert_eq!(
            f.at[1],
            Mark {
                step: step_of("budget", "call-limit", lang),
                event: Some("call-limit"),
                answer: None
            }
        );
        assert!(base.calls[..4].iter().all(|c| c.differs.is_empty()));
        assert_eq!(base.calls[4].differs, [Aspect::Missing]);
        assert_eq!((changed.end.stop, changed.end.calls), (Some(Stop::CallLimit), 4));
    }
}

#[test]
fn maintenance_blocks_where_allow_asked() {
    let w = what_if("allow", "maintenance-on", Lang::En).unwrap();
    let f = first(&w);
    assert_eq!((f.call, f.kind), (6, "refused"));
    assert_eq!((f.at[0].event, f.at[1].event), (Some("ask"), Some("refused")));
}

#[test]
fn a_change_that_changes_nothing_has_no_first_difference() {
    let w = what_if("allow", "budget-12", Lang::En).unwrap();
    assert_eq!(w.comparison.first, None);
    assert!(w
        .comparison
        .sides
        .iter()
        .all(|s| s.calls.iter().all(|c| c.differs.is_empty()) && s.end.differs.is_empty()));
}

#[test]
fn a_recorded_run_with_a_higher_budget_stops_where_the_recorded_model_never_saw_the_request() {
    for lang in LANGS {
        let w = what_if_run(recorded("budget", lang).as_bytes(), "budget-5", lang).unwrap();
        assert_eq!(w.continues, Continues::Replay);
        let [base, changed] = &w.comparison.sides[..] else { panic!() };
        assert!(!base.end.unseen && base.end.diverged.is_none(), "the recording replays as it was");
        assert!(changed.end.unseen);
        assert_eq!(changed.end.stop, None);
        assert_eq!(changed.calls.len(), 5);
        assert_eq!(changed.calls[4].reply, None, "no reply is invented for call 5");
        let diverged = changed.end.diverged.as_ref().unwrap();
        assert_eq!(diverged.call, 5);
        let holds = lang.pick("记录里只有 4 次模型调用", "the recording holds 4 model calls");
        assert!(diverged.message.contains(holds), "{}", diverged.message);
        assert_eq!((first(&w).call, first(&w).kind), (5, "call-limit"));
    }
}

#[test]
fn a_recorded_run_with_another_answer_stops_at_the_next_call() {
    for lang in LANGS {
        let w = what_if_run(recorded("allow", lang).as_bytes(), "deny", lang).unwrap();
        assert_eq!((first(&w).call, first(&w).kind), (6, "ask"));
        let changed = &w.comparison.sides[1];
        assert!(changed.end.unseen);
        let message = &changed.end.diverged.as_ref().unwrap().message;
        let never = lang.pick("录制的模型从未见过它", "the recorded model never saw this");
        assert!(message.contains(never) && message.contains('7'), "{message}");
    }
}

#[test]
fn a_recorded_run_with_a_lower_budget_stops_at_the_budget_without_an_unrecorded_reply() {
    let w = what_if_run(recorded("allow", Lang::En).as_bytes(), "budget-4", Lang::En).unwrap();
    let changed = &w.comparison.sides[1];
    assert_eq!(changed.end.stop, Some(Stop::CallLimit));
    assert!(!changed.end.unseen);
    let message = &changed.end.diverged.as_ref().unwrap().message;
    assert!(
        message.contains("the host stopped at its budget of 4 calls; the recording holds 8"),
        "{message}"
    );
}

#[test]
fn changes_read_as_links_write_them() {
    for name in [
        "allow",
        "deny",
        "maintenance-on",
        "maintenance-off",
        "budget-1",
        "budget-12",
        "reminder-on",
        "reminder-off",
    ] {
        assert_eq!(Change::parse(name).unwrap().name(), name);
    }
    for bad in [
        "",
        "budget-0",
        "budget-13",
        "budget-04",
        "budget-+4",
        "budget-",
        "reminder",
        "maintenance-yes",
        "Allow",
    ] {
        assert!(Change::parse(bad).is_err(), "{bad}");
    }
    assert!(what_if("nope", "deny", Lang::En).is_err());
    assert!(what_if_run(b"{}", "deny", Lang::En).is_err());
}
