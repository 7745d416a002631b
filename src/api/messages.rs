//! What each rejection says, in Chinese and English; tests check the codes, not these words.
//!
//! `TodoError` speaks to the model about its plan; `InputError` to the reader about the text
//! they typed into the page; `ValueError` to an author about the JS value they gave a figure.

use crate::api::input::{
    Expected, InputError, Problem, MAX_DEPTH, MAX_INPUT_BYTES, MAX_SAFE_INTEGER,
};
use crate::api::js_value::{NotData, ValueError};
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

impl InputError {
    /// `input_too_large`, `too_deep` or `parse_error`.
    pub fn code(&self) -> &'static str {
        match self {
            InputError::TooLarge { .. } => "input_too_large",
            InputError::TooDeep { .. } => "too_deep",
            InputError::Parse { .. } => "parse_error",
        }
    }

    /// A sentence that names the limit that was hit, or says what is wrong and where; each arm
    /// gives the Chinese text, then the English.
    pub fn message(&self, lang: Lang) -> String {
        let (zh, en) = match self {
            InputError::TooLarge { bytes } => (
                format!("输入至少有 {bytes} 字节，超过了输入大小的上限 {MAX_INPUT_BYTES} 字节（64 KiB）。"),
                format!("The input is at least {bytes} bytes long, over the input size limit of {MAX_INPUT_BYTES} bytes (64 KiB)."),
            ),
            InputError::TooDeep { at } => (
                format!("第 {} 行第 {} 列：列表和对象嵌套超过了嵌套深度的上限 {MAX_DEPTH} 层。", at.line, at.column),
                format!("Line {}, column {}: lists and objects nest deeper than the nesting limit of {MAX_DEPTH} levels.", at.line, at.column),
            ),
            InputError::Parse { at, problem } => (
                format!("第 {} 行第 {} 列：{}", at.line, at.column, problem.message(lang)),
                format!("Line {}, column {}: {}", at.line, at.column, problem.message(lang)),
            ),
        };
        lang.pick(&zh, &en).to_string()
    }

    pub fn info(&self, lang: Lang) -> ErrorInfo {
        let at = match self {
            InputError::TooLarge { .. } => None,
            InputError::TooDeep { at } | InputError::Parse { at, .. } => Some(at),
        };
        ErrorInfo {
            code: self.code(),
            message: self.message(lang),
            line: at.map(|at| at.line),
            column: at.map(|at| at.column),
        }
    }
}

/// A character as a message shows it: quoted if visible, else by its code (U+00A0, U+202E).
fn shown(c: char) -> String {
    if c == '"' {
        "'\"'".into()
    } else if c == ' ' || invisible(c) {
        format!("U+{:04X}", c as u32)
    } else {
        format!("\"{c}\"")
    }
}

impl Problem {
    /// What is wrong, in `lang`; each arm gives the Chinese text, then the English.
    fn message(&self, lang: Lang) -> String {
        let (zh, en) = match self {
            Problem::End { expected } => (
                format!("文本在这里结束了，但这里应当是{}。", expected.text(Lang::Zh)),
                format!("the text ends where {} should come.", expected.text(Lang::En)),
            ),
            Problem::Unexpected { found, expected } => (
                format!("这里应当是{}，却是 {}。", expected.text(Lang::Zh), shown(*found)),
                format!("found {} where {} should come.", shown(*found), expected.text(Lang::En)),
            ),
            Problem::Name { name } => (
                format!("{} 是一个名字，不是数据：这里只读取字面值（字符串、数字、列表、对象、True、False、None），从不执行任何代码。", quoted(name)),
                format!("{} is a name, not data: only literal values are read here (strings, numbers, lists, objects, True, False, None), and nothing is ever run.", quoted(name)),
            ),
            Problem::Unclosed => {
                ("这个字符串没有结束的引号。".into(), "this string is never closed.".into())
            }
            Problem::LineBreak => (
                "字符串里不能直接换行；请写成 \\n。".into(),
                "a string cannot contain a line break; write \\n instead.".into(),
            ),
            Problem::Escape { escape } => (
                format!("未知或不完整的转义 {}。", quoted(escape)),
                format!("unknown or incomplete escape {}.", quoted(escape)),
            ),
            Problem::LoneSurrogate { escape } => (
                format!("{} 是不成对的 UTF-16 代理项（只有一半），不是一个字符。", quoted(escape)),
                format!("{} is half of a UTF-16 surrogate pair without its other half, so it is not a character.", quoted(escape)),
            ),
            Problem::Number { number } => (
                format!("数字 {} 无法精确读取：整数必须在 ±{MAX_SAFE_INTEGER}（JavaScript 能精确表示的范围）之内；其他数字的有效数字不能超过 2^53，10 的幂次在 ±22 之内。", quoted(number)),
                format!("the number {} cannot be read exactly: integers must lie within ±{MAX_SAFE_INTEGER} (what JavaScript holds exactly); other numbers need a significand of at most 2^53 and a power of ten within ±22.", quoted(number)),
            ),
            Problem::DuplicateKey { key } => (
                format!("键 {} 在这个对象里出现了两次。", quoted(key)),
                format!("the key {} appears twice in this object.", quoted(key)),
            ),
            Problem::ProtoKey => (
                "不允许使用键 \"__proto__\"：JavaScript 对象收到它会改变自身的原型，而不是保存这个值。".into(),
                "the key \"__proto__\" is not allowed: a JavaScript object receiving it would change its prototype instead of storing the value.".into(),
            ),
        };
        lang.pick(&zh, &en).to_string()
    }
}

impl Expected {
    fn text(self, lang: Lang) -> &'static str {
        let (zh, en) = match self {
            Expected::Value => (
                "一个值（列表 [...]、对象 {...}、字符串、数字、True、False 或 None）",
                "a value (a list [...], an object {...}, a string, a number, True, False or None)",
            ),
            Expected::ListNext => ("逗号或 ]", "a comma or ]"),
            Expected::ObjectNext => ("逗号或 }", "a comma or }"),
            Expected::Key => ("带引号的键或 }", "a quoted key or }"),
            Expected::Colon => ("冒号 :", "a colon"),
            Expected::Digit => ("数字", "a digit"),
            Expected::End => (
                "输入的结尾（前面的值已经完整）",
                "the end of the input (the value before it is complete)",
            ),
        };
        lang.pick(zh, en)
    }
}

impl ValueError {
    /// `input_too_large` and `too_deep` as for text; `not_json` for what JSON does not hold.
    pub fn code(&self) -> &'static str {
        match self {
            ValueError::TextTooLarge { .. } | ValueError::TooLarge { .. } => "input_too_large",
            ValueError::TooDeep { .. } => "too_deep",
            ValueError::NotData { .. } => "not_json",
        }
    }

    /// A sentence naming the limit, or what is wrong and where (a path such as `[0].content`).
    pub fn message(&self, lang: Lang) -> String {
        let at = |path: &str| -> (String, String) {
            if path.is_empty() {
                ("值本身".into(), "the value itself".into())
            } else {
                (format!("值的 {path}"), format!("the value's {path}"))
            }
        };
        let (zh, en) = match self {
            // Reader text: worded as any text over the limit is.
            &ValueError::TextTooLarge { units } => {
                return InputError::TooLarge { bytes: units }.message(lang);
            }
            ValueError::TooLarge { bytes } => (
                format!("这个值写成 JSON 至少有 {bytes} 字节，超过了输入大小的上限 {MAX_INPUT_BYTES} 字节（64 KiB）。"),
                format!("The value is at least {bytes} bytes as JSON, over the input size limit of {MAX_INPUT_BYTES} bytes (64 KiB)."),
            ),
            ValueError::TooDeep { path } => {
                let (zh, en) = at(path);
                (
                    format!("{zh}：列表和对象嵌套超过了嵌套深度的上限 {MAX_DEPTH} 层。"),
                    format!("At {en}: lists and objects nest deeper than the nesting limit of {MAX_DEPTH} levels."),
                )
            }
            ValueError::NotData { path, what } => {
                let (zh_at, en_at) = at(path);
                let (zh, en) = what.text();
                (format!("{zh_at}是{zh}，不是 JSON 数据。"), format!("At {en_at}: {en}, which is not JSON data."))
            }
        };
        lang.pick(&zh, &en).to_string()
    }

    pub fn info(&self, lang: Lang) -> ErrorInfo {
        ErrorInfo { code: self.code(), message: self.message(lang), line: None, column: None }
    }
}

impl NotData {
    /// What was found, in Chinese and English.
    fn text(self) -> (&'static str, &'static str) {
        match self {
            NotData::Function => ("一个函数", "a function"),
            NotData::Symbol => ("一个 Symbol", "a symbol"),
            NotData::BigInt => ("一个 BigInt", "a BigInt"),
            NotData::Undefined => {
                ("undefined（或数组里的空位）", "undefined (or a hole in an array)")
            }
            NotData::NotFinite => ("NaN 或无穷大", "NaN or an infinite number"),
            NotData::NotPlain => (
                "一个不是普通对象的对象（如 Map、Date 或类的实例）",
                "an object that is not a plain object (a Map, a Date, a class instance)",
            ),
            NotData::ProtoKey => ("键 \"__proto__\"", "the key \"__proto__\""),
            NotData::Cycle => {
                ("一个包含它自身的对象（循环引用）", "an object that contains itself (a cycle)")
            }
            NotData::LoneSurrogate => (
                "一个含有孤立代理项（lone surrogate）的字符串",
                "a string with a lone UTF-16 surrogate",
            ),
            NotData::Unreadable => {
                ("一个读取时出错的属性", "a property whose getter (or Proxy trap) threw")
            }
        }
    }
}
