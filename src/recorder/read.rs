//! Values stored by their parts, read back: whole (`plain`), or one field or element of them
//! without putting the rest together (the loop's questions read a tool result's flag, not the file
//! text beside it).

use super::parts::{children, each, index_at, key};
use super::trace::{Grown, Recording};

/// The text of field `name`'s value in `text`, an object as serde_json writes it; `None` if it is
/// not an object or has no such field.
pub(super) fn field_text<'a>(text: &'a [u8], name: &str) -> Option<&'a [u8]> {
    if text.first() != Some(&b'{') {
        return None;
    }
    let key = key(name);
    let found = children(text)?.into_iter().find(|part| text[part.key.clone()] == key[..])?;
    Some(&text[found.value])
}

/// The index of element `at`'s value, when the value at `index` is a list (or tuple) stored by its
/// parts.
pub(super) fn element_index(done: &Recording, index: u32, at: usize) -> Option<u32> {
    done.parts.binary_search(&index).ok()?;
    if done.values[index as usize].bytes().first() != Some(&b'[') {
        return None;
    }
    list_entries(done, index).get(at).copied()
}

/// The whole JSON text of value `index` into `out`: a value written by its parts (`parts`) with each
/// part's text in place of its index, and a grown list (`grown`) with its earlier list's entries first.
pub(super) fn plain(done: &Recording, index: u32, out: &mut Vec<u8>) {
    let text = done.values[index as usize].bytes();
    if done.parts.binary_search(&index).is_err() {
        out.extend_from_slice(text);
        return;
    }
    if done.grown.binary_search_by_key(&index, |grown| grown.value).is_ok() {
        each(out, &list_entries(done, index), |out, &entry| plain(done, entry, out));
        return;
    }
    out.push(text[0]);
    for (k, part) in children(text).unwrap_or_default().iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&text[part.key.clone()]);
        plain(done, index_at(&text[part.value.clone()]), out);
    }
    out.push(text[text.len() - 1]);
}

/// The entries of list `index`, stored by its parts: the indices it holds, after the first `kept` of
/// its `base`'s if it is grown.
fn list_entries(done: &Recording, index: u32) -> Vec<u32> {
    let text = done.values[index as usize].bytes();
    let own = children(text).unwrap_or_default();
    let own = own.iter().map(|part| index_at(&text[part.value.clone()]));
    let Ok(at) = done.grown.binary_search_by_key(&index, |grown| grown.value) else {
        return own.collect();
    };
    let Grown { base, kept, .. } = done.grown[at];
    let mut entries = list_entries(done, base);
    entries.truncate(kept as usize);
    entries.extend(own);
    entries
}
