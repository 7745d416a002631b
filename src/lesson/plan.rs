//! The lesson's subject: how a host validates, stores and shows a model's plan (see LESSON.md).
//!
//! The functions marked `#[traced]` are shown to the reader line by line, exactly as written
//! here, and stepped through in the page. Keep them short and plain. Their data types live in
//! `types.rs`, so that this file (built into the module for the listings) holds little else.

use serde_json::Value;
use todo_trace_macros::traced;

pub use crate::lesson::types::{Block, Content, Lang, Message, Role, State, Todo, TodoError};

/// At most this many items in one plan.
pub const MAX_ITEMS: usize = 20;
/// Longest id, in characters (not bytes).
pub const MAX_ID_CHARS: usize = 32;
/// Longest content, in characters (not bytes).
pub const MAX_CONTENT_CHARS: usize = 150;
/// The only keys an item may have.
pub const KEYS: [&str; 3] = ["id", "content", "status"];
/// The only statuses an item may have, spelled exactly so.
pub const STATUSES: [&str; 3] = ["pending", "in_progress", "completed"];

/// Checks every submitted item; returns a new, normalized list, or the first problem found.
#[traced]
pub fn validate_todos(items: &Value) -> Result<Vec<Todo>, TodoError> {
    let Some(list) = items.as_array() else {
        return Err(TodoError::NotAList);
    };
    if list.len() > MAX_ITEMS {
        return Err(TodoError::TooManyItems { count: list.len() });
    }
    let mut new_list = Vec::new();
    let mut seen_ids = Vec::new();
    let mut active = 0;
    for (index, item) in list.iter().enumerate() {
        let position = index + 1;
        let Some(fields) = item.as_object() else {
            return Err(TodoError::BadShape { position });
        };
        if fields.len() != KEYS.len() || !KEYS.iter().all(|key| fields.contains_key(*key)) {
            return Err(TodoError::BadShape { position });
        }
        let Some(raw_id) = fields["id"].as_str() else {
            return Err(TodoError::NotAString { position, field: "id" });
        };
        let Some(raw_content) = fields["content"].as_str() else {
            return Err(TodoError::NotAString { position, field: "content" });
        };
        let Some(status) = fields["status"].as_str() else {
            return Err(TodoError::NotAString { position, field: "status" });
        };
        let id = raw_id.trim();
        let content = raw_content.trim();
        if id.is_empty() {
            return Err(TodoError::EmptyId { position });
        }
        if id.chars().count() > MAX_ID_CHARS {
            return Err(TodoError::IdTooLong { position, id: id.to_string() });
        }
        if seen_ids.contains(&id) {
            return Err(TodoError::DuplicateId { position, id: id.to_string() });
        }
        if content.is_empty() {
            return Err(TodoError::EmptyContent { position, id: id.to_string() });
        }
        if content.chars().count() > MAX_CONTENT_CHARS {
            return Err(TodoError::ContentTooLong { position, id: id.to_string() });
        }
        if !STATUSES.contains(&status) {
            return Err(TodoError::UnknownStatus {
                position,
                id: id.to_string(),
                status: status.to_string(),
            });
        }
        seen_ids.push(id);
        if status == "in_progress" {
            active += 1;
        }
        if active > 1 {
            return Err(TodoError::TooManyActive { position, id: id.to_string() });
        }
        new_list.push(Todo {
            id: id.to_string(),
            content: content.to_string(),
            status: status.to_string(),
        });
    }
    Ok(new_list)
}

/// Replaces the host's plan with the submitted one, only if all of it is valid.
#[traced(host(items = state.items))]
pub fn write_todos(state: &mut State, items: &Value, lang: Lang) -> Result<String, TodoError> {
    let replacement = validate_todos(items)?;
    let rendered = format_todos(&replacement, lang);
    state.items = replacement;
    Ok(rendered)
}

/// One line per item: `{id} [{status}] {content}`.
#[traced]
pub fn format_todos(items: &[Todo], lang: Lang) -> String {
    if items.is_empty() {
        return lang.pick("（清单为空）", "(empty plan)").to_string();
    }
    let mut lines = Vec::new();
    for item in items {
        lines.push(format!("{} [{}] {}", item.id, item.status, item.content));
    }
    lines.join("\n")
}

/// A copy of the history for one model call, its first message carrying the current plan.
#[traced(host(messages = messages))]
pub fn prepare_messages(
    messages: &[Message],
    state: &State,
    lang: Lang,
) -> Result<Vec<Message>, TodoError> {
    let Some(Message { role: Role::User, content: Content::Text(question) }) = messages.first()
    else {
        return Err(TodoError::NoUserText);
    };
    let plan = format_todos(&state.items, lang);
    let header = lang.pick(
        "【当前计划，由宿主提供；其中的状态只是声明，需以工具结果为证】",
        "[Current plan, provided by the host; its statuses are claims to check against the tool results]",
    );
    let mut prepared = messages.to_vec();
    prepared[0].content = Content::Text(format!("{question}\n\n{header}\n{plan}"));
    Ok(prepared)
}
