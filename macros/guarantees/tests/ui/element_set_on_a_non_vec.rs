// `list[0] = ..;` tells the recorder only that element changed, which holds for a `Vec`. The next
// probe asserts `a_vec(&list)`: a slice, whose indexing could be anything's, does not compile.
#[todo_trace_macros::traced]
fn reset(list: &mut [u32]) -> u32 {
    list[0] = 5;
    list[0]
}

fn main() {
    reset(&mut [1, 2]);
}
