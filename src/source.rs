//! Listings for the page, cut by symbol from the very files compiled into this module.

use serde::Serialize;

/// The files whose functions the page shows, as compiled (paths from the repository root).
const FILES: [(&str, &str); 2] =
    [("src/lesson.rs", include_str!("lesson.rs")), ("src/entries.rs", include_str!("entries.rs"))];

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
}

/// The lines of `fn symbol`, from its `fn` line to its closing brace. Attributes and doc comments
/// above it (where `#[traced]` sits) are left out; they are not part of what the reader steps through.
pub fn source(symbol: &str) -> Option<Listing> {
    if symbol.is_empty() || !symbol.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let head = format!("fn {symbol}(");
    FILES.iter().find_map(|&(file, text)| {
        let lines: Vec<&'static str> = text.lines().collect();
        let start = lines
            .iter()
            .position(|line| line.strip_prefix("pub ").unwrap_or(line).starts_with(&head))?;
        let end = start + lines[start..].iter().position(|line| *line == "}")?;
        Some(Listing {
            symbol: symbol.to_string(),
            file,
            lines: (start..=end).map(|i| SourceLine { no: i as u32 + 1, text: lines[i] }).collect(),
        })
    })
}
