// A traced function compiles outside the todo-trace crate, runs as a plain function, and records
// one step per statement it runs, each on a line its `STEP_LINES` lists.
use todo_trace::recorder::record;
// (The line numbers below are asserted: keep this file's lines where they are.)

#[todo_trace_macros::traced(host(entries = list))]
fn collect(count: u32) -> Vec<u32> {
    let mut list = Vec::new();
    for n in 0..count {
        list.push(n * 2);
    }
    let kept = list;
    kept
}

#[todo_trace_macros::listed]
fn entry() -> usize {
    collect(2).len()
}

fn main() {
    assert_eq!(collect(3), [0, 2, 4]);
    assert_eq!(entry(), 2);
    assert_eq!(collect::LINES, (7, 14));
    assert_eq!(collect::STEP_LINES, [8, 9, 10, 12, 13]);
    assert_eq!(entry::LINES, (17, 19));
    let (recording, value) = record("collect", &[], || collect(2));
    assert_eq!(value, [0, 2]);
    let lines: Vec<u32> = recording.steps.iter().map(|step| step.line).collect();
    // The call's first step, the `for` (one probe, before the loop), its body twice, the move, the
    // tail, then the return, at the last line run.
    assert_eq!(lines, [8, 9, 10, 10, 12, 13, 13]);
}
