//! What `#[traced]` hands the recorder: values as `Snapshot`s, host lists, and each probe's static facts.
//!
//! The compile-time checks the macro emits (`not_copy`, `a_vec`, `frozen`) live here too: each
//! compiles only where the shortcut the macro takes is sound.

use serde::Serialize;

use super::tables::same_static;
use super::trace::type_label;

/// One field of a value stored from its fields ([`Snapshot::fields`]): its key as the value's JSON
/// names it, and its value, or a list whose entries the recorder may hold already (a host field's).
pub enum Field<'a> {
    Value(&'static str, &'a dyn Snapshot),
    List(&'static str, &'a dyn HostList),
    /// A value that lives as long as the program and holds no cell (`RefUnwindSafe`, as [`frozen`]
    /// checks): nothing can change it, and nothing else can be where it is, so the recorder writes
    /// it once a recording and knows it by its address after that (the loop's tool definitions).
    Static(&'static str, &'static (dyn Snapshot + std::panic::RefUnwindSafe)),
}

/// A binding as a probe hands it over, whatever its type. Probes pass `&dyn Snapshot` and `step`
/// makes the locals, rather than each probe building them: one call per probe instead of one per
/// binding keeps the instrumented functions small, and nothing is copied while no one records.
pub trait Snapshot {
    /// The value's JSON text, appended to `out`.
    fn write_json(&self, out: &mut Vec<u8>);
    /// The type's full name (`std::any::type_name`); `type_label` makes it the type as a reader wrote it.
    fn type_name(&self) -> &'static str;
    /// A value whose JSON is an object of these fields, in this order, hands them to `visit` and
    /// says so: the recorder stores it from them. Writing it whole only to find them in its text
    /// again was the costliest part of a loop trace: a model request's messages are mostly the
    /// stored history's (`Tables::request`), and the loop's outcome holds the whole history and the
    /// plan, which are host fields (`Tables::object`). Such a type is not `Serialize`, which would
    /// make it a `Snapshot` like any value.
    fn fields(&self, _visit: &mut dyn FnMut(&[Field<'_>])) -> bool {
        false
    }
}

impl<T: Serialize + ?Sized> Snapshot for T {
    fn write_json(&self, out: &mut Vec<u8>) {
        let start = out.len();
        // Writing to a Vec cannot fail; a type whose Serialize refuses itself shows as null.
        if serde_json::to_writer(&mut *out, self).is_err() {
            out.truncate(start);
            out.extend_from_slice(b"null");
        }
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
}

/// A host-owned list (the plan, the history) as a probe hands it over: entry by entry, so that
/// an entry that did not change is the same value as before.
pub trait HostList {
    /// Visits the entries from the `from`th on.
    fn each(&self, from: usize, visit: &mut dyn FnMut(&dyn Snapshot));
    /// The list's type as a reader wrote it, as `type_label` gives it.
    fn type_label(&self) -> &'static str;
    /// Where its entries lie, how many there are, and their type: two lists with the same span hold
    /// the very same entries (see `settled`).
    fn span(&self) -> Span;
}

/// See [`HostList::span`].
pub(super) type Span = (usize, usize, &'static str);

pub(super) fn span_of<T>(entries: &[T]) -> Span {
    (entries.as_ptr() as usize, entries.len(), std::any::type_name::<T>())
}

pub(super) fn same_span(a: Span, b: Span) -> bool {
    a.0 == b.0 && a.1 == b.1 && same_static(a.2, b.2)
}

// A host list is a `Vec`, a slice, or a shared reference to a slice (`#[traced(host(messages =
// messages))]` where `messages: &[Message]`: the local is that reference, so `same_list` finds it).
// The three differ only in their type's name.
macro_rules! host_list {
    ($($list:ty),*) => {$(
        impl<T: Serialize> HostList for $list {
            fn each(&self, from: usize, visit: &mut dyn FnMut(&dyn Snapshot)) {
                self.iter().skip(from).for_each(|entry| visit(entry));
            }

            fn type_label(&self) -> &'static str {
                type_label(std::any::type_name::<Self>())
            }

            fn span(&self) -> Span {
                span_of(self)
            }
        }
    )*};
}

host_list!(Vec<T>, [T], &[T]);

/// Whether a local is the very list a host field reads (the same object of the same type): then its JSON is
/// the field's entries joined, and need not be written again.
pub(super) fn same_list(local: &dyn Snapshot, list: &dyn HostList) -> bool {
    std::ptr::addr_eq(local as *const dyn Snapshot, list as *const dyn HostList)
        && type_label(local.type_name()) == list.type_label()
}

/// What `#[traced]` knows about one probe at compile time.
pub struct Probe {
    pub line: u32,
    /// The bindings in scope, in declaration order.
    pub names: &'static [&'static str],
    /// The bindings this probe's statement mentions: after it runs, only these may have changed.
    pub mentions: &'static [&'static str],
    /// Bindings that may have changed since the call's previous step other than by that step's
    /// statement (a loop header run again, a jump out of a nested block).
    pub fresh: &'static [&'static str],
    /// Until the call's next step, nothing of the call runs but this probe's statement (it holds no
    /// block and no jump, and no loop's header runs after it): a binding it does not mention keeps
    /// the value this step gives it, whatever runs meanwhile (see [`request`]).
    pub alone: bool,
    /// The host fields the function can reach here (`#[traced(host(items = state.items))]`): each
    /// field's name and the binding it is reached through. `step` is handed the lists, in this order.
    pub host: &'static [(&'static str, &'static str)],
    /// What the statement tells beyond these fields: most tell nothing more and share
    /// [`Hints::NONE`], which keeps the many probes' static data small.
    pub hints: &'static Hints,
}

/// What some probes' statements tell the recorder beyond [`Probe`]'s fields.
pub struct Hints {
    /// The binding this probe's statement only appends to (`history.push(message);`, asserted a
    /// `Vec`): at the call's next step, the entries it had are unchanged. Nothing else can run in
    /// between (`#[traced]` leaves out a push in a loop whose header mentions the binding).
    pub appends: Option<&'static str>,
    /// The list this probe's statement pushes a binding onto, and that binding (`results.push(result);`):
    /// at the call's next step the list, if it is a `Vec`, is its value here with the binding's value
    /// here appended. Nothing else can change it in between (as for `appends`).
    pub pushed: Option<(&'static str, &'static str)>,
    /// The binding this probe's statement returns as it is (`Ok(prepared)`): the call's return
    /// value is its value at this step.
    pub returns: Option<&'static str>,
    /// A binding the statement just before this one changed at one element only (`prepared[0]
    /// .content = ...;`, asserted a `Vec`), and where: that element is handed to `step`, and the
    /// other elements are the ones the binding had.
    pub element: Option<(&'static str, usize)>,
    /// A binding the statement just before this one made as a copy of another, and that other
    /// (`let prepared = messages.to_vec();`): the two have the same value.
    pub copy: Option<(&'static str, &'static str)>,
    /// A binding the statement just before this one made of a call's value, as the call returned it
    /// (`let request = Request { messages: prepare_messages(..)?, .. };`): see [`Made`]. A struct
    /// literal gives one for each field that is a call.
    pub made: &'static [Made],
}

impl Hints {
    pub const NONE: Hints =
        Hints { appends: None, pushed: None, returns: None, element: None, copy: None, made: &[] };
}

/// `let binding = callee(..)?;`, with `field: callee(..)?` in a struct literal, or `let (a, binding) =
/// callee(..);`: the binding (or its field) is the value `callee` returned (or that element of it),
/// moved there as it was. `#[traced]` finds the form; the recorder takes the value a traced `callee`
/// returned to the call since its previous step (as stored when it returned) if exactly one call of
/// that name did, with the binding's type (or the field's, or the element's), instead of writing it
/// again.
pub struct Made {
    pub binding: &'static str,
    pub of: Of,
    pub callee: &'static str,
}

/// Which of a call's value a binding is ([`Made`]).
pub enum Of {
    Whole,
    /// The binding's field of that name (only a model request's `messages`, which the recorder
    /// stores from its fields: `Snapshot::fields`).
    Field(&'static str),
    /// The element at this place of the tuple the call returned.
    Element(usize),
}

/// Compiles only for a `Vec`, whose `push` leaves the entries it had as they were: `#[traced]` calls it
/// where a statement only appends to a binding.
pub fn a_vec<T>(_: &Vec<T>) {}

/// Compiles only for a type without a single-thread cell inside (`Cell`, `RefCell`, `OnceCell`,
/// `UnsafeCell` all lack `RefUnwindSafe`): `#[traced]` calls it for each binding it writes once and
/// never again (a shared reference that is not `mut`), which is right only if nothing can change
/// behind it. `Mutex`, `RwLock` and the atomics are `RefUnwindSafe` and get past it: do not hand a
/// traced function one behind a shared reference.
pub fn frozen<T: ?Sized + std::panic::RefUnwindSafe>(_: &T) {}

/// Compiles only for a type that is not `Copy`: `#[traced]` calls it where it lists a binding as
/// moved, so a `Copy` value can never be shown as moved (two impls apply to a `Copy` type, and the
/// call's type parameter `A` cannot be inferred).
pub fn not_copy<T: ?Sized + NotCopy<A>, A>(_: &T) {}

#[doc(hidden)]
pub trait NotCopy<A> {}
impl<T: ?Sized> NotCopy<()> for T {}
#[doc(hidden)]
pub struct IsCopy;
impl<T: Copy> NotCopy<IsCopy> for T {}
