//! What each rejection of a plan says, in Chinese and English (LESSON.md); tests check the codes, not these words.
//!
//! `quoted` shows a value inside any message of the project: short, and with its invisible characters named.

use crate::lesson::{Lang, TodoError, MAX_CONTENT_CHARS, MAX_ID_CHARS, MAX_ITEMS};
use crate::recorder::ErrorInfo;

/// Format characters (Unicode's general category Cf, as of Unicode 16): invisible, and some of them
/// (U+202E) reverse the text around them.
const FORMAT: [(char, char); 21] = [
    ('\u{ad}', '\u{ad}'),
    ('\u{600}', '\u{605}'),
    ('\u{61c}', '\u{61c}'),
    ('\u{6dd}', '\u{6dd}'),
    ('\u{70f}', '\u{70f}'),
    ('\u{890}', '\u{891}'),
    ('\u{8e2}', '\u{8e2}'),
    ('\u{180e}', '\u{180e}'),
    ('\u{200b}', '\u{200f}'),
    ('\u{202a}', '\u{202e}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206f}'),
    ('\u{feff}', '\u{feff}'),
    ('\u{fff9}', '\u{fffb}'),
    ('\u{110bd}', '\u{110bd}'),
    ('\u{110cd}', '\u{110cd}'),
    ('\u{13430}', '\u{1343f}'),
    ('\u{1bca0}', '\u{1bca3}'),
    ('\u{1d173}', '\u{1d17a}'),
    ('\u{e0001}', '\u{e0001}'),
    ('\u{e0020}', '\u{e007f}'),
];

/// Whether a message must show `c` by its code (U+202E) rather than as itself: control and format
/// characters, and white space other than a plain space, which a reader cannot see or tell apart.
pub(crate) fn invisible(c: char) -> bool {
    c != ' '
        && (c.is_control()
            || c.is_whitespace()
            || FORMAT.iter().any(|&(first, last)| (first..=last).contains(&c)))
}

/// A value quoted in a message: at most its first 40 characters (then "…"), so a huge value gives
/// a short message, and each invisible character written as `<U+202E>`, so none can hide or
/// reorder the words around it.
pub(crate) fn quoted(value: &str) -> String {
    const SHOWN: usize = 40;
    let mut text = String::from("\"");
    for c in value.chars().take(SHOWN) {
        if invisible(c) {
            text.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            text.push(c);
        }
    }
    if value.chars().nth(SHOWN).is_some() {
        text.push('…');
    }
    text.push('"');
    text
}

impl TodoError {
    /// The stable code of LESSON.md.
    pub fn code(&self) -> &'static str {
        match self {
            TodoError::NotAList => "not_a_list",
            TodoError::TooManyItems { .. } => "too_many_items",
            TodoError::BadShape { .. } => "bad_shape",
            TodoError::NotAString { .. } => "not_a_string",
            TodoError::EmptyId { .. } => "empty_id",
            TodoError::IdTooLong { .. } => "id_too_long",
            TodoError::DuplicateId { .. } => "duplicate_id",
            TodoError::EmptyContent { .. } => "empty_content",
            TodoError::ContentTooLong { .. } => "content_too_long",
            TodoError::UnknownStatus { .. } => "unknown_status",
            TodoError::TooManyActive { .. } => "too_many_active",
            TodoError::NoUserText => "no_user_text",
        }
    }

    /// A sentence that names the item (position, and id where it has one) so a model can fix it;
    /// each arm gives the Chinese text, then the English.
    pub fn message(&self, lang: Lang) -> String {
        let (zh, en) = match self {
            TodoError::NotAList => {
                ("items 必须是一个列表（数组）。".into(), "items must be a list (an array).".into())
            }
            TodoError::TooManyItems { count } => (
                format!("清单有 {count} 项，最多只能有 {MAX_ITEMS} 项。"),
                format!("The plan has {count} items; at most {MAX_ITEMS} are allowed."),
            ),
            TodoError::BadShape { position } => (
                format!("第 {position} 项必须是对象，且只有 id、content、status 三个键。"),
                format!("Item {position} must be an object with exactly the keys id, content and status."),
            ),
            TodoError::NotAString { position, field } => (
                format!("第 {position} 项的 {field} 必须是字符串。"),
                format!("Item {position}: {field} must be a string."),
            ),
            TodoError::EmptyId { position } => {
                (format!("第 {position} 项的 id 为空。"), format!("Item {position} has an empty id."))
            }
            TodoError::IdTooLong { position, id } => (
                format!("第 {position} 项的 id {} 超过 {MAX_ID_CHARS} 个字符。", quoted(id)),
                format!("Item {position}: id {} is longer than {MAX_ID_CHARS} characters.", quoted(id)),
            ),
            TodoError::DuplicateId { position, id } => (
                format!("第 {position} 项的 id {} 与前面的某一项重复。", quoted(id)),
                format!("Item {position}: id {} is already used by an earlier item.", quoted(id)),
            ),
            TodoError::EmptyContent { position, id } => (
                format!("第 {position} 项（id {}）的 content 为空。", quoted(id)),
                format!("Item {position} (id {}) has empty content.", quoted(id)),
            ),
            TodoError::ContentTooLong { position, id } => (
                format!("第 {position} 项（id {}）的 content 超过 {MAX_CONTENT_CHARS} 个字符。", quoted(id)),
                format!("Item {position} (id {}): content is longer than {MAX_CONTENT_CHARS} characters.", quoted(id)),
            ),
            TodoError::UnknownStatus { position, id, status } => (
                format!("第 {position} 项（id {}）的状态 {} 无效；只能是 pending、in_progress 或 completed。", quoted(id), quoted(status)),
                format!("Item {position} (id {}): status {} is not one of pending, in_progress, completed.", quoted(id), quoted(status)),
            ),
            TodoError::TooManyActive { position, id } => (
                format!("第 {position} 项（id {}）是第二个 in_progress；同一时间只能有一项在进行。", quoted(id)),
                format!("Item {position} (id {}) is a second in_progress item; only one may be in progress.", quoted(id)),
            ),
            TodoError::NoUserText => (
                "历史的第一条消息必须是用户的文本消息。".into(),
                "The first message of the history must be a user text message.".into(),
            ),
        };
        lang.pick(&zh, &en).to_string()
    }

    pub fn info(&self, lang: Lang) -> ErrorInfo {
        ErrorInfo { code: self.code(), message: self.message(lang), line: None, column: None }
    }
}
