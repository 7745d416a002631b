//! The recording's tables: each distinct value stored once (by the hash of its JSON text), bindings,
//! scopes and host views, so that a step is a few indices.

use super::frame::address;
use super::probe::{HostList, Snapshot};
use super::trace::{Binding, HostView, Json, Recording};
use super::Slot;

/// The tables a recording fills, with the indexes that keep each entry unique.
#[derive(Default)]
pub(super) struct Tables {
    pub(super) done: Recording,
    /// Each value by the hash of its text.
    pub(super) values: ByHash,
    /// What is kept of each value besides its text, by index.
    pub(super) stored: Vec<Stored>,
    /// The values the current call's locals had at its step before, noted where a host field's
    /// entries or a call's return value are written: a long value written then, or a part of one,
    /// is most likely one of them (the loop's outcome holds its history, a history entry the list
    /// of tool results), and is compared with them before it is read through for parts. Elsewhere
    /// it may be stale, which costs a comparison and is never wrong.
    pub(super) likely: Vec<u32>,
    /// Where a value is written to be compared or stored.
    pub(super) scratch: Vec<u8>,
    /// A hash of each host view, by index: most views are new, and comparing hashes is cheaper.
    pub(super) host_hashes: Vec<u64>,
    /// The keys of a model request's two fields, as the first request stored gave them (`parts`).
    pub(super) request_keys: Option<(Vec<u8>, Vec<u8>)>,
    /// Each value handed as a `Field::Static` so far: its address, and its index.
    pub(super) statics: Vec<(usize, u32)>,
}

/// What the tables keep of a value besides its text: looked up by index, where reading its text
/// again (for its parts) or searching `Recording::parts` (whether it has parts) was a tenth of a
/// 100-call run's trace natively.
pub(super) struct Stored {
    /// The length of its whole text: a value stored by its parts, written out whole.
    pub(super) whole: usize,
    /// Its parts' indices, in order, if it is stored by them.
    pub(super) parts: Option<Box<[u32]>>,
}

#[cfg(test)]
thread_local! {
    /// The bytes of JSON `Tables::value` wrote on this thread: the tests hold shortcuts to it.
    pub(super) static BYTES_WRITTEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl Tables {
    /// Empty tables with room for a short trace's steps, and for a value's text: growing them a
    /// few bytes or steps at a time (copying the steps each time) was a tenth of a short trace's
    /// time natively.
    pub(super) fn sized() -> Tables {
        let done = Recording { steps: Vec::with_capacity(64), ..Recording::default() };
        Tables { done, scratch: Vec::with_capacity(1024), ..Tables::default() }
    }

    /// The index of `value`, stored if it is new; `previous` is the value it most likely is.
    pub(super) fn value(&mut self, value: &dyn Snapshot, previous: Option<u32>) -> u32 {
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        value.write_json(&mut text);
        #[cfg(test)]
        BYTES_WRITTEN.with(|written| written.set(written.get() + text.len()));
        let index = self.store(&text, previous);
        self.scratch = text;
        index
    }

    /// The index of a value that never changes and is never moved (`Field::Static`): written the first
    /// time, known by its address after that.
    pub(super) fn static_value(&mut self, value: &'static dyn Snapshot) -> u32 {
        let at = address(value);
        if let Some(&(_, index)) = self.statics.iter().find(|&&(known, _)| known == at) {
            return index;
        }
        let index = self.value(value, None);
        self.statics.push((at, index));
        index
    }

    /// The index of `text`, stored if it is new; `parts` are its parts' indices if it is written by
    /// them (`[3,4]`), which tells it from the same text written whole (a list of two numbers).
    pub(super) fn intern(
        &mut self,
        text: &[u8],
        parts: Option<&[u32]>,
        previous: Option<u32>,
    ) -> u32 {
        // A value written again is most often what it was: one comparison, and no hash.
        let by_parts = parts.is_some();
        if let Some(previous) = previous.filter(|&previous| self.is(previous, text, by_parts)) {
            return previous;
        }
        self.intern_hashed(text, parts, text_hash(text))
    }

    /// [`Tables::intern`] without a `previous`, `hash` the text's [`text_hash`].
    pub(super) fn intern_hashed(&mut self, text: &[u8], parts: Option<&[u32]>, hash: u64) -> u32 {
        if let Some(index) = self.find(text, parts.is_some(), hash) {
            return index;
        }
        let index = self.done.values.len() as u32;
        let whole = match parts {
            // Each part's whole length in place of its index.
            Some(parts) => parts.iter().fold(text.len(), |length, &part| {
                length + self.stored[part as usize].whole - digits(part)
            }),
            None => text.len(),
        };
        if parts.is_some() {
            self.done.parts.push(index);
        }
        self.stored.push(Stored { whole, parts: parts.map(Box::from) });
        self.done.values.push(Json(text.into()));
        self.values.add(mix(hash, u64::from(parts.is_some())), index);
        index
    }

    /// The index of `text` if it is stored (`hash` its [`text_hash`]).
    pub(super) fn find(&self, text: &[u8], by_parts: bool, hash: u64) -> Option<u32> {
        let hash = mix(hash, u64::from(by_parts));
        self.values.find(hash, |index| self.is(index, text, by_parts))
    }

    /// Whether value `index` is `text`, stored by its parts or not as `by_parts` says.
    fn is(&self, index: u32, text: &[u8], by_parts: bool) -> bool {
        self.by_parts(index) == by_parts
            && same_bytes(self.done.values[index as usize].bytes(), text)
    }

    /// Notes the values of `locals` as [`Tables::likely`] (which of them are long is looked at only
    /// when a long value is written).
    pub(super) fn likely(&mut self, locals: &[Slot]) {
        self.likely.clear();
        self.likely.extend(locals.iter().filter_map(|slot| slot.value));
    }

    /// Whether value `index` is stored by its parts.
    pub(super) fn by_parts(&self, index: u32) -> bool {
        self.stored[index as usize].parts.is_some()
    }

    /// The indices of the parts value `index` is stored by, if it is.
    pub(super) fn parts_of(&self, index: u32) -> Option<&[u32]> {
        self.stored[index as usize].parts.as_deref()
    }

    pub(super) fn binding(&mut self, name: &'static str, ty: &'static str) -> u32 {
        let bindings = &mut self.done.bindings;
        // Each label is one static text (`type_label`), so the same binding is nearly always the
        // same two addresses.
        let same_texts = |b: &Binding| std::ptr::eq(b.name, name) && std::ptr::eq(b.ty, ty);
        let found = bindings.iter().position(same_texts);
        let found = found.or_else(|| bindings.iter().position(|b| b.name == name && b.ty == ty));
        found.unwrap_or_else(|| {
            bindings.push(Binding { name, ty });
            bindings.len() - 1
        }) as u32
    }

    // Scopes and host views are few (one per distinct set of bindings, one per host change):
    // a search costs less than a hash table's code.
    /// The scope of `locals`' bindings; most steps keep the scope of the call's previous step, `latest`.
    pub(super) fn scope(&mut self, latest: u32, locals: &[Slot]) -> u32 {
        let scopes = &mut self.done.scopes;
        let same =
            |scope: &Vec<u32>| scope.iter().copied().eq(locals.iter().map(|slot| slot.binding));
        if scopes.get(latest as usize).is_some_and(same) {
            return latest;
        }
        scopes.iter().position(same).unwrap_or_else(|| {
            scopes.push(locals.iter().map(|slot| slot.binding).collect());
            scopes.len() - 1
        }) as u32
    }

    pub(super) fn host(&mut self, view: HostView) -> u32 {
        let hash = view.iter().fold(0, |hash, field| {
            let numbers = field.entries.iter().chain(&field.was);
            let hash = numbers.fold(hash, |hash, &n| mix(hash, u64::from(n)));
            mix(hash, text_hash(field.changes.as_bytes()))
        });
        let hosts = &mut self.done.hosts;
        let same = |(known, view_hash): (&HostView, &u64)| *view_hash == hash && *known == view;
        let found = hosts.iter().zip(&self.host_hashes).position(same);
        found.unwrap_or_else(|| {
            hosts.push(view);
            self.host_hashes.push(hash);
            hosts.len() - 1
        }) as u32
    }

    /// The entries of a host list, as value indices; `like` is what each most likely is, by place, and
    /// the first `kept` of it are known to be unchanged.
    pub(super) fn entries(&mut self, list: &dyn HostList, like: &[u32], kept: usize) -> Vec<u32> {
        let mut entries = like[..kept].to_vec();
        list.each(kept, &mut |entry| {
            let previous = like.get(entries.len()).copied();
            entries.push(self.value(entry, previous));
        });
        entries
    }
}

/// How many digits `n` is written with.
fn digits(n: u32) -> usize {
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// Values by the hashes of their texts: an open-addressing table, at most half full, each slot a value's
/// index plus one (zero when free), and each value's hash by index. A list sorted by hash moved half
/// its entries at each new value, a cost that grew with the trace (a loop trace has hundreds).
#[derive(Default)]
pub(super) struct ByHash {
    slots: Vec<u32>,
    hashes: Vec<u64>,
}

impl ByHash {
    /// The value of hash `hash` that is `same` (at most one is: each value is stored once).
    pub(super) fn find(&self, hash: u64, mut same: impl FnMut(u32) -> bool) -> Option<u32> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut at = hash as usize & mask;
        loop {
            let index = self.slots[at].checked_sub(1)?;
            if self.hashes[index as usize] == hash && same(index) {
                return Some(index);
            }
            at = (at + 1) & mask;
        }
    }

    /// Adds value `index`, the next one, of hash `hash`.
    pub(super) fn add(&mut self, hash: u64, index: u32) {
        self.hashes.push(hash);
        if self.hashes.len() * 2 > self.slots.len() {
            // Twice as many slots, and every value again in the order added.
            self.slots = vec![0; (self.slots.len() * 2).max(64)];
            for (index, &hash) in self.hashes.iter().enumerate() {
                place(&mut self.slots, hash, index as u32);
            }
        } else {
            place(&mut self.slots, hash, index);
        }
    }
}

/// Puts value `index` in the first free slot from its hash's own.
pub(super) fn place(slots: &mut [u32], hash: u64, index: u32) {
    let mask = slots.len() - 1;
    let mut at = hash as usize & mask;
    while slots[at] != 0 {
        at = (at + 1) & mask;
    }
    slots[at] = index + 1;
}

/// A hash of a value's text, eight bytes at a time (FxHash's step): values reach tens of
/// kilobytes in the loop figure, where a byte-at-a-time hash was a third of the trace's time.
pub(super) fn text_hash(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    let mut hash = words.by_ref().fold(bytes.len() as u64, |hash, word| {
        mix(hash, u64::from_le_bytes(word.try_into().unwrap_or_default()))
    });
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    hash = mix(hash, u64::from_le_bytes(tail));
    hash
}

/// Whether two texts are the same, eight bytes at a time (the module's `memcmp` compares one byte at
/// a time, and values are compared whole each time they are written again).
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().unwrap_or_default());
    let (mut words_a, mut words_b) = (a.chunks_exact(8), b.chunks_exact(8));
    a.len() == b.len()
        && words_a.by_ref().zip(words_b.by_ref()).all(|(x, y)| word(x) == word(y))
        && words_a.remainder().iter().eq(words_b.remainder())
}

/// Two texts the compiler gave (binding names, type names): the same static text needs no comparing.
/// Inlined (a probe compares each local's name with the names its statement mentions, at every
/// step), with the lengths first: most names compared are of other lengths.
#[inline]
pub(super) fn same_static(a: &str, b: &str) -> bool {
    a.len() == b.len() && (std::ptr::eq(a, b) || same_bytes(a.as_bytes(), b.as_bytes()))
}

/// Whether two lists of value indices are the same, compared as numbers (slices of numbers compare
/// with the module's `memcmp`, a byte at a time).
pub(super) fn same_indices(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

#[inline]
pub(super) fn is_in(names: &[&str], name: &str) -> bool {
    names.iter().any(|known| same_static(known, name))
}

/// One step of FxHash: `word` mixed into `hash`.
pub(super) fn mix(hash: u64, word: u64) -> u64 {
    (hash.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95)
}
