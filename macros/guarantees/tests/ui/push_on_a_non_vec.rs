// `list.push(..);` on a host list tells the recorder the entries it had are unchanged, which holds
// for a `Vec`. The probe asserts `a_vec(&list)`, so a list type whose `push` could do anything
// does not compile.
use todo_trace::recorder::{HostList, Snapshot};

#[derive(serde::Serialize)]
struct Stack(Vec<u32>);

impl Stack {
    fn push(&mut self, value: u32) {
        self.0.insert(0, value);
    }
}

impl HostList for Stack {
    fn each(&self, from: usize, visit: &mut dyn FnMut(&dyn Snapshot)) {
        self.0.each(from, visit);
    }
    fn type_label(&self) -> &'static str {
        "Stack"
    }
    fn span(&self) -> (usize, usize, &'static str) {
        self.0.span()
    }
}

#[todo_trace_macros::traced(host(entries = list))]
fn grow(first: u32) -> usize {
    let mut list = Stack(vec![first]);
    list.push(2);
    list.0.len()
}

fn main() {
    grow(1);
}
