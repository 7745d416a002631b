//! The lesson's data: plan items, the host's state, conversation messages, rejections, languages.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use serde_json::Value;
use std::sync::Arc;

/// One plan item, after validation.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq, Eq)]
pub struct Todo {
    pub id: String,
    pub content: String,
    pub status: String,
}

/// What the host owns between model calls: the current plan.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub items: Vec<Todo>,
}

/// One message of the conversation history.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: Content,
}

#[derive(Serialize, Deserialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// A message is either plain text or a list of tool blocks.
///
/// The blocks are shared, never changed in place (nothing can reach them mutably through `Arc`): a
/// copy of the history (`prepare_messages`, at every model call) is then a new list of the same
/// messages, as a copy of a list of immutable strings is in Python, rather than every tool output
/// copied again. Copying and dropping those was a quarter of a 100-call run's trace natively.
#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Blocks(Arc<Vec<Block>>),
}

#[derive(Serialize, Deserialize, Tsify, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    ToolUse {
        id: String,
        name: String,
        #[tsify(type = "unknown")]
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        content: String,
        is_error: bool,
    },
    /// Plain text inside a block list: a model's words beside its tool calls, or the host's reminder.
    Text {
        text: String,
    },
}

/// The language of every text the lesson prints.
#[derive(Serialize, Deserialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Zh,
    En,
}

impl Lang {
    /// The Chinese or the English text.
    pub fn pick<'a>(self, zh: &'a str, en: &'a str) -> &'a str {
        match self {
            Lang::Zh => zh,
            Lang::En => en,
        }
    }
}

/// Why a plan was rejected; `position` is the item's 1-based place in the submitted list, and
/// `field` the first of `id`, `content`, `status` (checked in that order) whose value is not a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TodoError {
    NotAList,
    TooManyItems { count: usize },
    BadShape { position: usize },
    NotAString { position: usize, field: &'static str },
    EmptyId { position: usize },
    IdTooLong { position: usize, id: String },
    DuplicateId { position: usize, id: String },
    EmptyContent { position: usize, id: String },
    ContentTooLong { position: usize, id: String },
    UnknownStatus { position: usize, id: String, status: String },
    TooManyActive { position: usize, id: String },
    NoUserText,
}
