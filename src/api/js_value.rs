//! A JS value given as data (`traceValue`), checked against the reader-input limits before any of it is converted.
//!
//! `serde_wasm_bindgen` would copy whatever it is handed into Rust: a 100 MB string, an array nested
//! 100,000 deep (and recurse that deep), and it would loop forever on a cycle. So the value is walked
//! first, reading only what JSON would hold, and refused at the first thing over a limit: more than
//! [`MAX_DEPTH`] levels of lists and objects, more than [`MAX_INPUT_BYTES`] as compact JSON (counted
//! as it goes, so the walk stops there), or anything that is not JSON data: a function, a symbol, a
//! BigInt, `undefined` (also an array's hole), NaN or an infinite number, an object that is not plain
//! (a Map, a Date, a class instance), the key `__proto__` (as in `src/input.rs`), or a cycle.
//! What passes is then converted by serde-wasm-bindgen into a `Value` (its `Deserialize`, value.rs).

use js_sys::{Array, JsString, Number as JsNumber, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::api::input::{MAX_DEPTH, MAX_INPUT_BYTES};
use crate::recorder::json::{self, ToJson};
use serde_json::Number;

/// Why a JS value was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueError {
    /// The value is over [`MAX_INPUT_BYTES`] as JSON; `bytes` is what was counted when the walk stopped.
    TooLarge { bytes: usize },
    /// The list or object at `path` would be nested deeper than [`MAX_DEPTH`].
    TooDeep { path: String },
    /// What is at `path` is not JSON data.
    NotData { path: String, what: NotData },
}

/// The kinds of JS values that JSON does not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotData {
    Function,
    Symbol,
    BigInt,
    Undefined,
    NotFinite,
    NotPlain,
    ProtoKey,
    Cycle,
    /// A property whose getter threw.
    Unreadable,
    /// Something that passed the check but did not convert: a getter that answered differently.
    Changed,
}

/// Checks `value` against the limits without building anything of it in Rust but bounded strings.
pub fn check(value: &JsValue) -> Result<(), ValueError> {
    let plain = Object::get_prototype_of(&Object::new());
    let mut walk = Walk { bytes: 0, path: Vec::new(), open: Vec::new(), plain };
    walk.value(value)
}

struct Walk {
    /// The length of the compact JSON of what was walked so far, in bytes of UTF-8.
    bytes: usize,
    /// Where the walk is, as `[0]` and `.key` parts.
    path: Vec<String>,
    /// The lists and objects the walk is inside, outermost first (a cycle returns to one of them).
    open: Vec<JsValue>,
    /// `Object.prototype`, the prototype of a plain object.
    plain: Object,
}

impl Walk {
    fn add(&mut self, bytes: usize) -> Result<(), ValueError> {
        self.bytes += bytes;
        if self.bytes > MAX_INPUT_BYTES {
            return Err(ValueError::TooLarge { bytes: self.bytes });
        }
        Ok(())
    }

    /// Refuses, without counting them, `more` bytes that would go over the limit.
    fn fits(&self, more: usize) -> Result<(), ValueError> {
        if self.bytes + more > MAX_INPUT_BYTES {
            return Err(ValueError::TooLarge { bytes: self.bytes + more });
        }
        Ok(())
    }

    fn path(&self) -> String {
        self.path.concat()
    }

    fn refuse(&self, what: NotData) -> ValueError {
        ValueError::NotData { path: self.path(), what }
    }

    fn value(&mut self, value: &JsValue) -> Result<(), ValueError> {
        if value.is_null() {
            return self.add(4);
        }
        if let Some(flag) = value.as_bool() {
            return self.add(if flag { 4 } else { 5 });
        }
        if let Some(number) = value.as_f64() {
            return self.number(value, number);
        }
        if let Some(text) = value.dyn_ref::<JsString>() {
            return self.string(text).map(drop);
        }
        let what = if value.is_undefined() {
            Some(NotData::Undefined)
        } else if value.is_function() {
            Some(NotData::Function)
        } else if value.is_symbol() {
            Some(NotData::Symbol)
        } else if value.is_bigint() {
            Some(NotData::BigInt)
        } else {
            None
        };
        if let Some(what) = what {
            return Err(self.refuse(what));
        }
        if self.open.iter().any(|open| Object::is(open, value)) {
            return Err(self.refuse(NotData::Cycle));
        }
        if self.open.len() == MAX_DEPTH {
            return Err(ValueError::TooDeep { path: self.path() });
        }
        self.open.push(value.clone());
        let walked = if Array::is_array(value) {
            self.array(value.unchecked_ref())
        } else {
            self.object(value)
        };
        self.open.pop();
        walked
    }

    /// A number as serde_json writes what `serde_wasm_bindgen` makes of it: a safe integer as an
    /// integer, anything else as a float.
    fn number(&mut self, value: &JsValue, number: f64) -> Result<(), ValueError> {
        if !number.is_finite() {
            return Err(self.refuse(NotData::NotFinite));
        }
        // Written as a trace writes it (`json`), and measured.
        let mut written = Vec::new();
        if JsNumber::is_safe_integer(value) {
            (number as i64).to_json(&mut written);
        } else {
            Number::from_f64(number).to_json(&mut written);
        }
        self.add(written.len())
    }

    /// Counts a string and returns it. Each UTF-16 unit is at least one byte of UTF-8, so a string
    /// too long in units is refused before it is copied, and the copy is bounded by the limit.
    fn string(&mut self, text: &JsString) -> Result<String, ValueError> {
        self.fits(2 + text.length() as usize)?;
        let text = String::from(text);
        self.add(json::string_len(&text))?;
        Ok(text)
    }

    fn array(&mut self, array: &Array) -> Result<(), ValueError> {
        let length = array.length() as usize;
        // Brackets, and each element at least one byte and a comma: refused before walking a huge array.
        self.fits(2 + (2 * length).saturating_sub(1))?;
        self.add(2 + length.saturating_sub(1))?;
        for index in 0..length {
            self.path.push(format!("[{index}]"));
            self.value(&array.get(index as u32))?;
            self.path.pop();
        }
        Ok(())
    }

    fn object(&mut self, value: &JsValue) -> Result<(), ValueError> {
        let prototype =
            Reflect::get_prototype_of(value).map_err(|_| self.refuse(NotData::NotPlain))?;
        if !(prototype.is_null() || Object::is(&prototype, &self.plain)) {
            return Err(self.refuse(NotData::NotPlain));
        }
        // Own enumerable string keys: what JSON.stringify and serde_wasm_bindgen (Object.entries) read.
        let keys = Object::keys(value.unchecked_ref::<Object>());
        let length = keys.length() as usize;
        // Braces, and each entry at least `"":0` and a comma.
        self.fits(2 + (5 * length).saturating_sub(1))?;
        self.add(2 + length.saturating_sub(1))?;
        for index in 0..length {
            let key = keys.get(index as u32);
            let key = key.unchecked_ref::<JsString>();
            let name = self.string(key)?;
            self.add(1)?; // the colon
            self.path.push(path_part(&name));
            if name == "__proto__" {
                return Err(self.refuse(NotData::ProtoKey));
            }
            let entry = Reflect::get(value, key).map_err(|_| self.refuse(NotData::Unreadable))?;
            self.value(&entry)?;
            self.path.pop();
        }
        Ok(())
    }
}

/// `.key` for a key that reads as a name, else `["key"]`.
fn path_part(key: &str) -> String {
    let name = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if name {
        format!(".{key}")
    } else {
        let mut quoted = Vec::new();
        json::string(&mut quoted, key);
        // json::string writes UTF-8: it copies the key and adds ASCII escapes.
        format!("[{}]", String::from_utf8(quoted).unwrap_or_default())
    }
}
