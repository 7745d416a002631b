// `let more = count;` moves `count` unless it is `Copy`. Its declaration (a call's result) does
// not tell, so the probe asserts `not_copy(&count)`: a `usize` fails it, and a `Copy` value can
// never be shown as moved.
#[todo_trace_macros::traced]
fn add(items: &[u32]) -> usize {
    let count = items.len();
    let more = count;
    count + more
}

fn main() {
    add(&[1]);
}
