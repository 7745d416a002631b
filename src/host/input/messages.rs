//! What the reader is told about the text they typed into the page, in Chinese and English.

use super::{Expected, InputError, Problem, MAX_DEPTH, MAX_INPUT_BYTES, MAX_SAFE_INTEGER};
use crate::lesson::messages::{invisible, quoted};
use crate::lesson::Lang;
use crate::recorder::ErrorInfo;

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
