//! The JSON text of the values a trace shows, written as serde_json writes them, without serde.
//!
//! A trace writes its values at nearly every step. Through serde that costs a serializer's code
//! for each type a binding can have; written here it costs what the text needs. (Issue 14, the
//! folder's size: measured in the README's Size section.) The output is byte for byte serde_json's
//! compact text, which the golden traces hold it to: keys in declaration order, strings escaped as
//! serde_json escapes them, numbers as serde_json writes them.

use std::rc::Rc;

use serde_json::{Map, Number, Value};

/// A value that writes itself as JSON text.
pub trait ToJson {
    /// Appends the value's compact JSON text to `out`.
    fn to_json(&self, out: &mut Vec<u8>);
}

/// `{"a":..,"b":..}` for a struct whose fields all are `ToJson`, in the order given (declaration order,
/// as serde derives it), written through [`Object`].
macro_rules! json_struct {
    ($ty:ty { $($field:ident),* }) => {
        impl $crate::recorder::json::ToJson for $ty {
            fn to_json(&self, out: &mut Vec<u8>) {
                $crate::recorder::json::Object::new(out)
                    $(.field(stringify!($field), &self.$field))*
                    .end();
            }
        }
    };
}
pub(crate) use json_struct;

/// An object written field by field: every struct's text goes through it, each field through
/// `dyn ToJson`, so there is one copy of this code rather than one per type (measured no slower
/// side by side). [`Object::maybe`] leaves an absent field out, as serde's
/// `skip_serializing_if = "Option::is_none"` does.
pub struct Object<'a> {
    out: &'a mut Vec<u8>,
    empty: bool,
}

impl<'a> Object<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Object<'a> {
        out.push(b'{');
        Object { out, empty: true }
    }

    /// `"key":value`; `key` is an identifier, which needs no escape.
    pub fn field(&mut self, key: &str, value: &dyn ToJson) -> &mut Self {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
        value.to_json(self.out);
        self
    }

    /// The field if the value is there; nothing if it is `None`.
    pub fn maybe<T: ToJson>(&mut self, key: &str, value: &Option<T>) -> &mut Self {
        match value {
            Some(value) => self.field(key, value),
            None => self,
        }
    }

    pub fn end(&mut self) {
        self.out.push(b'}');
    }
}

impl ToJson for str {
    fn to_json(&self, out: &mut Vec<u8>) {
        string(out, self);
    }
}

impl ToJson for String {
    fn to_json(&self, out: &mut Vec<u8>) {
        string(out, self);
    }
}

impl ToJson for bool {
    fn to_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(if *self { b"true" } else { b"false" });
    }
}

/// Integers through itoa, as serde_json writes them.
macro_rules! json_integer {
    ($($ty:ty),*) => {$(
        impl ToJson for $ty {
            fn to_json(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(itoa::Buffer::new().format(*self).as_bytes());
            }
        }
    )*};
}

json_integer!(usize, u32, u64, i32, i64);

impl ToJson for () {
    fn to_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"null");
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self, out: &mut Vec<u8>) {
        (**self).to_json(out);
    }
}

impl<T: ToJson + ?Sized> ToJson for &mut T {
    fn to_json(&self, out: &mut Vec<u8>) {
        (**self).to_json(out);
    }
}

impl<T: ToJson + ?Sized> ToJson for Rc<T> {
    fn to_json(&self, out: &mut Vec<u8>) {
        (**self).to_json(out);
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self, out: &mut Vec<u8>) {
        match self {
            Some(value) => value.to_json(out),
            None => out.extend_from_slice(b"null"),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json(&self, out: &mut Vec<u8>) {
        list(out, self.len(), &|i, out| self[i].to_json(out));
    }
}

/// `[a,b]`, element `i` written by `write`: one copy of the loop for every type of element.
fn list(out: &mut Vec<u8>, len: usize, write: &dyn Fn(usize, &mut Vec<u8>)) {
    out.push(b'[');
    for i in 0..len {
        if i > 0 {
            out.push(b',');
        }
        write(i, out);
    }
    out.push(b']');
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self, out: &mut Vec<u8>) {
        self.as_slice().to_json(out);
    }
}

impl<A: ToJson, B: ToJson> ToJson for (A, B) {
    fn to_json(&self, out: &mut Vec<u8>) {
        out.push(b'[');
        self.0.to_json(out);
        out.push(b',');
        self.1.to_json(out);
        out.push(b']');
    }
}

impl ToJson for Value {
    fn to_json(&self, out: &mut Vec<u8>) {
        match self {
            Value::Null => out.extend_from_slice(b"null"),
            Value::Bool(value) => value.to_json(out),
            Value::Number(number) => number.to_json(out),
            Value::String(text) => string(out, text),
            Value::Array(items) => items.to_json(out),
            Value::Object(fields) => fields.to_json(out),
        }
    }
}

impl ToJson for Map<String, Value> {
    fn to_json(&self, out: &mut Vec<u8>) {
        out.push(b'{');
        for (i, (key, value)) in self.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            string(out, key);
            out.push(b':');
            value.to_json(out);
        }
        out.push(b'}');
    }
}

impl ToJson for Number {
    fn to_json(&self, out: &mut Vec<u8>) {
        if let Some(n) = self.as_u64() {
            n.to_json(out);
        } else if let Some(n) = self.as_i64() {
            n.to_json(out);
        } else {
            // A float, always finite: the shortest form that reads back as the same float, as serde_json writes it.
            let f = self.as_f64().unwrap_or_default();
            out.extend_from_slice(zmij::Buffer::new().format_finite(f).as_bytes());
        }
    }
}

/// The escape serde_json writes for a byte of a string: the letter after its `\` (`u` for `\u00XX`),
/// or `None` for a byte written as it is. Only `"`, `\` and the control characters are escaped.
pub fn escape_of(byte: u8) -> Option<u8> {
    match byte {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        b'\n' => Some(b'n'),
        b'\r' => Some(b'r'),
        b'\t' => Some(b't'),
        0x08 => Some(b'b'),
        0x0c => Some(b'f'),
        0x00..=0x1f => Some(b'u'),
        _ => None,
    }
}

/// `text` as a JSON string, escaped exactly as serde_json escapes it ([`escape_of`]). Runs that
/// need no escape are copied whole.
pub fn string(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    out.push(b'"');
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let Some(escape) = escape_of(byte) else { continue };
        out.extend_from_slice(&bytes[start..i]);
        start = i + 1;
        if escape == b'u' {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(byte >> 4)]);
            out.push(HEX[usize::from(byte & 0xf)]);
        } else {
            out.push(b'\\');
            out.push(escape);
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// The length of what [`string`] writes for `text`, quotes included, without writing it.
pub fn string_len(text: &str) -> usize {
    let escapes: usize = text
        .bytes()
        .map(|byte| match escape_of(byte) {
            Some(b'u') => 5,
            Some(_) => 1,
            None => 0,
        })
        .sum();
    2 + text.len() + escapes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text<T: ToJson + ?Sized>(value: &T) -> String {
        let mut out = Vec::new();
        value.to_json(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let every_byte: String = (0u8..=0x7f).map(char::from).collect();
        for sample in [every_byte.as_str(), "", "plain", "清单 \u{2028} é \u{7f}", "\"\\\"\\\\"]
        {
            assert_eq!(text(&sample), serde_json::to_string(sample).unwrap(), "{sample:?}");
            assert_eq!(string_len(sample), text(&sample).len(), "{sample:?}");
        }
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let theirs = json!({
            "list": [1, -2, 3.5, -0.0, 1e300, 18446744073709551615u64, -9223372036854775808i64],
            "nested": {"b": null, "a": [true, false, "x\ny"], "": {}},
            "empty": [],
        });
        let ours = Value::from(theirs.clone());
        assert_eq!(text(&ours), serde_json::to_string(&theirs).unwrap());
        // And serde's view of ours (value.rs) is the same data.
        assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(&theirs).unwrap());
    }

    /// What crosses to JS through `to_js` (wasm.rs): the same text serde's derives would write.
    #[test]
    fn the_api_types_are_written_as_serde_json_writes_them() {
        use crate::host::figures::{scenarios, FIGURES};
        use crate::host::source::source;
        use crate::lesson::Lang;
        assert_eq!(text(&FIGURES[..]), serde_json::to_string(&FIGURES).unwrap());
        for figure in FIGURES {
            for lang in [Lang::Zh, Lang::En] {
                let listed = scenarios(figure.id.name(), lang).unwrap();
                assert_eq!(text(&listed), serde_json::to_string(&listed).unwrap());
            }
            for symbol in [figure.symbol, figure.entry] {
                let listing = source(symbol).unwrap();
                assert_eq!(text(&listing), serde_json::to_string(&listing).unwrap(), "{symbol}");
            }
        }
    }
}
