//! The shortcuts for values made of values stored already, held to a full write: a binding made of a
//! traced call's value (`Hints::made`), a list pushed onto, and a value stored from its fields.

use super::tables::BYTES_WRITTEN;
use super::tests::{long_request, no_errors, writes, Echo, Noted};
use super::{Field, Snapshot};
use crate::lesson::agent_types::{tool_definitions, Model, Request, ToolDefinition};
use crate::lesson::types::Message;
use crate::lesson::Lang;
use todo_trace_macros::traced;

#[traced]
fn noted_list(first: u32) -> Vec<Noted> {
    let list: Vec<Noted> = (first..first + 8).map(Noted).collect();
    list
}

#[traced]
fn take_list(first: u32) -> usize {
    let list = noted_list(first);
    list.len()
}

/// `let list = noted_list(..);` takes the value the call returned, as stored at its return.
#[test]
fn a_binding_made_of_a_traced_call_s_value_is_not_written_again() {
    let (quick, every) = writes("take_list", || take_list(1));
    // The eight records once, at the callee's last step; not again in the caller.
    assert_eq!(quick, 8, "against {every} with every value");
}

#[traced]
fn take_nested(first: u32) -> usize {
    let list = noted_list(noted_list(first).len() as u32);
    list.len()
}

/// Two calls of the name returned to the statement: which one made the binding is not known, so
/// it is written (taking the first would show the inner call's records).
#[test]
fn a_binding_made_where_two_calls_of_the_name_returned_is_written() {
    let (quick, _) = writes("take_nested", || take_nested(1));
    assert_eq!(quick, 8 + 8 + 8);
}

#[traced]
fn checked(n: u32) -> Result<u32, String> {
    if n > 9 {
        return Err("too big".into());
    }
    Ok(n)
}

#[traced]
fn keep_result(n: u32) -> u32 {
    let outcome = checked(n);
    outcome.unwrap_or(0)
}

/// Without `?`, the binding is the whole `Result`, not the `Ok` value the call stored: a type the
/// call did not return is written (else the trace would show `3` for `{"Ok":3}`). An error stores
/// no value to take.
#[test]
fn a_binding_of_another_type_than_the_call_returned_is_written() {
    writes("keep_result", || keep_result(3));
    writes("keep_result", || keep_result(30));
}

#[traced]
fn prepared(count: usize) -> Result<Vec<Message>, String> {
    let messages = long_request(count).messages;
    Ok(messages)
}

#[traced]
fn tools_of() -> &'static [ToolDefinition; 3] {
    let tools = tool_definitions(Lang::En);
    tools
}

#[traced]
fn ask_prepared(model: &mut dyn Model, count: usize) -> Result<usize, String> {
    let request = Request { tools: tools_of(), messages: prepared(count)? };
    let reply = model.reply(&request).map_or(0, |reply| reply.len());
    Ok(reply)
}

/// The bytes of JSON a quick recording of `ask_prepared(count)` writes, after holding it to a full one.
fn written_asking(count: usize) -> usize {
    writes("ask_prepared", || ask_prepared(&mut Echo, count));
    BYTES_WRITTEN.with(|written| written.set(0));
    let settings = super::Settings::default();
    let run = || ask_prepared(&mut Echo, count);
    let (_, asked) = super::record_with("ask_prepared", &[], settings, no_errors, run);
    assert_eq!(asked, Ok(0));
    BYTES_WRITTEN.with(|written| written.get())
}

/// A request whose `messages` field a traced call made has them from that call's value: they are
/// written once, where the callee's step wrote them, not again as the request's. Its `tools`, made
/// by a traced call too, are not taken for the messages.
#[test]
fn a_request_made_of_a_traced_call_s_messages_does_not_write_them_again() {
    let messages = |count| serde_json::to_vec(&long_request(count).messages).unwrap().len();
    let more = written_asking(12) - written_asking(6);
    let once = messages(12) - messages(6);
    assert!(more < once * 3 / 2, "{more} bytes more for six more messages, {once} once");
    for count in [0, 1] {
        written_asking(count);
    }
}

#[traced]
fn ask_again(model: &mut dyn Model, times: usize) -> usize {
    let mut replies = 0;
    for _ in 0..times {
        let request = Request { tools: tool_definitions(Lang::En), messages: Vec::new() };
        replies += model.reply(&request).map_or(0, |reply| reply.len());
    }
    replies
}

/// The tool definitions are the same static value in every request (`Field::Static`): written at
/// the first request of a recording, not again at the next ones.
#[test]
fn the_tools_of_each_request_are_written_once_a_recording() {
    let written = |times| {
        writes("ask_again", || ask_again(&mut Echo, times));
        BYTES_WRITTEN.with(|written| written.set(0));
        let run = || ask_again(&mut Echo, times);
        super::record_with("ask_again", &[], super::Settings::default(), no_errors, run);
        BYTES_WRITTEN.with(|written| written.get())
    };
    let tools = serde_json::to_vec(tool_definitions(Lang::En)).unwrap().len();
    let more = written(3) - written(1);
    assert!(more < tools, "{more} bytes more for two more requests; the tools are {tools}");
}

#[traced]
fn noted_pair(first: u32) -> (Noted, Vec<Noted>) {
    let list: Vec<Noted> = (first..first + 8).map(Noted).collect();
    (Noted(first), list)
}

#[traced]
fn take_pair(first: u32) -> usize {
    let (one, list) = noted_pair(first);
    list.len() + one.0 as usize
}

/// `let (one, list) = noted_pair(..);` takes each element of the tuple the call returned, as stored
/// (by its parts) at its return.
#[test]
fn the_names_of_a_tuple_made_of_a_traced_call_s_value_are_not_written_again() {
    let (quick, every) = writes("take_pair", || take_pair(1));
    // `list` at its step in the callee (8), and the tuple it returned (9); nothing in the caller.
    assert_eq!(quick, 8 + 9, "against {every} with every value");
}

#[traced]
fn short_pair(first: u32) -> (u32, String) {
    (first, "short".into())
}

#[traced]
fn take_short_pair(first: u32) -> usize {
    let (n, text) = short_pair(first);
    text.len() + n as usize
}

/// A short tuple is stored whole, so its elements are no values of their own: they are written.
#[test]
fn the_names_of_a_short_tuple_are_written() {
    writes("take_short_pair", || take_short_pair(1));
}

#[test]
fn a_tuple_type_s_elements_are_found_by_place() {
    use super::parts::tuple_element;
    let ty = "(todo_trace::Block, core::option::Option<todo_trace::Warning>)";
    assert_eq!(tuple_element(ty, 0), Some("todo_trace::Block"));
    assert_eq!(tuple_element(ty, 1), Some("core::option::Option<todo_trace::Warning>"));
    assert_eq!(tuple_element(ty, 2), None);
    let nested = "(std::collections::HashMap<fn(u8) -> u8, (u8, u8)>, [u8; 2], ())";
    assert_eq!(tuple_element(nested, 0), Some("std::collections::HashMap<fn(u8) -> u8, (u8, u8)>"));
    assert_eq!(tuple_element(nested, 1), Some("[u8; 2]"));
    assert_eq!(tuple_element(nested, 2), Some("()"));
    assert_eq!(tuple_element("alloc::vec::Vec<u8>", 0), None);
    assert_eq!(tuple_element("()", 0), None);
}

#[traced]
fn push_each(count: u32) -> usize {
    let mut list = Vec::new();
    for n in 0..count {
        let noted = Noted(n);
        list.push(noted);
    }
    list.len()
}

/// `list.push(noted);` gives the list its entries before and the pushed binding's value, at the
/// next step (the next pass's first, or the one after the loop): once the list is stored by its
/// parts, each record is written once, where its binding is made, and the list not again.
#[test]
fn a_list_a_binding_is_pushed_onto_is_not_written_again() {
    let (eight, every) = writes("push_each", || push_each(8));
    let (sixteen, _) = writes("push_each", || push_each(16));
    // Under `PARTS_FROM` bytes (five records) a list is stored whole, its entries no values of their
    // own: the lists of two to six records are written (20 records).
    assert_eq!(eight, 8 + 20, "against {every} with every value");
    assert_eq!(sixteen - eight, 8);
}

#[traced]
fn push_onto_text(first: u32) -> usize {
    let mut text = String::new();
    let letter = char::from_digit(first % 10, 10).unwrap_or('x');
    text.push(letter);
    text.len()
}

/// A `String` pushed onto is no `Vec`: written, as any other binding.
#[test]
fn a_text_pushed_onto_is_written() {
    writes("push_onto_text", || push_onto_text(1));
}

/// What `gather` returns: how many records, and the list of them, moved in (as the loop's outcome
/// holds the history). Stored from its fields, as `Outcome` is.
struct Gathered {
    count: usize,
    list: Vec<Noted>,
}

#[derive(serde::Serialize)]
struct GatheredJson<'a> {
    count: usize,
    list: &'a [Noted],
}

impl Snapshot for Gathered {
    fn write_json(&self, out: &mut Vec<u8>) {
        GatheredJson { count: self.count, list: &self.list }.write_json(out);
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }

    fn fields(&self, visit: &mut dyn FnMut(&[Field<'_>])) -> bool {
        visit(&[Field::Value("count", &self.count), Field::List("list", &self.list)]);
        true
    }
}

#[traced(host(entries = list))]
fn gather(count: u32) -> Gathered {
    let mut list = Vec::new();
    for n in 0..count {
        list.push(Noted(n));
    }
    let count = list.len();
    Gathered { count, list }
}

#[traced(host(entries = list))]
fn gather_copy(count: u32) -> Gathered {
    let mut list = Vec::new();
    for n in 0..count {
        list.push(Noted(n));
    }
    let count = list.len();
    Gathered { count, list: list.clone() }
}

/// A returned value whose list field is the very list a host field's entries were taken from has
/// those entries, as the return step shows the host: its records are not written again. A copy of
/// the list is another list, and is written; so is a list too short to be stored by its parts.
#[test]
fn a_value_holding_the_host_s_list_is_stored_from_its_fields() {
    let (moved, every) = writes("gather", || gather(8));
    let (copied, _) = writes("gather_copy", || gather_copy(8));
    assert_eq!(
        copied - moved,
        8,
        "{moved} written, {copied} with a copy, {every} with every value"
    );
    for count in [0, 1, 2] {
        writes("gather", || gather(count));
    }
}
