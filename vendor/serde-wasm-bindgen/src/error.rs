use wasm_bindgen::prelude::*;

/// A newtype that represents Serde errors as JavaScript exceptions.
#[derive(Debug)]
pub struct Error(JsValue);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        #[wasm_bindgen]
        extern "C" {
            #[wasm_bindgen(js_name = String)]
            pub fn to_string(value: &JsValue) -> String;
        }

        to_string(&self.0).fmt(f)
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Creates a JavaScript `Error` with a given message.
    pub fn new<T: std::fmt::Display>(msg: T) -> Self {
        Error(JsError::new(&msg.to_string()).into())
    }
}

impl serde::ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(msg)
    }
}

impl serde::de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(msg)
    }

    // todo-trace's patch (see PATCHED.md): these two replace serde's defaults, which format the
    // `Unexpected` with its own `Display`, whose float arm brings Rust's float formatting (about
    // 22 KB of wasm) into every module that deserializes. A float is written by JavaScript instead.
    fn invalid_type(unexp: serde::de::Unexpected, exp: &dyn serde::de::Expected) -> Self {
        Error::new(format_args!("invalid type: {}, expected {}", Unexpected(unexp), exp))
    }

    fn invalid_value(unexp: serde::de::Unexpected, exp: &dyn serde::de::Expected) -> Self {
        Error::new(format_args!("invalid value: {}, expected {}", Unexpected(unexp), exp))
    }
}

/// serde's `Unexpected` as its `Display` writes it, but a float as JavaScript's `String(number)`.
struct Unexpected<'a>(serde::de::Unexpected<'a>);

impl std::fmt::Display for Unexpected<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        use serde::de::Unexpected::*;
        match self.0 {
            Bool(b) => write!(formatter, "boolean `{}`", b),
            Unsigned(i) => write!(formatter, "integer `{}`", i),
            Signed(i) => write!(formatter, "integer `{}`", i),
            // `Error`'s `Display` is JavaScript's `String(value)`.
            Float(f) => write!(formatter, "floating point `{}`", Error(JsValue::from_f64(f))),
            Char(c) => write!(formatter, "character `{}`", c),
            // JSON's quoting (`JSON.stringify`), the same as Rust's `Debug` for printable text: that
            // `Debug` brings core's escaping and its panics' formatting (about 5 KB of wasm).
            Str(s) => write!(formatter, "string {}", Error(quoted(s))),
            Bytes(_) => formatter.write_str("byte array"),
            Unit => formatter.write_str("unit value"),
            Option => formatter.write_str("Option value"),
            NewtypeStruct => formatter.write_str("newtype struct"),
            Seq => formatter.write_str("sequence"),
            Map => formatter.write_str("map"),
            Enum => formatter.write_str("enum"),
            UnitVariant => formatter.write_str("unit variant"),
            NewtypeVariant => formatter.write_str("newtype variant"),
            TupleVariant => formatter.write_str("tuple variant"),
            StructVariant => formatter.write_str("struct variant"),
            Other(other) => formatter.write_str(other),
        }
    }
}

/// `s` in double quotes, as `JSON.stringify` writes a string.
fn quoted(s: &str) -> JsValue {
    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_namespace = JSON, js_name = stringify)]
        fn stringify(value: &JsValue) -> JsValue;
    }
    stringify(&JsValue::from_str(s))
}

/// This conversion is needed for `?` to just work when using wasm-bindgen
/// imports that return JavaScript exceptions as `Result<T, JsValue>`.
impl From<JsValue> for Error {
    fn from(error: JsValue) -> Error {
        Error(error)
    }
}

// This conversion is needed for `?` to just work in wasm-bindgen exports
// that return `Result<T, JsValue>` to throw JavaScript exceptions.
impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        error.0
    }
}
