//! Listings for the page, cut by symbol from the very files compiled into this module.

use serde::Serialize;

use tsify::Tsify;

use crate::agent::{execute_with_plan, run_loop};
use crate::entries::{run_agent, run_prepare, run_validate, run_write};
use crate::lesson::{format_todos, prepare_messages, validate_todos, write_todos};

const LESSON: (&str, &str) = ("src/lesson.rs", include_str!("lesson.rs"));
const ENTRIES: (&str, &str) = ("src/entries.rs", include_str!("entries.rs"));
const AGENT: (&str, &str) = ("src/agent.rs", include_str!("agent.rs"));

/// A function the page can list: its file (path from the repository root, and the text compiled),
/// its first and last line as the compiler spans them, and the lines that hold a step.
struct Listed {
    symbol: &'static str,
    file: (&'static str, &'static str),
    lines: (u32, u32),
    steps: &'static [u32],
}

/// Every function the page lists: the traced ones (`#[traced]`) and the call entries (`#[listed]`).
const LISTED: [Listed; 10] = [
    Listed {
        symbol: "validate_todos",
        file: LESSON,
        lines: validate_todos::LINES,
        steps: validate_todos::STEP_LINES,
    },
    Listed {
        symbol: "write_todos",
        file: LESSON,
        lines: write_todos::LINES,
        steps: write_todos::STEP_LINES,
    },
    Listed {
        symbol: "format_todos",
        file: LESSON,
        lines: format_todos::LINES,
        steps: format_todos::STEP_LINES,
    },
    Listed {
        symbol: "prepare_messages",
        file: LESSON,
        lines: prepare_messages::LINES,
        steps: prepare_messages::STEP_LINES,
    },
    Listed { symbol: "run_validate", file: ENTRIES, lines: run_validate::LINES, steps: &[] },
    Listed { symbol: "run_write", file: ENTRIES, lines: run_write::LINES, steps: &[] },
    Listed { symbol: "run_prepare", file: ENTRIES, lines: run_prepare::LINES, steps: &[] },
    Listed { symbol: "run_loop", file: AGENT, lines: run_loop::LINES, steps: run_loop::STEP_LINES },
    Listed {
        symbol: "execute_with_plan",
        file: AGENT,
        lines: execute_with_plan::LINES,
        steps: execute_with_plan::STEP_LINES,
    },
    Listed { symbol: "run_agent", file: ENTRIES, lines: run_agent::LINES, steps: &[] },
];

#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct Listing {
    pub symbol: String,
    pub file: &'static str,
    pub lines: Vec<SourceLine>,
}

#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct SourceLine {
    /// The line's number in `file`, 1-based.
    pub no: u32,
    pub text: &'static str,
    /// Whether a step can pause here (a traced statement starts on this line): where breakpoints go.
    pub step: bool,
}

/// The lines of `fn symbol`, from its `fn` line to its closing brace, as the compiler spans the
/// function. Attributes and doc comments above it (where `#[traced]` sits) are left out; they are
/// not part of what the reader steps through.
pub fn source(symbol: &str) -> Option<Listing> {
    let listed = LISTED.iter().find(|listed| listed.symbol == symbol)?;
    let ((file, text), (first, last)) = (listed.file, listed.lines);
    let lines = text.lines().enumerate().map(|(i, text)| (i as u32 + 1, text));
    Some(Listing {
        symbol: symbol.to_string(),
        file,
        lines: lines
            .filter(|(no, _)| (first..=last).contains(no))
            .map(|(no, text)| SourceLine { no, text, step: listed.steps.contains(&no) })
            .collect(),
    })
}
