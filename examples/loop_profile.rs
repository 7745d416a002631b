//! Runs loop/rejected many times, for a profiler.
use todo_trace::lesson::Lang;
fn main() {
    for _ in 0..3000 {
        let t = todo_trace::run::trace("loop", "rejected", Lang::En).unwrap();
        std::hint::black_box(serde_json::to_string(&t).unwrap());
    }
}
