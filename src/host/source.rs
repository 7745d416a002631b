//! Listings for the page, cut by symbol from the very files compiled into this module.

use serde::Serialize;
use tsify::Tsify;

use crate::host::entries::{run_agent, run_prepare, run_validate, run_write};
use crate::lesson::agent::{execute_with_plan, run_loop};
use crate::lesson::{format_todos, prepare_messages, validate_todos, write_todos};

const LESSON: (&str, &str) = ("src/lesson/plan.rs", include_str!("../lesson/plan.rs"));
const ENTRIES: (&str, &str) = ("src/host/entries.rs", include_str!("entries.rs"));
const AGENT: (&str, &str) = ("src/lesson/agent.rs", include_str!("../lesson/agent.rs"));

/// A function the page can list: its file (path from the repository root), its first and last
/// line as the compiler spans them, the text of those lines, and the lines that hold a step.
struct Listed {
    symbol: &'static str,
    file: &'static str,
    lines: (u32, u32),
    text: &'static str,
    steps: &'static [u32],
}

/// Lines `first..=last` of the compiled file, cut at compile time into an array of their own, so
/// the module holds only the listed lines and not the whole file (its imports, docs, other items).
macro_rules! listed {
    ($symbol:ident, $file:expr, $lines:expr, $steps:expr) => {{
        const FILE: (&str, &str) = $file;
        const LINES: (u32, u32) = $lines;
        const SPAN: (usize, usize) = line_span(FILE.1, LINES);
        const BYTES: [u8; SPAN.1 - SPAN.0] = copy_bytes(FILE.1, SPAN.0);
        const TEXT: &str = match std::str::from_utf8(&BYTES) {
            Ok(text) => text,
            Err(_) => panic!("a listing cut inside a character"),
        };
        Listed {
            symbol: stringify!($symbol),
            file: FILE.0,
            lines: LINES,
            text: TEXT,
            steps: $steps,
        }
    }};
}

/// The byte range of lines `first..=last` (1-based) of `text`, without the last line's line break.
/// A function's span always lies within its file; a range outside it fails the build.
const fn line_span(text: &str, (first, last): (u32, u32)) -> (usize, usize) {
    let bytes = text.as_bytes();
    let (mut line, mut at, mut start) = (1, 0, None);
    while at < bytes.len() {
        if line == first && start.is_none() {
            start = Some(at);
        }
        if bytes[at] == b'\n' {
            if line == last {
                break;
            }
            line += 1;
        }
        at += 1;
    }
    match start {
        Some(start) if line == last => (start, at),
        _ => panic!("a listing's lines lie outside its file"),
    }
}

const fn copy_bytes<const N: usize>(text: &str, start: usize) -> [u8; N] {
    let mut out = [0; N];
    let mut at = 0;
    while at < N {
        out[at] = text.as_bytes()[start + at];
        at += 1;
    }
    out
}

/// Every function the page lists: the traced ones (`#[traced]`) and the call entries (`#[listed]`).
const LISTED: [Listed; 10] = [
    listed!(validate_todos, LESSON, validate_todos::LINES, validate_todos::STEP_LINES),
    listed!(write_todos, LESSON, write_todos::LINES, write_todos::STEP_LINES),
    listed!(format_todos, LESSON, format_todos::LINES, format_todos::STEP_LINES),
    listed!(prepare_messages, LESSON, prepare_messages::LINES, prepare_messages::STEP_LINES),
    listed!(run_validate, ENTRIES, run_validate::LINES, &[]),
    listed!(run_write, ENTRIES, run_write::LINES, &[]),
    listed!(run_prepare, ENTRIES, run_prepare::LINES, &[]),
    listed!(run_loop, AGENT, run_loop::LINES, run_loop::STEP_LINES),
    listed!(execute_with_plan, AGENT, execute_with_plan::LINES, execute_with_plan::STEP_LINES),
    listed!(run_agent, ENTRIES, run_agent::LINES, &[]),
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
    let lines = listed.text.lines().zip(listed.lines.0..);
    Some(Listing {
        symbol: symbol.to_string(),
        file: listed.file,
        lines: lines
            .map(|(text, no)| SourceLine { no, text, step: listed.steps.contains(&no) })
            .collect(),
    })
}

/// The numbers of the lines of `fn symbol` that contain `snippet`, a text within one line (none for
/// a symbol not listed). One search through the listed text, each match's line counted from the line
/// breaks before it, costs a third of building the [`Listing`] and searching each of its lines.
pub fn lines_with(symbol: &str, snippet: &str) -> Vec<u32> {
    let Some(listed) = LISTED.iter().find(|listed| listed.symbol == symbol) else {
        return Vec::new();
    };
    let text = listed.text;
    let line_of = |at: usize| listed.lines.0 + text[..at].matches('\n').count() as u32;
    let mut lines: Vec<u32> = text.match_indices(snippet).map(|(at, _)| line_of(at)).collect();
    // A line that holds the text twice is one line.
    lines.dedup();
    lines
}

#[cfg(test)]
mod tests {
    use super::{lines_with, source, LISTED};

    #[test]
    fn lines_with_a_text_are_the_listing_lines_that_hold_it() {
        // "s" is on most lines more than once.
        let snippets =
            ["let ", "}", "s", "history.push(Message::results(results))", "no line holds this"];
        for listed in &LISTED {
            let listing = source(listed.symbol).unwrap();
            for snippet in snippets {
                let holding = listing.lines.iter().filter(|l| l.text.contains(snippet));
                let expected: Vec<u32> = holding.map(|l| l.no).collect();
                assert_eq!(
                    lines_with(listed.symbol, snippet),
                    expected,
                    "{}: {snippet:?}",
                    listed.symbol
                );
            }
        }
        assert_eq!(lines_with("run_loop", "if rounds_without_plan == 3").len(), 1);
        assert!(lines_with("trace", "let ").is_empty());
    }
}
