//! What an author is told about a JS value the page refused, in Chinese and English.

use crate::api::js_value::{NotData, ValueError};
use crate::host::input::{InputError, MAX_DEPTH, MAX_INPUT_BYTES};
use crate::lesson::Lang;
use crate::recorder::ErrorInfo;

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
