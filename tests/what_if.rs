//! What if: the comparison of two loop runs finds where they first part, for the lesson's pairs and for a recorded run replayed with a changed setting.
#![cfg(not(target_arch = "wasm32"))]

use todo_trace::host::what_if::{what_if, what_if_run, WhatIf};
use todo_trace::lesson::Lang;

#[test]
fn explore() {
    for (s, c) in [("allow", "deny"), ("drift", "reminder-on"), ("allow", "budget-4"), ("allow", "maintenance-on")] {
        let w: WhatIf = what_if(s, c, Lang::En).unwrap();
        println!("{s} vs {c}: {:?}", w.comparison.first);
        for side in &w.comparison.sides {
            println!("  calls {} end {:?} {:?} unseen {}", side.calls.len(), side.end.stop, side.end.differs, side.end.unseen);
            for call in &side.calls { println!("    {} step {} {:?} tools {:?} plan {:?}", call.call, call.step, call.differs, call.tools.iter().map(|t| (t.name.clone(), t.decisions.iter().map(|d| d.event).collect::<Vec<_>>(), t.is_error)).collect::<Vec<_>>(), call.plan.iter().map(|t| t.status.clone()).collect::<Vec<_>>()); }
        }
    }
}

#[test]
fn explore_recorded() {
    use todo_trace::host::run::scenario_run;
    use todo_trace::host::runs::Source;
    for (s, c) in [("budget", "budget-5"), ("allow", "budget-4"), ("allow", "deny"), ("nag", "reminder-off"), ("allow", "budget-12")] {
        let mut run = scenario_run(s, Lang::En).unwrap();
        run.model = Source::Live { name: "model-x".into() };
        let text = serde_json::to_string(&run).unwrap();
        let w = what_if_run(&text, c, Lang::En).unwrap();
        println!("{s} vs {c}: {:?}", w.comparison.first);
        for side in &w.comparison.sides {
            println!("  calls {} end {:?} {:?} unseen {} err {:?} div {:?}", side.calls.len(), side.end.stop, side.end.differs, side.end.unseen, side.end.error, side.end.diverged);
        }
    }
}

#[test]
fn timing() {
    use std::time::Instant;
    use todo_trace::host::compare::summarize;
    let t0 = Instant::now();
    let t = todo_trace::host::run::trace("loop", "allow", Lang::En).unwrap();
    let t1 = Instant::now();
    let s = summarize(&t);
    let t2 = Instant::now();
    let _ = what_if("allow", "deny", Lang::En).unwrap();
    let t3 = Instant::now();
    println!("trace {:?} summarize {:?} whatif {:?} {}", t1 - t0, t2 - t1, t3 - t2, s.calls.len());
}
