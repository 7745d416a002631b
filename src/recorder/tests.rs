//! The recorder's unit tests: each shortcut held to a full write (`every_value`), and the scan of JSON text.

use super::trace::short_type_name;
use super::{record, ErrorInfo};
use crate::lesson::Lang;
use todo_trace_macros::traced;

/// `let b = a;` moves `a` only when `a` is not `Copy`: a shared reference and a number stay.
#[traced]
fn copies_and_moves(text: &str, count: usize) -> usize {
    let seen = text;
    let more = count;
    let words = vec![text];
    let kept = words;
    seen.len() + more + kept.len()
}

/// An entry that counts how often it is written (each test thread its own count).
struct Counted(u32);

thread_local! {
    static WRITTEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl serde::Serialize for Counted {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        WRITTEN.with(|written| written.set(written.get() + 1));
        self.0.serialize(serializer)
    }
}

#[traced(host(entries = list))]
fn grow(first: u32) -> usize {
    let mut list = vec![Counted(first), Counted(2)];
    list.push(Counted(3));
    list.len()
}

/// After `list.push(..)` only the new entry of the host's list is written; `every_value` writes
/// them all again, and both record the same entries.
#[test]
fn after_a_push_only_the_new_entry_is_written() {
    let run = |settings| {
        WRITTEN.with(|written| written.set(0));
        let (recording, _) = super::record_with("grow", &[], settings, no_errors, || grow(1));
        let last = recording.steps.last().unwrap();
        let entries: Vec<String> = recording
            .host_entries(last, "entries")
            .iter()
            .map(|entry| entry.get().to_string())
            .collect();
        (WRITTEN.with(|written| written.get()), entries)
    };
    let (quick, entries) = run(super::Settings::default());
    let (every, every_entries) = run(super::Settings { every_value: true, ..Default::default() });
    assert_eq!(entries, ["1", "2", "3"]);
    assert_eq!(entries, every_entries);
    // Both write the two entries once the list is bound; after the push, one entry against three.
    assert_eq!(every - quick, 2, "{quick} written, against {every} with every value");
}

/// Records `run` quickly and with `every_value`: how many `Counted` and `Noted` values each wrote,
/// after asserting that both recorded the very same trace.
pub(super) fn writes<T>(target: &'static str, run: impl Fn() -> T) -> (usize, usize) {
    let record = |settings| {
        WRITTEN.with(|written| written.set(0));
        let (recording, _) = super::record_with(target, &[], settings, no_errors, &run);
        (WRITTEN.with(|written| written.get()), serde_json::to_string(&recording).unwrap())
    };
    let (quick, quick_trace) = record(super::Settings::default());
    let (every, every_trace) = record(super::Settings { every_value: true, ..Default::default() });
    assert_eq!(quick_trace, every_trace);
    (quick, every)
}

#[traced(host(entries = list))]
fn gather(rounds: u32) -> usize {
    let mut list = vec![Counted(0)];
    let mut round = 0;
    loop {
        if round == rounds {
            return list.len();
        }
        round += 1;
        list.push(Counted(round));
    }
}

/// A push at the end of a loop's body is still the last thing done to the list when the next
/// pass starts: the pass's first step writes only the new entry.
#[test]
fn after_a_push_that_ends_a_pass_only_the_new_entry_is_written() {
    let (quick, _) = writes("gather", || gather(3));
    // The first entry once it is bound, then each new one; without the shortcut, 1 + 2 + 3 + 4.
    assert_eq!(quick, 1 + 3);
}

#[traced(host(entries = list))]
fn refill(mut n: u32) -> usize {
    let mut list = vec![Counted(1)];
    while std::mem::replace(&mut list[0], Counted(n)).0 < 30 {
        n += 10;
        list.push(Counted(n));
    }
    list.len()
}

/// A loop's header runs between a pass's push and the next pass, and here changes an entry the
/// list had: the push's shortcut is not taken there (or the trace would show the old entry).
#[test]
fn a_loop_header_that_changes_the_list_keeps_the_push_from_its_shortcut() {
    writes("refill", || refill(0));
}

#[traced(host(entries = list))]
fn hand_over(last: u32) -> usize {
    let mut list = vec![Counted(1), Counted(2)];
    list.push(Counted(last));
    let seen = count_entries(&list);
    seen + set_first(&mut list) + count_entries(&list)
}

#[traced(host(entries = list))]
fn count_entries(list: &[Counted]) -> usize {
    let count = list.len();
    count
}

/// Not traced: it changes the list, in place, without a step of its own.
fn set_first(list: &mut [Counted]) -> usize {
    list[0] = Counted(9);
    0
}

/// A callee that reads, through a shared reference, the very list its caller's latest step took
/// the entries of (as `prepare_messages` reads the history): its first step takes the caller's
/// entries, and its local is those entries, so nothing of the list is written again. Not so where
/// the caller's statement also lends the list out to be changed (`set_first(&mut list)`, which runs
/// first): there the entries are taken again, and the trace shows the changed one.
#[test]
fn a_list_handed_on_unchanged_is_not_written_again() {
    let (quick, every) = writes("hand_over", || hand_over(3));
    // Three entries fewer at `count_entries`' first step (its local is the entries either way).
    assert_eq!(every - quick, 14, "{quick} written, against {every}");
}

#[derive(serde::Serialize)]
struct Tally {
    n: u32,
    seen: Vec<Counted>,
}

fn double(n: u32) -> u32 {
    n * 2
}

fn bump(n: &mut u32) {
    *n += 1;
}

#[traced]
fn tally(start: u32) -> u32 {
    let mut tally = Tally { n: start, seen: vec![Counted(start)] };
    let first = double(tally.n);
    bump(&mut tally.n);
    first + tally.n
}

/// A statement that reads a field as a value (`double(tally.n)`) cannot change the binding: the
/// next step does not write it again. One that lends the field out (`bump(&mut tally.n)`) can,
/// and the next step shows the change.
#[test]
fn a_field_read_as_a_value_leaves_its_binding_as_it_was() {
    let (quick, every) = writes("tally", || tally(1));
    // `tally` is written when bound and after the bump; with every value also after the read.
    assert_eq!((quick, every), (2, 3));
}

#[traced(host(entries = list))]
fn move_then_hand(last: u32) -> usize {
    let list = vec![Counted(1), Counted(2), Counted(last)];
    let mut moved = list;
    moved[0] = Counted(9);
    count_entries(&moved)
}

/// The list moved away to another binding is the same list (the same span) but no longer the
/// host field's binding: changed through the other, it is taken again where it is handed on.
#[test]
fn a_list_moved_away_is_not_vouched_for() {
    writes("move_then_hand", || move_then_hand(3));
}

/// A record long enough that eight of them are written by their parts; counted as `Counted` is.
#[derive(Clone)]
pub(super) struct Noted(pub(super) u32);

impl serde::Serialize for Noted {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        WRITTEN.with(|written| written.set(written.get() + 1));
        let mut noted = serializer.serialize_struct("Noted", 2)?;
        noted.serialize_field("n", &self.0)?;
        noted.serialize_field("text", &"x".repeat(80))?;
        noted.end()
    }
}

#[traced]
fn relabel(list: &[Noted], first: u32) -> Vec<Noted> {
    let mut copy = list.to_vec();
    copy[0] = Noted(first);
    copy
}

/// A copy takes its original's value, a list changed at one element has only that element written,
/// and a binding returned as it is is not written again.
#[test]
fn a_copy_one_element_and_a_returned_binding_are_not_written_again() {
    let list: Vec<Noted> = (1..9).map(Noted).collect();
    let (quick, every) = writes("relabel", || relabel(&list, 0));
    // The list's eight records, then the new first one; every step and the return write them all.
    assert_eq!(quick, 8 + 1, "against {every} with every value");
}

#[traced]
fn shadow(item: u32, pick: Option<u32>) -> u32 {
    let mut total = item;
    match pick {
        Some(item) => {
            total += item;
        }
        _ => {
            total += 1;
        }
    }
    total
}

/// The first step in a `match` arm's block sees what the scrutinee and the patterns did, not the
/// whole statement: an arm's binding that shadows a local is written there, as the new one.
#[test]
fn a_binding_of_a_match_arm_is_written_at_the_arm_s_first_step() {
    writes("shadow", || shadow(1, Some(5)));
    let (recording, _) = record("shadow", &[], || shadow(1, Some(5)));
    let items = recording.steps.iter().flat_map(|step| recording.locals(step));
    let items: Vec<_> = items.filter(|l| l.name == "item").filter_map(|l| l.value).collect();
    assert!(items.iter().any(|item| item.get() == "5"), "{items:?}");
}

/// A model that only has its request noted.
pub(super) struct Echo;

impl crate::lesson::agent_types::Model for Echo {
    fn reply(
        &mut self,
        request: &crate::lesson::agent_types::Request,
    ) -> Result<Vec<crate::lesson::types::Block>, crate::lesson::agent_types::ModelError> {
        super::request(request);
        Ok(Vec::new())
    }

    fn describe(&self) -> std::borrow::Cow<'_, str> {
        "echo".into()
    }
}

/// Changes the request, then asks: the statement that calls this mentions `request`.
fn shorten_and_ask(
    request: &mut crate::lesson::agent_types::Request,
    model: &mut dyn crate::lesson::agent_types::Model,
) -> usize {
    request.messages.pop();
    model.reply(request).map_or(0, |reply| reply.len())
}

/// A request of `count` user messages, each long enough to be a value of its own.
pub(super) fn long_request(count: usize) -> crate::lesson::agent_types::Request {
    crate::lesson::agent_types::Request {
        tools: crate::lesson::agent_types::tool_definitions(Lang::En),
        messages: (0..count)
            .map(|n| crate::lesson::types::Message::user(&"q".repeat(90 + n)))
            .collect(),
    }
}

/// `run` recorded (with and without the shortcuts, which must agree), and how many messages each
/// request it noted holds.
fn requests_noted(target: &'static str, run: impl Fn() -> usize) -> (super::Recording, Vec<usize>) {
    writes(target, &run);
    let (recording, _) = record(target, &[], run);
    let sizes = recording.requests.iter().map(|r| r.messages.len()).collect();
    (recording, sizes)
}

#[traced]
fn ask_twice(model: &mut dyn crate::lesson::agent_types::Model, count: usize) -> usize {
    let mut request = long_request(count);
    let first = model.reply(&request).map_or(0, |reply| reply.len());
    let second = shorten_and_ask(&mut request, model);
    first + second
}

/// A request noted while the latest step's value of the local it is can stand for it (the
/// first), and one changed by the statement running since (the second): both as written in full.
#[test]
fn a_request_is_noted_from_the_local_only_while_that_is_unchanged() {
    let (recording, sizes) = requests_noted("ask_twice", || ask_twice(&mut Echo, 6));
    assert_eq!(sizes, [6, 5]);
    // The first is the local's value, by its parts (the second's messages are a value of their own).
    let local = recording.steps[1].values[2].unwrap();
    let parts: serde_json::Value =
        serde_json::from_str(recording.values[local as usize].get()).unwrap();
    assert!(recording.parts.contains(&local));
    assert_eq!(Some(u64::from(recording.requests[0].tools)), parts["tools"].as_u64());
}

/// A request local is stored from its parts (`Tables::request`), not from its text: what is
/// stored is its whole text all the same, whether its messages are stored by their parts, whole,
/// or are none.
#[test]
fn a_request_stored_from_its_parts_is_its_whole_text() {
    for count in [6, 1, 0] {
        let (recording, _) = requests_noted("ask_twice", || ask_twice(&mut Echo, count));
        let local = recording.steps[1].values[2].unwrap();
        let mut whole = Vec::new();
        super::Snapshot::write_json(&long_request(count), &mut whole);
        let by_parts = recording.parts.binary_search(&local).is_ok();
        assert_eq!(
            by_parts,
            super::parts::split(&whole).is_some(),
            "as `store` would, {count} messages"
        );
        let whole = String::from_utf8(whole).unwrap();
        assert_eq!(recording.value(local).get(), whole, "{count} messages");
    }
}

#[traced]
fn ask_while(model: &mut dyn crate::lesson::agent_types::Model, count: usize) -> usize {
    let mut request = long_request(count);
    let mut asked = 0;
    while asked < 2 && shorten_and_ask(&mut request, model) == 0 {
        asked += 1;
    }
    asked
}

/// A loop's condition runs after the pass's last statement, which does not mention what the
/// condition changes: a request noted there is written in full.
#[test]
fn a_request_noted_in_a_loop_condition_is_written_in_full() {
    let (_, sizes) = requests_noted("ask_while", || ask_while(&mut Echo, 6));
    assert_eq!(sizes, [5, 4]);
}

#[traced]
fn steal(first: u32) -> Vec<Noted> {
    let mut list: Vec<Noted> = (1..9).map(Noted).collect();
    list[0] = std::mem::replace(&mut list[7], Noted(first));
    list
}

/// An assignment to one element whose value changes another one (through `list`, which it
/// mentions) has the whole list written again: the trace shows the new last record.
#[test]
fn an_element_set_from_the_list_itself_has_the_list_written_again() {
    let (quick, _) = writes("steal", || steal(0));
    // The list once bound, and again after the assignment: nothing more when it is returned.
    assert_eq!(quick, 8 + 8);
}

#[test]
fn only_a_real_move_is_shown_as_moved() {
    let (recording, total) = record("copies_and_moves", &[], || copies_and_moves("ab", 1));
    assert_eq!(total, 4);
    let last = recording.steps.last().unwrap();
    let locals = recording.locals(last);
    let moved: Vec<&str> = locals.iter().filter(|l| l.value.is_none()).map(|l| l.name).collect();
    assert_eq!(moved, ["words"]);
    assert!(locals
        .iter()
        .any(|l| l.name == "text" && l.value.as_ref().map(|v| v.get()) == Some("\"ab\"")));
    assert!(locals
        .iter()
        .any(|l| l.name == "count" && l.value.as_ref().map(|v| v.get()) == Some("1")));
}

/// A long list of records, and an object holding one, are stored as their parts' indices, each part
/// once, and read back as the very text serde_json wrote; what [`super::parts::split`] leaves whole stays so.
#[test]
fn long_lists_of_records_are_stored_by_their_parts() {
    use super::read::plain;
    use super::tables::Tables;
    use serde_json::json;
    let text = |value: &serde_json::Value| serde_json::to_vec(value).unwrap();
    let whole = |tables: &Tables, index: u32| {
        let mut out = Vec::new();
        plain(&tables.done, index, &mut out);
        out
    };
    // Strings with the scanner's pitfalls: quotes, backslashes, brackets and commas, text outside ASCII.
    let message = |n: usize| json!({"role": "user", "content": format!("{n}: \"a\\\" ], {{ [读取] {}", "x".repeat(60))});
    let history: Vec<_> = (0..8).map(message).collect();
    let request = json!({"tools": [], "messages": history, "n": 1.5});
    let mut tables = Tables::default();
    let first = tables.store(&text(&message(0)), None);
    let list = tables.store(&text(&json!(history)), None);
    let object = tables.store(&text(&request), None);
    let values = &tables.done.values;
    assert_eq!(tables.done.parts, [list, object]);
    assert_eq!(values[list as usize].get(), format!("[{first},1,2,3,4,5,6,7]"));
    assert_eq!(values[object as usize].get(), format!(r#"{{"tools":9,"messages":{list},"n":10}}"#));
    assert_eq!(whole(&tables, list), text(&json!(history)));
    assert_eq!(whole(&tables, object), text(&request));
    // Each one's whole length is known without writing it out.
    let known = |index: u32| tables.stored[index as usize].whole;
    assert_eq!([list, object].map(known), [list, object].map(|index| whole(&tables, index).len()));
    // The same text again is the same value, with or without a hint.
    assert_eq!(tables.store(&text(&request), None), object);
    assert_eq!(tables.store(&text(&json!(history)), Some(list)), list);
    assert_eq!(tables.list_value(&[first, 1, 2, 3, 4, 5, 6, 7], None), list);
    // Short lists, long lists of numbers and objects without such a list are stored whole.
    let count = tables.done.parts.len();
    for value in [json!(history[..2]), json!(vec![12345; 200]), json!({"a": "x".repeat(600)})] {
        let index = tables.store(&text(&value), None);
        assert_eq!(tables.done.values[index as usize].bytes(), text(&value));
    }
    assert_eq!(tables.done.parts.len(), count);
    // A list of two numbers written whole is not the list written by the parts 2 and 3.
    let by_parts = tables.intern(b"[2,3]", Some(&[2, 3]), None);
    let two = tables.store(b"[2,3]", Some(by_parts));
    assert!(two != by_parts && !tables.done.parts.contains(&two));
}

/// One element of a list stored by its parts, and one field of an object, whether stored by its parts
/// or whole, are read without putting the rest together: as serde_json would read them, also where
/// the field's name appears inside a string before it.
#[test]
fn an_element_and_a_field_are_read_from_where_they_are_stored() {
    use super::tables::Tables;
    use serde_json::json;
    let text = |value: &serde_json::Value| serde_json::to_vec(value).unwrap();
    let content = format!(r#"{} "is_error":true, ], {{ [读取]"#, "x".repeat(600));
    let block =
        json!({"type": "tool_result", "tool_use_id": "c1", "content": content, "is_error": false});
    let result = json!([block, {"code": "path_refused"}]);
    let mut tables = Tables::default();
    let tuple = tables.store(&text(&result), None);
    let done = &tables.done;
    assert!(done.parts.contains(&tuple));
    let (first, second) = (done.element(tuple, 0).unwrap(), done.element(tuple, 1).unwrap());
    // The block has no field that is split, so it is stored whole, as written.
    assert!(!done.parts.contains(&first));
    assert_eq!(done.values[first as usize].bytes(), text(&block));
    assert_eq!(done.field(first, "is_error").unwrap().get(), "false");
    assert_eq!(done.field(first, "content").unwrap().get(), json!(content).to_string());
    assert_eq!(done.field(second, "code").unwrap().get(), r#""path_refused""#);
    assert!(done.element(tuple, 2).is_none() && done.element(first, 0).is_none());
    assert!(done.field(first, "missing").is_none() && done.field(tuple, "is_error").is_none());
    // An object stored by its parts gives its field whole.
    let outer = tables.store(&text(&json!({"result": result, "n": 1})), None);
    assert_eq!(tables.done.field(outer, "result").unwrap().get().as_bytes(), text(&result));
}

/// A list made from stored entries (a host field's) is stored as `store` stores the same text,
/// whole or by its parts, also at exactly [`super::parts::PARTS_FROM`] bytes.
#[test]
fn a_list_of_entries_is_stored_as_its_text_is() {
    use super::parts::PARTS_FROM;
    use super::tables::Tables;
    for pad in 0..24 {
        // Two records; `pad` moves their joined text across PARTS_FROM a byte at a time.
        let record = |n: usize| format!(r#"{{"n":{n},"s":"{}"}}"#, "x".repeat(240 + (pad + n) / 2));
        let joined = format!("[{},{}]", record(1), record(2));
        let (mut by_entries, mut by_text) = (Tables::default(), Tables::default());
        let entries = [record(1), record(2)].map(|r| by_entries.store(r.as_bytes(), None));
        let list = by_entries.list_value(&entries, None);
        let same = by_text.store(joined.as_bytes(), None);
        assert_eq!(
            by_entries.done.parts.contains(&list),
            by_text.done.parts.contains(&same),
            "{} bytes (split from {PARTS_FROM})",
            joined.len()
        );
    }
}

/// `string_end` finds the closing quote wherever it and the escapes before it fall in a word.
#[test]
fn string_end_finds_the_closing_quote_at_every_place() {
    let naive = |text: &[u8], mut i: usize| loop {
        match text.get(i) {
            None => return i,
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            Some(_) => i += 1,
        }
    };
    for len in 0..20 {
        for escape in 0..len {
            let mut text = vec![b'a'; len];
            text[escape] = b'\\';
            // An escaped quote, a quote after an escaped backslash, and an unclosed string.
            for (k, next) in [b'"', b'\\', b'b'].into_iter().enumerate() {
                let mut text = text.clone();
                if escape + 1 < len {
                    text[escape + 1] = next;
                }
                text.extend_from_slice(if k == 2 { b"" } else { b"x\"y" });
                assert_eq!(super::parts::string_end(&text, 0), naive(&text, 0), "{text:?}");
            }
        }
    }
}

#[test]
fn same_bytes_compares_every_byte() {
    let text: Vec<u8> = (0..40).collect();
    for len in 0..text.len() {
        assert!(super::tables::same_bytes(&text[..len], &text[..len]));
        assert!(!super::tables::same_bytes(&text[..len], &text[..len + 1]));
        for at in 0..len {
            let mut other = text[..len].to_vec();
            other[at] ^= 1;
            assert!(!super::tables::same_bytes(&text[..len], &other), "{len} {at}");
        }
    }
}

#[test]
fn type_names_lose_their_paths() {
    assert_eq!(short_type_name("&alloc::vec::Vec<serde_json::value::Value>"), "&Vec<Value>");
    assert_eq!(
        short_type_name("serde_json::map::Map<alloc::string::String, serde_json::value::Value>"),
        "Map<String, Value>"
    );
    assert_eq!(short_type_name("(usize, &str)"), "(usize, &str)");
    assert_eq!(short_type_name("&mut todo_trace::lesson::types::State"), "&mut State");
    assert_eq!(short_type_name(""), "");
}

/// The tests' functions return no errors the recorder would have to word.
pub(super) fn no_errors(_: &dyn std::any::Any) -> ErrorInfo {
    ErrorInfo { code: "error", message: String::new(), line: None, column: None }
}

/// A list grown at its end from the list before (the history at each push) is the list written
/// from its entries alone: the same text, the same value.
#[test]
fn a_list_grown_at_its_end_is_the_list_written_anew() {
    use super::tables::Tables;
    let record = |n: usize| format!(r#"{{"n":{n},"s":"{}"}}"#, "x".repeat(100 + n));
    let mut tables = Tables::default();
    let entries: Vec<u32> = (0..12).map(|n| tables.store(record(n).as_bytes(), None)).collect();
    let mut previous = None;
    for end in 1..=entries.len() {
        let grown = tables.list_value(&entries[..end], previous);
        let mut fresh = Tables::default();
        let again: Vec<u32> = (0..end).map(|n| fresh.store(record(n).as_bytes(), None)).collect();
        let anew = fresh.list_value(&again, None);
        assert_eq!(
            tables.done.values[grown as usize].get(),
            fresh.done.values[anew as usize].get()
        );
        assert_eq!(tables.by_parts(grown), fresh.by_parts(anew), "{end} entries");
        previous = Some(grown);
    }
}

/// A long part that is one of the likely values (the current call's locals) is that value, found by
/// comparing it, and what is stored is the same as without the hint.
#[test]
fn a_part_that_is_a_likely_value_is_that_value() {
    use super::tables::Tables;
    use serde_json::json;
    let text = |value: &serde_json::Value| serde_json::to_vec(value).unwrap();
    let message = |n: usize| json!({"role": "user", "content": format!("{n}: {}", "x".repeat(90))});
    let history: Vec<_> = (0..8).map(message).collect();
    let outcome = json!({"stop": "answered", "history": history});
    let (mut hinted, mut plain_tables) = (Tables::default(), Tables::default());
    let list = hinted.store(&text(&json!(history)), None);
    plain_tables.store(&text(&json!(history)), None);
    hinted.likely = vec![list];
    let object = hinted.store(&text(&outcome), None);
    let same = plain_tables.store(&text(&outcome), None);
    assert_eq!(hinted.parts_of(object).map(|parts| parts[1]), Some(list));
    assert_eq!(
        hinted.done.values[object as usize].get(),
        plain_tables.done.values[same as usize].get()
    );
    assert_eq!(hinted.done.values.len(), plain_tables.done.values.len());
}
