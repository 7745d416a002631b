//! Listings for the page, cut by symbol from the very files compiled into this module.

use serde::Serialize;

use crate::lesson::{format_todos, prepare_messages, validate_todos, write_todos};

/// The files whose functions the page shows, as compiled (paths from the repository root).
const FILES: [(&str, &str); 2] =
    [("src/lesson.rs", include_str!("lesson.rs")), ("src/entries.rs", include_str!("entries.rs"))];

/// The lines of each traced function that hold a step (from `#[traced]`).
const STEP_LINES: [(&str, &[u32]); 4] = [
    ("validate_todos", validate_todos::STEP_LINES),
    ("write_todos", write_todos::STEP_LINES),
    ("format_todos", format_todos::STEP_LINES),
    ("prepare_messages", prepare_messages::STEP_LINES),
];

#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Listing {
    pub symbol: String,
    pub file: &'static str,
    pub lines: Vec<SourceLine>,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct SourceLine {
    /// The line's number in `file`, 1-based.
    pub no: u32,
    pub text: &'static str,
    /// Whether a step can pause here (a traced statement starts on this line): where breakpoints go.
    pub step: bool,
}

/// The lines of `fn symbol`, from its `fn` line to its closing brace. Attributes and doc comments
/// above it (where `#[traced]` sits) are left out; they are not part of what the reader steps through.
pub fn source(symbol: &str) -> Option<Listing> {
    if symbol.is_empty() || !symbol.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let head = format!("fn {symbol}(");
    let steps =
        STEP_LINES.iter().find(|(name, _)| *name == symbol).map_or(&[][..], |(_, lines)| lines);
    FILES.iter().find_map(|&(file, text)| {
        let lines: Vec<&'static str> = text.lines().collect();
        let start = lines
            .iter()
            .position(|line| line.strip_prefix("pub ").unwrap_or(line).starts_with(&head))?;
        let end = start + lines[start..].iter().position(|line| *line == "}")?;
        Some(Listing {
            symbol: symbol.to_string(),
            file,
            lines: (start..=end)
                .map(|i| {
                    let no = i as u32 + 1;
                    SourceLine { no, text: lines[i], step: steps.contains(&no) }
                })
                .collect(),
        })
    })
}
