// The attributes' arguments: `#[listed]` takes none; `#[traced]` takes `host(key = binding.field)`.
#[todo_trace_macros::listed(host(items = state.items))]
fn entry() {}

#[todo_trace_macros::traced(host(items = state.items()))]
fn call(state: Vec<u32>) -> usize {
    state.len()
}

#[todo_trace_macros::traced(items = state.items)]
fn other(state: Vec<u32>) -> usize {
    state.len()
}

fn main() {}
