//! Reader-typed input: a small parser from JSON or a Python literal to a JSON value, within limits.
//!
//! The page lets a reader type a plan of their own. This parser reads that text as data and
//! nothing else: a name such as `__import__` is a parse error, never looked up or called. It is
//! hand-written because it must also read the Python literals that the course accepts as tool
//! input, and because every limit must be checked before the work grows.
//!
//! One grammar covers both JSON and Python literals, so the reader need not say which they wrote:
//!
//! - values: lists `[...]`, objects `{...}` with string keys, strings, numbers, `true`/`false`/`null`
//!   and Python's `True`/`False`/`None`;
//! - strings in double or single quotes; escapes are JSON's and Python's (`\n \t \r \b \f \a \v
//!   \\ \' \" \/`, `\xHH`, `\uHHHH`, `\UHHHHHHHH`, octal `\0`..`\777`, and a backslash before a line
//!   break continues the string); any other escape (`\d`, `\N{...}`) is an error, not kept as is;
//! - a trailing comma is allowed after the last element of a non-empty list or object, as in
//!   Python (`[1,]`), but `[,]` and `[1,,]` are errors;
//! - white space between tokens is space, tab, line feed, carriage return and form feed; a `#`
//!   starts a comment that runs to the end of the line, as in Python;
//! - numbers follow JSON's grammar (no hex, underscores or `+`).
//!
//! Decisions where JSON, Python and Rust disagree (each gives an error or one defined value):
//!
//! - **Numbers** are read as serde_json reads them (`-0` is the float `-0.0`), within what one
//!   exact step can read: an integer must lie within ±(2^53 − 1), the range a JavaScript number
//!   holds exactly, so it reaches the page unchanged (`99999999999999999999999` is a
//!   `parse_error`, not a silently rounded float); a number with a fraction or exponent must have
//!   a significand of at most 2^53 and a power of ten within ±22 once trailing zeros are
//!   counted, which makes it one correctly rounded operation on two exact values (`0.1`,
//!   `2.5e3`, `1e37` and `-1.25e-7` are fine; `1e999`, `1e-30` and 17 significant digits are
//!   `parse_error`s). Numbers are never valid plan values, so nothing is lost, and the module
//!   does without core's general float parser and its 10 KB of tables.
//! - **Surrogates**: `\uD83D\uDE00` (a UTF-16 pair) is one character, as in JSON. A lone half
//!   (`"\ud800"`) is a `parse_error` at the escape: Rust strings hold Unicode scalar values only,
//!   and replacing it with U+FFFD would silently change the reader's text.
//! - **Duplicate keys**: an object that repeats a key is a `parse_error` at the second one,
//!   rather than keeping the last value (Python) and silently dropping the first.
//! - **`__proto__`**: a `parse_error` as a key, because a JavaScript object receiving it would
//!   change its prototype instead of storing the value, so the page would show other data.
//!
//! Limits, each checked before the work it guards: the text is at most [`MAX_INPUT_BYTES`] of
//! UTF-8 (`input_too_large`, checked before parsing starts), and lists and objects nest at most
//! [`MAX_DEPTH`] deep (`too_deep`, checked before descending, with an explicit counter, so the
//! stack stays small whatever the text). Positions are 1-based lines and columns, columns
//! counted in characters (Unicode scalar values); only a line feed ends a line.

use serde_json::{Map, Number, Value};

mod messages;

/// The longest text accepted, in bytes of UTF-8: 64 KiB.
pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// The deepest nesting of lists and objects accepted; a plan needs 2.
pub const MAX_DEPTH: usize = 32;
/// The largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Why the text could not become a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    /// The text is longer than [`MAX_INPUT_BYTES`]: `bytes` of UTF-8 at least. [`parse`] counts
    /// them exactly; the wasm layer refuses a JS string by its UTF-16 length before copying it,
    /// and a text has at least as many UTF-8 bytes as UTF-16 units.
    TooLarge { bytes: usize },
    /// A list or object opening at `at` would nest deeper than [`MAX_DEPTH`].
    TooDeep { at: Position },
    /// The text is not a value of the grammar; `at` is where the problem starts.
    Parse { at: Position, problem: Problem },
}

/// A place in the text: 1-based line, and 1-based column counted in characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// What is wrong at a parse error's position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The text ends where `expected` should come.
    End { expected: Expected },
    /// `found` stands where `expected` should come.
    Unexpected { found: char, expected: Expected },
    /// A bare word other than true/false/null/True/False/None: names are never looked up.
    /// `name` is the word up to the next white space or punctuation of the grammar.
    Name { name: String },
    /// A string whose closing quote never comes (the position is its opening quote).
    Unclosed,
    /// A raw line break inside a string.
    LineBreak,
    /// An escape that is unknown or cut short, e.g. `\d`, `\N{...}`, `\u12`.
    Escape { escape: String },
    /// Half of a UTF-16 surrogate pair without its other half, e.g. `\ud800`.
    LoneSurrogate { escape: String },
    /// A number outside the range described in the module documentation.
    Number { number: String },
    /// A key that an object already has.
    DuplicateKey { key: String },
    /// The key `__proto__`.
    ProtoKey,
}

/// What the parser was looking for when the text ended or went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    Value,
    /// `,` or `]` after a list element.
    ListNext,
    /// `,` or `}` after an object entry.
    ObjectNext,
    /// A quoted key, or `}`.
    Key,
    Colon,
    Digit,
    /// Nothing more: the value is complete.
    End,
}

/// Reads `text` as one value, or says what is wrong and where.
pub fn parse(text: &str) -> Result<Value, InputError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge { bytes: text.len() });
    }
    let mut parser = Parser { text, pos: 0, depth: 0 };
    let result = parser.value().and_then(|value| {
        parser.skip_blank();
        match parser.peek() {
            None => Ok(value),
            Some(found) => Err(parser.unexpected(found, Expected::End)),
        }
    });
    result.map_err(|Failure { at, fault }| {
        let at = position(text, at);
        match fault {
            Fault::TooDeep => InputError::TooDeep { at },
            Fault::Bad(problem) => InputError::Parse { at, problem },
        }
    })
}

/// A failure inside the parser, at a byte offset; [`parse`] turns it into a line and column.
struct Failure {
    at: usize,
    fault: Fault,
}

enum Fault {
    TooDeep,
    Bad(Problem),
}

type Parsed<T> = Result<T, Failure>;

fn bad(at: usize, problem: Problem) -> Failure {
    Failure { at, fault: Fault::Bad(problem) }
}

/// A float literal of the grammar (`-12.5e-3`) as the nearest f64, when one operation gets it
/// exactly right: a significand and a power of ten that are both exact in an f64 (at most 2^53,
/// and 10^0 to 10^22), so the single multiplication or division rounds once, correctly
/// (Clinger's fast path). `None` for anything beyond that.
fn exact_float(literal: &str) -> Option<f64> {
    const EXACT_SIGNIFICAND: u64 = 1 << 53;
    let (mantissa, exponent) = literal.split_once(['e', 'E']).unwrap_or((literal, "0"));
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let negative = whole.starts_with('-');
    let digits = format!("{}{fraction}", whole.trim_start_matches('-'));
    let significant = digits.trim_start_matches('0').trim_end_matches('0');
    let trailing_zeros = digits.len() - digits.trim_end_matches('0').len();
    let mut exponent = exponent.parse::<i64>().ok()? - fraction.len() as i64
        + trailing_zeros.min(digits.len()) as i64;
    let mut significand: u64 = if significant.is_empty() { 0 } else { significant.parse().ok()? };
    if significand == 0 {
        exponent = 0;
    }
    if significand > EXACT_SIGNIFICAND {
        return None;
    }
    // 1e37 is 10^15 x 10^22: move powers of ten into the significand while it stays exact.
    while exponent > 22 && significand * 10 <= EXACT_SIGNIFICAND {
        significand *= 10;
        exponent -= 1;
    }
    if !(-22..=22).contains(&exponent) {
        return None;
    }
    let power = (0..exponent.abs()).fold(1.0_f64, |power, _| power * 10.0);
    let value = if exponent < 0 { significand as f64 / power } else { significand as f64 * power };
    Some(if negative { -value } else { value })
}

/// The punctuation of the grammar, and the brackets of a call: where a bare word ends.
const DELIMITERS: [char; 13] = ['[', ']', '{', '}', '(', ')', ',', ':', ';', '=', '\'', '"', '#'];

struct Parser<'a> {
    text: &'a str,
    /// Byte offset of the next character.
    pos: usize,
    /// How many lists and objects are open around `pos`.
    depth: usize,
}

impl Parser<'_> {
    /// The text from byte `start` to byte `end`, both character boundaries (the parser moves by whole
    /// characters). `get`, not indexing: a failed index's panic would quote the text with `Debug`,
    /// formatting code (about 5 KB of wasm) that nothing else needs.
    fn slice(&self, start: usize, end: usize) -> &str {
        self.text.get(start..end).unwrap_or_default()
    }

    fn peek(&self) -> Option<char> {
        self.slice(self.pos, self.text.len()).chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, wanted: char) -> bool {
        let found = self.peek() == Some(wanted);
        if found {
            self.pos += wanted.len_utf8();
        }
        found
    }

    /// The error for what stands at `pos` (or the end of the text) when `expected` should.
    fn unexpected_here(&self, expected: Expected) -> Failure {
        match self.peek() {
            Some(found) => self.unexpected(found, expected),
            None => bad(self.pos, Problem::End { expected }),
        }
    }

    fn unexpected(&self, found: char, expected: Expected) -> Failure {
        bad(self.pos, Problem::Unexpected { found, expected })
    }

    /// Skips white space and `#` comments between tokens.
    fn skip_blank(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | '\r' | '\u{c}' => self.pos += 1,
                '#' => {
                    let rest = self.slice(self.pos, self.text.len());
                    self.pos += rest.find('\n').unwrap_or(rest.len());
                }
                _ => break,
            }
        }
    }

    fn value(&mut self) -> Parsed<Value> {
        self.skip_blank();
        match self.peek() {
            Some('[') => self.nested(Self::list),
            Some('{') => self.nested(Self::object),
            Some(quote @ ('"' | '\'')) => self.string(quote).map(Value::String),
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => self.word(),
            _ => Err(self.unexpected_here(Expected::Value)),
        }
    }

    /// Opens a list or object, if one more level of nesting is allowed.
    fn nested(&mut self, inner: fn(&mut Self) -> Parsed<Value>) -> Parsed<Value> {
        // Checked before descending: the Rust stack never holds more than MAX_DEPTH levels.
        if self.depth == MAX_DEPTH {
            return Err(Failure { at: self.pos, fault: Fault::TooDeep });
        }
        self.depth += 1;
        let value = inner(self);
        self.depth -= 1;
        value
    }

    fn list(&mut self) -> Parsed<Value> {
        self.pos += 1; // the `[`
        let mut items = Vec::new();
        loop {
            self.skip_blank();
            // Either an empty list or a trailing comma: `[]`, `[1,]`.
            if self.eat(']') {
                return Ok(Value::Array(items));
            }
            items.push(self.value()?);
            self.skip_blank();
            if self.eat(']') {
                return Ok(Value::Array(items));
            }
            if !self.eat(',') {
                return Err(self.unexpected_here(Expected::ListNext));
            }
        }
    }

    fn object(&mut self) -> Parsed<Value> {
        self.pos += 1; // the `{`
        let mut fields = Map::new();
        loop {
            self.skip_blank();
            // Either an empty object or a trailing comma: `{}`, `{'a': 1,}`.
            if self.eat('}') {
                return Ok(Value::Object(fields));
            }
            let key_at = self.pos;
            let key = match self.peek() {
                Some(quote @ ('"' | '\'')) => self.string(quote)?,
                _ => return Err(self.unexpected_here(Expected::Key)),
            };
            if key == "__proto__" {
                return Err(bad(key_at, Problem::ProtoKey));
            }
            if fields.contains_key(&key) {
                return Err(bad(key_at, Problem::DuplicateKey { key }));
            }
            self.skip_blank();
            if !self.eat(':') {
                return Err(self.unexpected_here(Expected::Colon));
            }
            let value = self.value()?;
            fields.insert(key, value);
            self.skip_blank();
            if self.eat('}') {
                return Ok(Value::Object(fields));
            }
            if !self.eat(',') {
                return Err(self.unexpected_here(Expected::ObjectNext));
            }
        }
    }

    fn string(&mut self, quote: char) -> Parsed<String> {
        let open = self.pos;
        self.pos += 1; // the opening quote
        let mut text = String::new();
        loop {
            match self.next() {
                None => return Err(bad(open, Problem::Unclosed)),
                Some(c) if c == quote => return Ok(text),
                Some('\n' | '\r') => return Err(bad(self.pos - 1, Problem::LineBreak)),
                Some('\\') => match self.next() {
                    None => return Err(bad(open, Problem::Unclosed)),
                    Some(c) => self.escape(c, &mut text)?,
                },
                Some(c) => text.push(c),
            }
        }
    }

    /// Decodes the escape `\c` (both already read) into `text`.
    fn escape(&mut self, c: char, text: &mut String) -> Parsed<()> {
        let start = self.pos - 1 - c.len_utf8(); // the backslash
        let decoded = match c {
            '\\' | '\'' | '"' | '/' => c,
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'a' => '\u{7}',
            'v' => '\u{b}',
            // Python: a backslash before a line break continues the string on the next line.
            '\n' => return Ok(()),
            '\r' => {
                self.eat('\n');
                return Ok(());
            }
            '0'..='7' => self.octal(c),
            'x' => self.code_point(start, 2)?,
            'u' => self.utf16(start)?,
            'U' => self.code_point(start, 8)?,
            _ => return Err(self.bad_escape(start)),
        };
        text.push(decoded);
        Ok(())
    }

    fn bad_escape(&self, start: usize) -> Failure {
        bad(start, Problem::Escape { escape: self.slice(start, self.pos).to_string() })
    }

    /// Python's octal escape: up to three octal digits, the first already read.
    fn octal(&mut self, first: char) -> char {
        let mut code = first.to_digit(8).unwrap_or_default();
        for _ in 0..2 {
            match self.peek().and_then(|c| c.to_digit(8)) {
                Some(digit) => {
                    code = code * 8 + digit;
                    self.pos += 1;
                }
                None => break,
            }
        }
        // At most 0o777 = 511, always a character.
        char::from_u32(code).unwrap_or_default()
    }

    /// Exactly `count` hex digits, as `\x` and `\u` and `\U` take them.
    fn hex(&mut self, start: usize, count: usize) -> Parsed<u32> {
        let mut code: u32 = 0;
        for _ in 0..count {
            let Some(digit) = self.peek().and_then(|c| c.to_digit(16)) else {
                return Err(self.bad_escape(start));
            };
            // At most 8 digits are read, so this fits in a u32.
            code = (code << 4) | digit;
            self.pos += 1;
        }
        Ok(code)
    }

    /// `\xHH` or `\UHHHHHHHH`: one code point, which must be a character.
    fn code_point(&mut self, start: usize, digits: usize) -> Parsed<char> {
        let code = self.hex(start, digits)?;
        char::from_u32(code).ok_or_else(|| {
            let escape = self.slice(start, self.pos).to_string();
            if (0xD800..=0xDFFF).contains(&code) {
                bad(start, Problem::LoneSurrogate { escape })
            } else {
                bad(start, Problem::Escape { escape })
            }
        })
    }

    /// `\uHHHH`: a character, or a UTF-16 surrogate pair written as two such escapes.
    fn utf16(&mut self, start: usize) -> Parsed<char> {
        let high = self.hex(start, 4)?;
        if let Some(c) = char::from_u32(high) {
            return Ok(c);
        }
        let lone = |parser: &Self| {
            let escape = parser.slice(start, start + 6).to_string();
            bad(start, Problem::LoneSurrogate { escape })
        };
        if !(0xD800..=0xDBFF).contains(&high) {
            return Err(lone(self)); // a low half with no high half before it
        }
        let rest = self.slice(self.pos, self.text.len());
        let low = rest.strip_prefix("\\u").and_then(|hex| {
            let digits = hex.get(..4)?;
            let low = u32::from_str_radix(digits, 16).ok()?;
            (digits.bytes().all(|b| b.is_ascii_hexdigit()) && (0xDC00..=0xDFFF).contains(&low))
                .then_some(low)
        });
        let Some(low) = low else {
            return Err(lone(self));
        };
        self.pos += 6;
        let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
        char::from_u32(code).ok_or_else(|| lone(self))
    }

    fn number(&mut self) -> Parsed<Value> {
        let start = self.pos;
        self.eat('-');
        // JSON: a leading zero stands alone (`0`, `0.5`); `01` is not a number.
        if !self.eat('0') {
            self.digits()?;
        }
        let mut float = false;
        if self.eat('.') {
            float = true;
            self.digits()?;
        }
        if self.eat('e') || self.eat('E') {
            float = true;
            if !self.eat('+') {
                self.eat('-');
            }
            self.digits()?;
        }
        let literal = self.slice(start, self.pos);
        // As serde_json reads it (and JavaScript): `-0` is the float -0.0, not the integer 0.
        let float = float || literal == "-0";
        let number = if float {
            exact_float(literal).and_then(Number::from_f64)
        } else {
            literal
                .parse::<i64>()
                .ok()
                .filter(|n| (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(n))
                .map(Number::from)
        };
        number
            .map(Value::Number)
            .ok_or_else(|| bad(start, Problem::Number { number: literal.to_string() }))
    }

    /// One or more ASCII digits.
    fn digits(&mut self) -> Parsed<()> {
        if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
            return Err(self.unexpected_here(Expected::Digit));
        }
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        Ok(())
    }

    /// A bare word, which runs to the next white space or punctuation of the grammar (so `é`,
    /// `中文` and `os.system` are named whole): only the six spellings of true, false and null are
    /// values.
    fn word(&mut self) -> Parsed<Value> {
        let start = self.pos;
        while let Some(c) = self.peek().filter(|c| !c.is_whitespace() && !DELIMITERS.contains(c)) {
            self.pos += c.len_utf8();
        }
        match self.slice(start, self.pos) {
            "true" | "True" => Ok(Value::Bool(true)),
            "false" | "False" => Ok(Value::Bool(false)),
            "null" | "None" => Ok(Value::Null),
            name => Err(bad(start, Problem::Name { name: name.to_string() })),
        }
    }
}

/// The line and column of byte offset `at`; only a line feed ends a line.
fn position(text: &str, at: usize) -> Position {
    // `get`, as in `Parser::slice`: `at` is a character boundary of `text`.
    let before = text.get(..at).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    // The text is at most MAX_INPUT_BYTES long, so both counts fit in a u32.
    Position {
        line: before.matches('\n').count() as u32 + 1,
        column: before.get(line_start..).unwrap_or_default().chars().count() as u32 + 1,
    }
}
