//! Trace time per step, natively: each loop scenario against validate/valid (medians of 41 runs),
//! each trace recorded and written as the page gets it (serde_json, as the page gets it).
use std::time::Instant;
use todo_trace::host::run::trace;
use todo_trace::lesson::Lang;

fn per_step(figure: &str, scenario: &str) -> (f64, usize) {
    let mut times: Vec<f64> = Vec::new();
    let mut steps = 0;
    for _ in 0..41 {
        let start = Instant::now();
        let t = trace(figure, scenario, Lang::En).unwrap();
        let json = serde_json::to_string(&t).unwrap();
        times.push(start.elapsed().as_secs_f64() * 1e6);
        steps = t.recording.steps.len();
        std::hint::black_box(json);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2] / steps as f64, steps)
}

fn main() {
    let (base, steps) = per_step("validate", "valid");
    println!("validate/valid: {base:.2} us/step over {steps} steps");
    for id in ["allow", "deny", "maintenance", "budget", "skip", "claim", "rejected", "nag"] {
        let (cost, steps) = per_step("loop", id);
        println!("loop/{id}: {cost:.2} us/step over {steps} steps = {:.2}x", cost / base);
    }
}
