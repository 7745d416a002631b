//! What each rejection says to the model, in Chinese and English; tests check the codes, not these words.

use crate::lesson::{Lang, TodoError, MAX_CONTENT_CHARS, MAX_ID_CHARS, MAX_ITEMS};
use crate::trace::ErrorInfo;

/// Ids are quoted in messages; a very long one is cut so the message stays readable.
fn quoted(id: &str) -> String {
    const SHOWN: usize = 40;
    if id.chars().count() <= SHOWN {
        format!("\"{id}\"")
    } else {
        let head: String = id.chars().take(SHOWN).collect();
        format!("\"{head}…\"")
    }
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

    /// A sentence that names the item (position, and id where it has one) so a model can fix it.
    pub fn message(&self, lang: Lang) -> String {
        let zh = lang == Lang::Zh;
        match self {
            TodoError::NotAList if zh => "items 必须是一个列表（数组）。".into(),
            TodoError::NotAList => "items must be a list (an array).".into(),
            TodoError::TooManyItems { count } if zh => {
                format!("清单有 {count} 项，最多只能有 {MAX_ITEMS} 项。")
            }
            TodoError::TooManyItems { count } => {
                format!("The plan has {count} items; at most {MAX_ITEMS} are allowed.")
            }
            TodoError::BadShape { position } if zh => {
                format!("第 {position} 项必须是对象，且只有 id、content、status 三个键。")
            }
            TodoError::BadShape { position } => format!(
                "Item {position} must be an object with exactly the keys id, content and status."
            ),
            TodoError::NotAString { position } if zh => {
                format!("第 {position} 项的 id、content、status 都必须是字符串。")
            }
            TodoError::NotAString { position } => {
                format!("Item {position}: id, content and status must all be strings.")
            }
            TodoError::EmptyId { position } if zh => format!("第 {position} 项的 id 为空。"),
            TodoError::EmptyId { position } => format!("Item {position} has an empty id."),
            TodoError::IdTooLong { position, id } if zh => format!(
                "第 {position} 项的 id {} 超过 {MAX_ID_CHARS} 个字符。",
                quoted(id)
            ),
            TodoError::IdTooLong { position, id } => format!(
                "Item {position}: id {} is longer than {MAX_ID_CHARS} characters.",
                quoted(id)
            ),
            TodoError::DuplicateId { position, id } if zh => {
                format!("第 {position} 项的 id {} 与前面的某一项重复。", quoted(id))
            }
            TodoError::DuplicateId { position, id } => format!(
                "Item {position}: id {} is already used by an earlier item.",
                quoted(id)
            ),
            TodoError::EmptyContent { position, id } if zh => {
                format!("第 {position} 项（id {}）的 content 为空。", quoted(id))
            }
            TodoError::EmptyContent { position, id } => {
                format!("Item {position} (id {}) has empty content.", quoted(id))
            }
            TodoError::ContentTooLong { position, id } if zh => format!(
                "第 {position} 项（id {}）的 content 超过 {MAX_CONTENT_CHARS} 个字符。",
                quoted(id)
            ),
            TodoError::ContentTooLong { position, id } => format!(
                "Item {position} (id {}): content is longer than {MAX_CONTENT_CHARS} characters.",
                quoted(id)
            ),
            TodoError::UnknownStatus { position, id, status } if zh => format!(
                "第 {position} 项（id {}）的状态 {} 无效；只能是 pending、in_progress 或 completed。",
                quoted(id),
                quoted(status)
            ),
            TodoError::UnknownStatus { position, id, status } => format!(
                "Item {position} (id {}): status {} is not one of pending, in_progress, completed.",
                quoted(id),
                quoted(status)
            ),
            TodoError::TooManyActive { position, id } if zh => format!(
                "第 {position} 项（id {}）是第二个 in_progress；同一时间只能有一项在进行。",
                quoted(id)
            ),
            TodoError::TooManyActive { position, id } => format!(
                "Item {position} (id {}) is a second in_progress item; only one may be in progress.",
                quoted(id)
            ),
            TodoError::NoUserText if zh => "历史的第一条消息必须是用户的文本消息。".into(),
            TodoError::NoUserText => "The first message of the history must be a user text message.".into(),
        }
    }

    pub fn info(&self, lang: Lang) -> ErrorInfo {
        ErrorInfo { code: self.code(), message: self.message(lang), line: None, column: None }
    }
}
