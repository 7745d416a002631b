// A move the macro does not see (into a call, into a struct): the next probe still reads the
// binding, which the borrow checker refuses, so the trace cannot show a moved value as present.
#[todo_trace_macros::traced]
fn hand_over(list: Vec<u32>) -> usize {
    let kept = Some(list);
    kept.map_or(0, |list| list.len())
}

fn main() {
    hand_over(vec![1]);
}
