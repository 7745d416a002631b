//! A long recorded run's trace time natively (median of 31), and how much of it is writing the JSON:
//! `BENCH_SAVE_RUN=/tmp/long-run.json node bench/run-file.mjs`, then
//! `cargo run --release --example long_run /tmp/long-run.json`.
use std::time::Instant;
use todo_trace::host::run::trace_run;
use todo_trace::lesson::Lang;

fn main() {
    let path = std::env::args().nth(1).expect(
        "usage: long_run RUN_FILE (bench/run-file.mjs writes one with BENCH_SAVE_RUN=FILE)",
    );
    let bytes = std::fs::read(path).unwrap();
    let mut total = Vec::new();
    let mut write = Vec::new();
    let mut len = 0;
    for _ in 0..31 {
        let start = Instant::now();
        let t = trace_run(&bytes, Lang::En).unwrap();
        let mid = Instant::now();
        let json = serde_json::to_string(&t).unwrap();
        write.push((Instant::now() - mid).as_secs_f64() * 1e3);
        total.push(start.elapsed().as_secs_f64() * 1e3);
        len = json.len();
    }
    total.sort_by(f64::total_cmp);
    write.sort_by(f64::total_cmp);
    println!("total {:.2} ms, write {:.2} ms, {len} bytes", total[15], write[15]);
}
