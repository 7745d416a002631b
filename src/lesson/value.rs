//! JSON-like data as a model sends it (the submitted items, a tool call's input): a `Value` of the
//! crate's own, with serde_json's names and the few methods the lesson calls.
//!
//! serde_json's `Value` keeps an object's keys in order through `indexmap`, which with its hash
//! table and SipHash was about 10 KB of the wasm module (issue 14, the folder's size). The objects
//! here hold a few keys, so a list of pairs does: a key is found by comparing. Equality, the text
//! (`json.rs`) and serde's view are serde_json's, and tests hold them to it.

use std::fmt;
use std::ops::Index;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::recorder::text_hash;

/// A JSON value.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Map<String, Value>),
}

/// What indexing a value by a key it lacks gives, as in serde_json.
static NULL: Value = Value::Null;

impl Value {
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map<String, Value>> {
        match self {
            Value::Object(fields) => Some(fields),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(text) => Some(text),
            _ => None,
        }
    }
}

/// `value["key"]`: the field, or `null` where there is none (not an object, or no such key).
impl Index<&str> for Value {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        self.as_object().and_then(|fields| fields.get(key)).unwrap_or(&NULL)
    }
}

/// `value == "text"`: a string with that text (as in serde_json).
impl PartialEq<&str> for Value {
    fn eq(&self, text: &&str) -> bool {
        self.as_str() == Some(*text)
    }
}

impl From<&str> for Value {
    fn from(text: &str) -> Value {
        Value::String(text.to_owned())
    }
}

impl From<String> for Value {
    fn from(text: String) -> Value {
        Value::String(text)
    }
}

impl From<bool> for Value {
    fn from(flag: bool) -> Value {
        Value::Bool(flag)
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Value {
        Value::Number((n as u64).into())
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Number(n.into())
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Number(n.into())
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(items: Vec<T>) -> Value {
        Value::Array(items.into_iter().map(Into::into).collect())
    }
}

/// A JSON number: an integer exactly, or a finite float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number(N);

#[derive(Clone, Copy, Debug, PartialEq)]
enum N {
    PosInt(u64),
    /// Always below zero.
    NegInt(i64),
    /// Always finite.
    Float(f64),
}

impl Number {
    /// `None` for NaN and the infinities, which JSON cannot write.
    pub fn from_f64(f: f64) -> Option<Number> {
        f.is_finite().then_some(Number(N::Float(f)))
    }

    pub fn is_f64(&self) -> bool {
        matches!(self.0, N::Float(_))
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self.0 {
            N::PosInt(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            N::PosInt(n) => i64::try_from(n).ok(),
            N::NegInt(n) => Some(n),
            N::Float(_) => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        Some(match self.0 {
            N::PosInt(n) => n as f64,
            N::NegInt(n) => n as f64,
            N::Float(f) => f,
        })
    }
}

impl From<i64> for Number {
    fn from(n: i64) -> Number {
        Number(if n < 0 { N::NegInt(n) } else { N::PosInt(n as u64) })
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Number {
        Number(N::PosInt(n))
    }
}

/// An object: its fields in the order they were first given. `K` is always `String`; it is a
/// parameter so that the type reads as serde_json's does in the locals pane (`Map<String, Value>`).
#[derive(Clone, Debug)]
pub struct Map<K, V> {
    fields: Vec<(K, V)>,
}

impl Default for Map<String, Value> {
    fn default() -> Self {
        Map::new()
    }
}

impl Map<String, Value> {
    pub fn new() -> Self {
        Map { fields: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.fields.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, value)| value)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key`; a key given again keeps its first place and takes the new value (as a JSON
    /// object literal read twice, and as serde_json's ordered map), returning the old one.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.fields.iter_mut().find(|(k, _)| *k == key) {
            Some((_, old)) => Some(std::mem::replace(old, value)),
            None => {
                self.fields.push((key, value));
                None
            }
        }
    }

    /// Removes `key`, keeping the other fields in their order (serde_json's name for it).
    pub fn shift_remove(&mut self, key: &str) -> Option<Value> {
        let at = self.fields.iter().position(|(k, _)| k == key)?;
        Some(self.fields.remove(at).1)
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.fields.iter().map(|(key, _)| key)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.into_iter()
    }
}

impl<'a> IntoIterator for &'a Map<String, Value> {
    type Item = (&'a String, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Value)>,
        fn(&'a (String, Value)) -> Self::Item,
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.fields.iter().map(|(key, value)| (key, value))
    }
}

/// `fields["key"]`: the field, or `null` where there is none.
impl Index<&str> for Map<String, Value> {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

/// Two objects are equal when they have the same keys with equal values, in any order (as in
/// serde_json).
impl PartialEq for Map<String, Value> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(key, value)| other.get(key) == Some(value))
    }
}

impl FromIterator<(String, Value)> for Map<String, Value> {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(pairs: I) -> Self {
        let mut builder = MapBuilder::default();
        for (key, value) in pairs {
            builder.insert(key, value);
        }
        builder.map
    }
}

/// An object being read, field by field: each key is found through a table of the keys' hashes
/// (`recorder::text_hash`), not by comparing it with every key before it. (Compared one by one, an
/// object of 7,346 keys, within the input limit, took 120 ms natively to read; through the table,
/// 3-5 ms.)
#[derive(Default)]
pub struct MapBuilder {
    map: Map<String, Value>,
    /// Open addressing: each slot holds a field's position in `map` plus one, 0 when empty. Its length
    /// is a power of two, at least twice the number of fields.
    slots: Vec<u32>,
}

impl MapBuilder {
    /// Where `key`'s slot is: the one holding its field, or the empty one where it would go.
    fn slot(&self, key: &str) -> usize {
        let mask = self.slots.len() - 1;
        // The hash's top bits: a multiplying hash mixes its input upwards, so its low bits vary least.
        let mut slot =
            (text_hash(key.as_bytes()) >> (64 - self.slots.len().trailing_zeros())) as usize;
        loop {
            match self.slots[slot] {
                0 => return slot,
                at if self.map.fields[at as usize - 1].0 == key => return slot,
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    pub fn contains_key(&self, key: &str) -> bool {
        !self.slots.is_empty() && self.slots[self.slot(key)] != 0
    }

    /// As [`Map::insert`]: a key given again keeps its first place and takes the new value.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        if 2 * (self.map.len() + 1) > self.slots.len() {
            self.grow();
        }
        let slot = self.slot(&key);
        match self.slots[slot] {
            0 => {
                self.map.fields.push((key, value));
                self.slots[slot] = self.map.len() as u32;
                None
            }
            at => Some(std::mem::replace(&mut self.map.fields[at as usize - 1].1, value)),
        }
    }

    fn grow(&mut self) {
        self.slots = vec![0; (2 * self.slots.len()).max(16)];
        for at in 0..self.map.len() {
            let slot = self.slot(&self.map.fields[at].0);
            self.slots[slot] = at as u32 + 1;
        }
    }

    pub fn finish(self) -> Map<String, Value> {
        self.map
    }
}

// serde's view, for the Rust side (`practice`, the tests); the trace writes its own text (json.rs).
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(flag) => serializer.serialize_bool(*flag),
            Value::Number(number) => match number.0 {
                N::PosInt(n) => serializer.serialize_u64(n),
                N::NegInt(n) => serializer.serialize_i64(n),
                N::Float(f) => serializer.serialize_f64(f),
            },
            Value::String(text) => serializer.serialize_str(text),
            Value::Array(items) => serializer.collect_seq(items),
            Value::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (key, value) in fields.iter() {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

/// Any self-describing data as a [`Value`]: what serde-wasm-bindgen makes of a JS value (js_value.rs).
struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("JSON data")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, flag: bool) -> Result<Value, E> {
        Ok(Value::Bool(flag))
    }

    fn visit_i64<E>(self, number: i64) -> Result<Value, E> {
        Ok(Value::from(number))
    }

    fn visit_u64<E>(self, number: u64) -> Result<Value, E> {
        Ok(Value::from(number))
    }

    fn visit_f64<E: de::Error>(self, number: f64) -> Result<Value, E> {
        Number::from_f64(number).map(Value::Number).ok_or_else(|| E::custom("not a finite number"))
    }

    fn visit_str<E>(self, text: &str) -> Result<Value, E> {
        Ok(Value::from(text))
    }

    fn visit_string<E>(self, text: String) -> Result<Value, E> {
        Ok(Value::String(text))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = MapBuilder::default();
        while let Some((key, value)) = map.next_entry()? {
            fields.insert(key, value);
        }
        Ok(Value::Object(fields.finish()))
    }
}

/// Compact JSON text, as serde_json's `Value` displays (`practice` prints a tool call's input so).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = Vec::new();
        crate::recorder::json::ToJson::to_json(self, &mut text);
        f.write_str(&String::from_utf8_lossy(&text))
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Value::Number(*self).fmt(f)
    }
}

/// `serde_json::json!`, made a [`Value`]: how the tests write their data.
#[macro_export]
macro_rules! value {
    ($($json:tt)+) => {
        $crate::lesson::value::Value::from(::serde_json::json!($($json)+))
    };
}

/// serde_json's value as ours (see [`value!`]).
impl From<serde_json::Value> for Value {
    fn from(value: serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(flag) => Value::Bool(flag),
            serde_json::Value::Number(n) => Value::Number(match (n.as_u64(), n.as_i64()) {
                (Some(n), _) => n.into(),
                (None, Some(n)) => n.into(),
                _ => Number(N::Float(n.as_f64().unwrap_or_default())),
            }),
            serde_json::Value::String(text) => Value::String(text),
            serde_json::Value::Array(items) => {
                Value::Array(items.into_iter().map(Into::into).collect())
            }
            serde_json::Value::Object(fields) => {
                Value::Object(fields.into_iter().map(|(key, value)| (key, value.into())).collect())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys given again keep their first place and take their last value, as serde_json's ordered map
    /// does, whether the object is small (compared key by key) or large (through the hash table).
    #[test]
    fn an_object_keeps_first_places_and_last_values() {
        for count in [3, 40, 2_000] {
            let pairs: Vec<(String, Value)> = (0..count * 2)
                .map(|i| (format!("k{}", (i * 7) % count), Value::from(i as u64)))
                .collect();
            let ours: Map<String, Value> = pairs.iter().cloned().collect();
            let mut theirs = serde_json::Map::new();
            for (key, value) in &pairs {
                theirs.insert(key.clone(), serde_json::to_value(value).unwrap());
            }
            let ours_in_order: Vec<(&String, &Value)> = ours.iter().collect();
            assert_eq!(ours_in_order.len(), theirs.len());
            for ((key, value), (their_key, their_value)) in ours_in_order.into_iter().zip(&theirs) {
                assert_eq!((key, &serde_json::to_value(value).unwrap()), (their_key, their_value));
            }
        }
    }

    #[test]
    fn lookups_find_fields_and_missing_ones_are_null() {
        let mut builder = MapBuilder::default();
        for i in 0..100u64 {
            assert!(!builder.contains_key(&format!("k{i}")));
            builder.insert(format!("k{i}"), Value::from(i));
            assert!(builder.contains_key(&format!("k{i}")));
        }
        let value = Value::Object(builder.finish());
        assert_eq!(value["k42"], Value::from(42u64));
        assert_eq!(value["k100"], Value::Null);
        assert_eq!(Value::from("x")["k1"], Value::Null);
        // Equal in any key order, as in serde_json.
        let a: Map<String, Value> =
            [("a".into(), Value::from(1u64)), ("b".into(), Value::Null)].into_iter().collect();
        let b: Map<String, Value> =
            [("b".into(), Value::Null), ("a".into(), Value::from(1u64))].into_iter().collect();
        assert_eq!(a, b);
        assert_ne!(a, Map::new());
    }
}
