//! How long deriving the questions takes beside recording the trace (a measurement, not a test).
use std::time::Instant;
use todo_trace::host::{predict, run};
use todo_trace::lesson::Lang;

fn main() {
    let items: Vec<serde_json::Value> = (0..20)
        .map(|i| serde_json::json!({"id": format!("{i}"), "content": "x".repeat(150), "status": "pending"}))
        .collect();
    let input = serde_json::Value::Array(items).to_string();
    for (name, make) in [
        (
            "loop/allow",
            Box::new(|| run::trace("loop", "allow", Lang::En).unwrap())
                as Box<dyn Fn() -> run::Trace>,
        ),
        ("validate/valid", Box::new(|| run::trace("validate", "valid", Lang::En).unwrap())),
        (
            "validate 20x150",
            Box::new(move || run::trace_input("validate", &input, Lang::En).unwrap()),
        ),
    ] {
        let n = 200;
        let start = Instant::now();
        let mut last = None;
        for _ in 0..n {
            last = Some(make());
        }
        let whole = start.elapsed().as_secs_f64() / n as f64;
        let trace = last.unwrap();
        let start = Instant::now();
        for _ in 0..n {
            std::hint::black_box(predict::questions(&trace, Lang::En));
        }
        let asked = start.elapsed().as_secs_f64() / n as f64;
        println!(
            "{name}: trace {:.1} µs, of which questions {:.1} µs ({} steps)",
            whole * 1e6,
            asked * 1e6,
            trace.recording.steps.len()
        );
    }
}
