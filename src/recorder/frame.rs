//! A traced call as the recorder follows it: its frame, the slots of its locals, and where host fields were taken.

use super::probe::{same_span, HostList, Probe, Snapshot, Span};
use super::tables::{is_in, same_static};

/// A local as the call's previous step left it.
#[derive(Clone, Copy)]
pub(super) struct Slot {
    pub(super) name: &'static str,
    pub(super) binding: u32,
    /// The full name of its value's type (empty if it never had one): the same type, the same binding.
    pub(super) ty: &'static str,
    pub(super) value: Option<u32>,
    /// Where the value was at the step (compared, never read): see [`request`].
    pub(super) at: usize,
}

/// Where a value handed to the recorder is, to be compared.
pub(super) fn address(value: &dyn Snapshot) -> usize {
    value as *const dyn Snapshot as *const () as usize
}

pub(super) struct Frame {
    pub(super) symbol: &'static str,
    /// The probe of the call's latest step (its line, what its statement mentions, ...); `None`
    /// before its first.
    pub(super) probe: Option<&'static Probe>,
    pub(super) locals: Vec<Slot>,
    /// The latest step's scope, reused by the `return` or `error` step (with that step's values).
    pub(super) scope: u32,
    /// The index of the latest step.
    pub(super) latest: u32,
    /// Tells this call from any other, for [`Origin`].
    pub(super) id: u32,
    /// The traced calls that returned to this one since its latest step, in order (see
    /// [`Made`](super::Made)).
    pub(super) returned: Vec<Returned>,
}

/// A traced call that returned to its caller: its function, the value it returned as stored (`None`
/// for an error), and that value's type.
#[derive(Clone, Copy)]
pub(super) struct Returned {
    pub(super) callee: &'static str,
    pub(super) value: Option<u32>,
    pub(super) ty: &'static str,
}

impl Frame {
    /// The line of the call's latest step; `None` before its first.
    pub(super) fn line(&self) -> Option<u32> {
        self.probe.map(|probe| probe.line)
    }

    /// What the latest step's statement mentions: the bindings that may differ at the next one.
    pub(super) fn mentions(&self) -> &'static [&'static str] {
        self.probe.map_or(&[], |probe| probe.mentions)
    }

    /// The value the one call of `callee` that returned to this call since its latest step returned,
    /// with its type; `None` if none did, or more than one (which of them made the binding is not
    /// known then).
    pub(super) fn returned_once(&self, callee: &str) -> Option<(u32, &'static str)> {
        let mut calls = self.returned.iter().filter(|call| same_static(call.callee, callee));
        let call = calls.next().filter(|_| calls.next().is_none())?;
        Some((call.value?, call.ty))
    }

    /// Whether only the latest step's statement runs until the next step (see [`Probe::alone`]).
    pub(super) fn alone(&self) -> bool {
        self.probe.is_some_and(|probe| probe.alone)
    }
}

/// Where a host field's entries were last taken: at a step of the call `frame`, through its binding
/// `root`, from the list `span`.
pub(super) struct Origin {
    pub(super) key: &'static str,
    pub(super) frame: u32,
    pub(super) root: &'static str,
    pub(super) span: Span,
}

/// Whether host field `key`, read now from `list`, still has the entries a caller took at its
/// latest step: the same list (its span), and nothing could have changed it since. Only that step's
/// statement of the caller has run (`alone`), and it does not mention the list's binding; it can have
/// handed it on only as a shared borrow, so nothing called from it can have changed it either.
pub(super) fn settled(
    origins: &[Origin],
    callers: &[Frame],
    key: &str,
    list: &dyn HostList,
) -> bool {
    let Some(origin) = origins.iter().find(|origin| same_static(origin.key, key)) else {
        return false;
    };
    let Some(by) = callers.iter().find(|frame| frame.id == origin.frame) else { return false };
    same_span(origin.span, list.span()) && by.alone() && !is_in(by.mentions(), origin.root)
}
