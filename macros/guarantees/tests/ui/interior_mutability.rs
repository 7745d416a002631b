// A parameter `&T` is frozen: it cannot change while in scope, so no probe writes it twice. A
// `Cell` could, behind a shared reference: `recorder::frozen` refuses it at compile time.
use std::cell::Cell;

#[todo_trace_macros::traced]
fn bump(count: &Cell<u32>) -> u32 {
    count.set(count.get() + 1);
    count.get()
}

fn main() {
    bump(&Cell::new(0));
}
