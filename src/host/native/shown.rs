//! Text from the workspace, the program or a model made safe to print on a terminal: control characters shown escaped.
//!
//! A terminal acts on escape sequences (clear the screen, set the title, move the cursor), so a
//! `main.py` or a model could otherwise repaint the transcript, or print a fake approval prompt.
//! Newlines and tabs are kept: they are how text is laid out, and every line `practice` prints
//! from outside is indented under a label of its own, so a line cannot pass for the prompt.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether a character is shown escaped: C0 controls but newline and tab, DEL, C1 controls
/// (U+009B is a CSI to some terminals), and the bidirectional overrides and isolates, which
/// reorder what a reader sees.
fn hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `text` with its hidden characters escaped: `\r`, `\x1b`, `\u{9b}`.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if hidden(c) && (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if hidden(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// JSON text with every hidden character that JSON allows raw inside a string written as a
/// `\u` escape. serde_json already escapes C0 controls; this adds DEL, C1 and the bidi controls.
/// Outside strings JSON holds none of them, so the result is the same value.
pub fn json_shown(json: &str) -> Cow<'_, str> {
    if !json.chars().any(hidden) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if hidden(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_layout_is_kept() {
        assert_eq!(shown("plain\ttext\n"), Cow::Borrowed("plain\ttext\n"));
        assert_eq!(shown("\x1b[2J\r\x07\x7f"), "\\x1b[2J\\r\\x07\\x7f");
        assert_eq!(shown("a\u{9b}31m\u{202e}b"), "a\\u{9b}31m\\u{202e}b");
        assert_eq!(shown("中文"), "中文");
    }

    #[test]
    fn json_keeps_its_value() {
        let text = "\u{9b}x\u{7f}\u{2066}";
        let json = serde_json::to_string(text).unwrap();
        let safe = json_shown(&json);
        assert!(!safe.chars().any(hidden));
        assert_eq!(serde_json::from_str::<String>(&safe).unwrap(), text);
    }
}
