//! A speed shortcut, kept apart from the core: long values stored by their parts.
//!
//! The loop figure's conversation grows at every model call, and each version of it (the history,
//! each prepared copy, each request) would be a value of up to 4 KB written out whole. A long list
//! of records, or an object holding one, is instead stored as the indices of its parts, each part a
//! value stored once: `loop/rejected` went from 222 KB to 138 KB of JSON (bench/tricks.md). The
//! text is scanned, not parsed: a value is JSON serde_json wrote, so the scan only has to find where
//! each element or field ends. Once the recording is done, a list that starts as a recent one does
//! is written as the rest (`grow_lists`). `www/api.js` makes such values whole again.

use std::ops::Range;

use super::probe::{Field, Snapshot, Span};
use super::read::plain;
use super::tables::{same_bytes, text_hash, Tables};
use super::trace::{in_common, type_label, Grown, Json};

/// `[a,b]`, each entry written by `write`.
pub(super) fn each<T>(out: &mut Vec<u8>, entries: &[T], mut write: impl FnMut(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, entry);
    }
    out.push(b']');
}

/// `"key":`, a field's key as serde_json writes an identifier.
pub(super) fn key(name: &str) -> Vec<u8> {
    format!("\"{name}\":").into_bytes()
}

/// A value index (or a line) as JSON: up to four digits, one copy of a known length, where itoa and a
/// call to memcpy for each number were 7% of a 100-call run's trace natively. Inlined: the module's
/// inline threshold is low (.cargo/config.toml), and a call per number cost as much as its digits.
#[inline]
pub(super) fn number(out: &mut Vec<u8>, n: u64) {
    let digit = |unit: u64| b'0' + (n / unit % 10) as u8;
    match n {
        0..=9 => out.push(digit(1)),
        10..=99 => out.extend_from_slice(&[digit(10), digit(1)]),
        100..=999 => out.extend_from_slice(&[digit(100), digit(10), digit(1)]),
        1000..=9999 => out.extend_from_slice(&[digit(1000), digit(100), digit(10), digit(1)]),
        _ => out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes()),
    }
}

impl Tables {
    /// The parts of a request stored by its parts (`{"tools":3,"messages":4}`, the messages by theirs
    /// too): the tools' index, and each message's. `None` if it is not stored so.
    pub(super) fn request_indices(&self, index: u32) -> Option<(u32, Vec<u32>)> {
        let (tools_key, messages_key) = self.request_keys.as_ref()?;
        let text = self.done.values[index as usize].bytes();
        let fields = children(text).filter(|_| self.by_parts(index))?;
        let [tools, messages] = &fields[..] else { return None };
        let named = |part: &Part, key: &[u8]| &text[part.key.clone()] == key;
        if !named(tools, tools_key) || !named(messages, messages_key) {
            return None;
        }
        let messages = index_at(&text[messages.value.clone()]);
        let tools = index_at(&text[tools.value.clone()]);
        Some((tools, self.parts_of(messages)?.to_vec()))
    }

    /// The index of element `at` of the tuple stored as `tuple`, of type `ty`, if that element's
    /// type is `element_ty` and the tuple is stored by its parts (a tuple is written as a list:
    /// `[{..},null]`); `None` otherwise, and the element is written.
    pub(super) fn element_of(
        &self,
        tuple: u32,
        ty: &str,
        at: usize,
        element_ty: &str,
    ) -> Option<u32> {
        let parts = self.parts_of(tuple)?;
        if tuple_element(ty, at)? != element_ty {
            return None;
        }
        parts.get(at).copied()
    }

    /// The index of list `list`, of type `list_ty`, after `element` (an index, and its value's type)
    /// was pushed onto it: the list's entries and the element's index, if the list is a `Vec` of
    /// the element's type stored by its parts, or empty; `None` otherwise, and the list is written.
    pub(super) fn pushed(
        &mut self,
        list: u32,
        (element, element_ty): (u32, &str),
        list_ty: &str,
    ) -> Option<u32> {
        let of = list_ty.strip_prefix("alloc::vec::Vec<")?.strip_suffix('>')?;
        if of != element_ty {
            return None;
        }
        let mut entries = match self.parts_of(list) {
            Some(parts) => parts.to_vec(),
            None if self.done.values[list as usize].bytes() == b"[]" => Vec::new(),
            None => return None,
        };
        entries.push(element);
        Some(self.list_value(&entries, Some(list)))
    }

    /// The index of list `value` (stored as `previous`, by its parts) after only its element `at`
    /// changed to `element`: the element is written, the others' indices kept. `value` is written
    /// whole if `previous` is not stored by its parts (or has no such element).
    pub(super) fn element_changed(
        &mut self,
        previous: u32,
        at: usize,
        element: &dyn Snapshot,
        value: &dyn Snapshot,
    ) -> u32 {
        let mut entries = self.parts_of(previous).map(<[u32]>::to_vec).unwrap_or_default();
        if at >= entries.len() {
            return self.value(value, Some(previous));
        }
        entries[at] = self.value(element, Some(entries[at]));
        self.list_value(&entries, Some(previous))
    }

    /// The index of a list whose entries are stored already (a host field's), without writing it again:
    /// by its entries' indices if [`split`] would split its text, else their texts joined, as serde_json
    /// writes a sequence.
    pub(super) fn list_value(&mut self, entries: &[u32], previous: Option<u32>) -> u32 {
        let by_parts = self.list_splits(entries);
        let values = &self.done.values;
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        // A list grown at its end (the history, at each push) is the text it had and the new indices.
        let grown = previous.filter(|_| by_parts).and_then(|previous| {
            let old = self.parts_of(previous).filter(|old| entries.starts_with(old))?;
            Some((values[previous as usize].bytes(), old.len()))
        });
        if let Some((old, kept)) = grown.filter(|&(_, kept)| kept > 0) {
            text.extend_from_slice(&old[..old.len() - 1]);
            for &entry in &entries[kept..] {
                text.push(b',');
                number(&mut text, entry.into());
            }
            text.push(b']');
        } else if by_parts {
            each(&mut text, entries, |out, &entry| number(out, entry.into()));
        } else {
            each(&mut text, entries, |out, &entry| plain(&self.done, entry, out));
        }
        // Not noted by its whole text's hash, as a value `store` splits is: that took writing the whole
        // list out at each push onto the history, and only the run's outcome, once, wrote it whole again
        // (`prepare_messages` reads it as the host's entries, `settled`).
        let index = self.intern(&text, by_parts.then_some(entries), previous);
        self.scratch = text;
        index
    }

    /// Whether a list of these entries (stored values) is stored by its parts, as [`split`] would
    /// split its text.
    fn list_splits(&self, entries: &[u32]) -> bool {
        let values = &self.done.values;
        let first_object =
            entries.first().is_some_and(|&first| values[first as usize].bytes()[0] == b'{');
        // An entry written by its parts is itself at least `PARTS_FROM` bytes long; else the list's text
        // is the entries', a comma after each but the last, and the two brackets.
        let long = || {
            entries.iter().any(|&entry| self.by_parts(entry))
                || entries
                    .iter()
                    .map(|&entry| values[entry as usize].bytes().len() + 1)
                    .sum::<usize>()
                    + 1
                    >= PARTS_FROM
        };
        first_object && long()
    }

    /// The index of a model request, from its fields ([`Tables::request_entries`]); `None` if `value`
    /// is not one.
    pub(super) fn request(
        &mut self,
        value: &dyn Snapshot,
        history: &[u32],
        previous: Option<u32>,
    ) -> Option<u32> {
        let ((tools_key, tools), (messages_key, entries)) = self.request_entries(value, history)?;
        let messages = self.list_value(&entries, None);
        Some(self.request_value((tools_key, tools), (messages_key, messages), previous))
    }

    /// The index of a model request whose messages are a value stored already, `messages` with its
    /// type (a traced call's return value, `Hints::made`): only its tools are written. `None` if
    /// `value` is not a request, its field `field` is not the messages, of that type, or they are
    /// not stored by their parts.
    pub(super) fn request_made(
        &mut self,
        value: &dyn Snapshot,
        field: &str,
        (messages, ty): (u32, &'static str),
        previous: Option<u32>,
    ) -> Option<u32> {
        // Stored whole (a short list), the messages are not values of their own yet, and writing the
        // request would make them so, here: it is written, or the next values' indices would differ.
        // Stored by their parts, each is one already, as writing the request would find it.
        self.parts_of(messages)?;
        let mut index = None;
        value.fields(&mut |fields| {
            let [Field::Static(tools_key, tools), Field::List(key, list)] = *fields else { return };
            if key != field || list.type_label() != type_label(ty) {
                return;
            }
            let tools_index = self.static_value(tools);
            index = Some(self.request_value((tools_key, tools_index), (key, messages), previous));
        });
        index
    }

    /// A request from its two fields, each its key and its value's index; their keys kept for
    /// [`Tables::request_indices`].
    fn request_value(
        &mut self,
        (tools_key, tools): (&str, u32),
        (messages_key, messages): (&str, u32),
        previous: Option<u32>,
    ) -> u32 {
        let (tools_key, messages_key) = (key(tools_key), key(messages_key));
        let fields = [(&tools_key[..], tools), (&messages_key[..], messages)];
        let index = self.object_value(&fields, previous);
        self.request_keys = Some((tools_key, messages_key));
        index
    }

    /// A model request's two fields ([`Snapshot::fields`]), each with its key: the tools (the same
    /// static value in every request) and its messages' entries, each most likely the stored
    /// `history`'s at its place. `None` if `value` is not a request.
    pub(super) fn request_entries(
        &mut self,
        value: &dyn Snapshot,
        history: &[u32],
    ) -> Option<RequestFields> {
        let mut found = None;
        value.fields(&mut |fields| {
            let [Field::Static(tools_key, tools), Field::List(messages_key, messages)] = *fields
            else {
                return;
            };
            let tools = self.static_value(tools);
            found = Some(((tools_key, tools), (messages_key, self.entries(messages, history, 0))));
        });
        found
    }

    /// The index of a value stored from its fields ([`Snapshot::fields`]) whose lists are lists a
    /// host field's entries were taken from, as `taken` finds them by their span: the loop's outcome,
    /// which holds the history and the plan. Those lists are not written again; the other fields
    /// are. Taken only where every list is such a list and one is long enough to be stored by its
    /// parts, so that writing the value whole would have stored it by these same parts, in this
    /// order; elsewhere `None`, and the value is written whole.
    pub(super) fn object<'h>(
        &mut self,
        value: &dyn Snapshot,
        taken: &dyn Fn(Span) -> Option<&'h [u32]>,
    ) -> Option<u32> {
        let mut index = None;
        value.fields(&mut |fields| {
            let mut lists = Vec::new();
            for field in fields {
                if let Field::List(_, list) = *field {
                    let Some(entries) = taken(list.span()) else { return };
                    lists.push(entries);
                }
            }
            if !lists.iter().any(|entries| self.list_splits(entries)) {
                return;
            }
            let mut lists = lists.into_iter();
            let mut parts = Vec::with_capacity(fields.len());
            for field in fields {
                let (name, part) = match *field {
                    Field::Value(name, value) => (name, self.value(value, None)),
                    Field::Static(name, value) => (name, self.static_value(value)),
                    Field::List(name, _) => {
                        (name, self.list_value(lists.next().unwrap_or_default(), None))
                    }
                };
                parts.push((key(name), part));
            }
            let parts: Vec<(&[u8], u32)> =
                parts.iter().map(|(key, part)| (&key[..], *part)).collect();
            index = Some(self.object_value(&parts, None));
        });
        index
    }

    /// The index of an object whose fields are stored already (each `"name":` and its index), without
    /// writing it again: by its fields' indices if [`split`] would split its text, else their texts
    /// joined, as serde_json writes an object.
    pub(super) fn object_value(&mut self, fields: &[(&[u8], u32)], previous: Option<u32>) -> u32 {
        // A field is split where its value is stored by its parts; the text is each name and value, a
        // comma after each but the last, and the two braces.
        let length = |index: u32| self.stored[index as usize].whole;
        let whole =
            1 + fields.iter().map(|&(key, index)| key.len() + length(index) + 1).sum::<usize>();
        let split_field = fields.iter().any(|&(_, index)| self.by_parts(index));
        let by_parts = whole >= PARTS_FROM && split_field;
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        text.push(b'{');
        for (k, &(key, index)) in fields.iter().enumerate() {
            if k > 0 {
                text.push(b',');
            }
            text.extend_from_slice(key);
            if by_parts {
                number(&mut text, index.into());
            } else {
                plain(&self.done, index, &mut text);
            }
        }
        text.push(b'}');
        let indices = by_parts.then(|| fields.iter().map(|&(_, index)| index).collect::<Vec<_>>());
        let index = self.intern(&text, indices.as_deref(), previous);
        self.scratch = text;
        index
    }

    /// The index of a value's JSON `text`, stored if it is new: by its parts if [`split`] splits it.
    pub(super) fn store(&mut self, text: &[u8], previous: Option<u32>) -> u32 {
        if text.len() < PARTS_FROM {
            return self.intern(text, None, previous);
        }
        // A long value written again is most often what it was, or one stored before: compared part by
        // part, before any split.
        let (values, parts) = (&self.done.values, &self.done.parts);
        // Of another length it is not (the conversation grows at each model call): not compared.
        if let Some(previous) = previous.filter(|&previous| self.by_parts(previous)) {
            if self.stored[previous as usize].whole == text.len()
                && matches(values, parts, previous, text, 0) == Some(text.len())
            {
                return previous;
            }
        }
        let likely = self.likely.iter().copied();
        let mut likely = likely.filter(|&index| self.stored[index as usize].whole == text.len());
        if let Some(index) = likely.find(|&index| matches(values, parts, index, text, 0).is_some())
        {
            return index;
        }
        // A value split by its parts is stored by them: the parts are found as above (most are stored),
        // and then the value by its indices. Looking for its whole text's hash first hit once in a
        // 100-call run's trace (natively, 1.7 MB hashed to no use).
        match split(text) {
            Some(split) => self.store_parts(text, &split, previous),
            None => self.intern_hashed(text, None, text_hash(text)),
        }
    }

    /// A list or an object stored as its parts' indices (`[3,4]`, `{"tools":5,"messages":6}`), each part
    /// stored first, so that it comes before the value that refers to it.
    pub(super) fn store_parts(
        &mut self,
        text: &[u8],
        parts: &[Part],
        previous: Option<u32>,
    ) -> u32 {
        // Each part is most likely the previous value's part at its place.
        let like = previous.and_then(|previous| self.parts_of(previous)).map(<[u32]>::to_vec);
        let like = like.unwrap_or_default();
        let mut ids = Vec::with_capacity(parts.len());
        let mut indices = Vec::with_capacity(8 * parts.len() + 2);
        indices.push(text[0]);
        for (k, part) in parts.iter().enumerate() {
            if k > 0 {
                indices.push(b',');
            }
            // `"name":` for an object's field; nothing for a list's element.
            indices.extend_from_slice(&text[part.key.clone()]);
            let index = self.store(&text[part.value.clone()], like.get(k).copied());
            number(&mut indices, index.into());
            ids.push(index);
        }
        indices.push(text[text.len() - 1]);
        self.intern(&indices, Some(&ids), previous)
    }

    /// Once the recording is done, writes each list stored by its parts that starts with at least
    /// `KEPT_FROM` entries of one of the few such lists stored just before it as only the rest
    /// (`in_common`), noted in `Recording::grown`: each version of the loop's history, and each
    /// prepared copy, repeats the one before (120 KB of the 100-call run's JSON, quadratic in the
    /// model calls).
    pub(super) fn grow_lists(&mut self) {
        const CANDIDATES: usize = 8;
        let mut recent: Vec<u32> = Vec::with_capacity(CANDIDATES + 1);
        for at in 0..self.done.parts.len() {
            let index = self.done.parts[at];
            let list = self.done.values[index as usize].bytes().first() == Some(&b'[');
            let Some(entries) = self.parts_of(index).filter(|_| list) else { continue };
            let common =
                |&base: &u32| (in_common(self.parts_of(base).unwrap_or_default(), entries), base);
            // The longest in common, the latest of those.
            let best = recent.iter().map(common).max_by_key(|&(kept, _)| kept);
            if let Some((kept, base)) = best.filter(|&(kept, _)| kept > 0) {
                let mut text = Vec::with_capacity(8 * (entries.len() - kept) + 2);
                each(&mut text, &entries[kept..], |out, &entry| number(out, entry.into()));
                self.done.values[index as usize] = Json(text.into());
                self.done.grown.push(Grown { value: index, base, kept: kept as u32 });
            }
            recent.push(index);
            if recent.len() > CANDIDATES {
                recent.remove(0);
            }
        }
    }
}

/// A model request's tools (their key and index) and messages (their key and entries).
type RequestFields = ((&'static str, u32), (&'static str, Vec<u32>));

/// A value at least this long (its JSON text, in bytes) may be written by its parts (see [`split`]):
/// a conversation of two messages or more is, a single message and a plan of a few items are not.
pub(super) const PARTS_FROM: usize = 512;

/// One part of a list or an object as JSON text: `key` the field's name with its quotes and colon
/// (empty for a list's element), `value` the span of its value.
pub(super) struct Part {
    pub(super) key: Range<usize>,
    pub(super) value: Range<usize>,
}

/// The parts a value is written by, or `None` when it is written whole: a list whose first element is
/// an object, and an object with a field that is split, once at least [`PARTS_FROM`] bytes long. The
/// versions of the loop's conversation (the history, each prepared copy, each request) then share their
/// messages, each stored once as a value of its own, where each version would repeat them all. Decided
/// on the text alone, so that the same value is written the same way wherever it is (a local, a host
/// entry, a part of another), and a list's first element is enough to tell a list of records from a
/// list of numbers or names.
pub(super) fn split(text: &[u8]) -> Option<Vec<Part>> {
    if text.len() < PARTS_FROM {
        return None;
    }
    match text[..2] {
        [b'[', b'{'] => children(text),
        [b'{', _] => children(text)
            .filter(|fields| fields.iter().any(|field| split_kind(&text[field.value.clone()]))),
        _ => None,
    }
}

/// Whether [`split`] splits `text`; a list is told without reading it through.
pub(super) fn split_kind(text: &[u8]) -> bool {
    text.len() >= PARTS_FROM && (text.starts_with(b"[{") || split(text).is_some())
}

/// The elements of a list, or the fields of an object, in compact JSON as serde_json writes it (no
/// white space); `None` for any other value.
pub(super) fn children(text: &[u8]) -> Option<Vec<Part>> {
    let object = match text.first() {
        Some(b'[') => false,
        Some(b'{') => true,
        _ => return None,
    };
    let mut parts = Vec::with_capacity(8);
    let mut i = 1;
    while i < text.len() - 1 {
        let key_start = i;
        if object {
            // `"name":`
            i = string_end(text, i + 1) + 1;
        }
        let end = value_end(text, i);
        parts.push(Part { key: key_start..i, value: i..end });
        // Past the comma (or the closing bracket).
        i = end + 1;
    }
    Some(parts)
}

/// Where the JSON value that starts at `i` ends: the comma or closing bracket after it (or the end).
pub(super) fn value_end(text: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < text.len() {
        match text[i] {
            b'"' => i = string_end(text, i + 1),
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' | b',' if depth == 0 => return i,
            b'}' | b']' => {
                depth -= 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    i
}

/// Where a JSON string whose text starts at `i` (after its opening quote) ends: after its closing
/// quote. Eight bytes are looked at a time: passed over whole when they hold neither a quote nor a
/// backslash, else gone straight to the first that is one (most strings of a value are short keys).
pub(super) fn string_end(text: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // The high bit of each byte of `word` that is `byte`; a borrow can also set it in a byte after
    // one that is, so only the lowest is sure, and only it is used.
    let find = |word: u64, byte: u8| {
        let x = word ^ (ONES * u64::from(byte));
        x.wrapping_sub(ONES) & !x & (ONES << 7)
    };
    loop {
        while let Some(bytes) = text.get(i..i + 8) {
            let word = u64::from_le_bytes(bytes.try_into().unwrap_or([b'"'; 8]));
            let special = find(word, b'"') | find(word, b'\\');
            if special != 0 {
                i += special.trailing_zeros() as usize / 8;
                break;
            }
            i += 8;
        }
        match text.get(i) {
            None => return i,
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            Some(_) => i += 1,
        }
    }
}

/// The type of element `at` of tuple type `ty` as `std::any::type_name` writes it (`(A, B<C, D>)`);
/// `None` if `ty` is not a tuple or has no such element.
pub(super) fn tuple_element(ty: &str, at: usize) -> Option<&str> {
    let inner = ty.strip_prefix('(')?.strip_suffix(')')?;
    let (mut depth, mut start, mut k, mut after) = (0usize, 0, 0, ' ');
    for (i, c) in inner.char_indices() {
        let arrow = after == '-';
        after = c;
        match c {
            '<' | '(' | '[' => depth += 1,
            // The `>` of a function type's `->` closes nothing.
            '>' if arrow => {}
            '>' | ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                if k == at {
                    return Some(inner[start..i].trim());
                }
                k += 1;
                start = i + 1;
            }
            _ => {}
        }
    }
    (k == at).then(|| inner[start..].trim()).filter(|last| !last.is_empty())
}

/// A value index written in decimal.
pub(super) fn index_at(digits: &[u8]) -> u32 {
    digits.iter().fold(0, |n, &digit| n * 10 + u32::from(digit - b'0'))
}

/// Where the whole text of value `index` ends if `text` has it at `at`, else `None`: a value written by
/// its parts is compared part by part, as it is stored, without being written out whole.
pub(super) fn matches(
    values: &[Json],
    parts: &[u32],
    index: u32,
    text: &[u8],
    at: usize,
) -> Option<usize> {
    let stored = values[index as usize].bytes();
    if parts.binary_search(&index).is_err() {
        let end = at + stored.len();
        return (end <= text.len() && same_bytes(&text[at..end], stored)).then_some(end);
    }
    let mut i = at;
    let expect = |text: &[u8], bytes: &[u8], i: &mut usize| {
        let end = *i + bytes.len();
        let same = end <= text.len() && same_bytes(&text[*i..end], bytes);
        *i = end;
        same
    };
    if !expect(text, &stored[..1], &mut i) {
        return None;
    }
    for (k, part) in children(stored)?.iter().enumerate() {
        if (k > 0 && !expect(text, b",", &mut i))
            || !expect(text, &stored[part.key.clone()], &mut i)
        {
            return None;
        }
        i = matches(values, parts, index_at(&stored[part.value.clone()]), text, i)?;
    }
    expect(text, &stored[stored.len() - 1..], &mut i).then_some(i)
}
