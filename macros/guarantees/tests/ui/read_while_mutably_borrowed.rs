// A binding lent out mutably while a later statement still uses the loan: the probe between them
// reads it, which the borrow checker refuses, so no probe can see a value in mid-change.
#[todo_trace_macros::traced]
fn grow(mut list: Vec<u32>) -> usize {
    let end = &mut list;
    end.push(1);
    list.len()
}

fn main() {
    grow(vec![1]);
}
