// `#[traced]` takes free functions only.
struct Plan;

impl Plan {
    #[todo_trace_macros::traced]
    fn size(&self) -> usize {
        0
    }
}

fn main() {}
