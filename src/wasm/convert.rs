//! Value conversion from Rust to JS: results are written as JSON text and parsed once by
//! `JSON.parse` (inputs are read by [`super::fields::Fields`]).
//!
//! The values are those of `serde-wasm-bindgen`'s `Serializer::new().serialize_maps_as_objects(true)`,
//! which this replaces: `None`, `()` and unit structs are `undefined` (a struct field holding one
//! is present, with that value), numbers are JS numbers (NaN, ±Infinity and -0 kept; a 64-bit
//! integer beyond ±(2^53 − 1) is an error), maps and structs are plain objects, enum variants
//! with data are `{ variant: data }`. One deliberate difference: a map key `__proto__` is an own
//! property (as `JSON.parse` makes it), where the old path's prototype setter dropped it. JSON
//! has no `undefined` or NaN: `null` (which nothing else writes) stands for `undefined` and a
//! marker string for NaN, and a walk over the parsed value puts them back.

use crate::error::{Code, Error};
use serde::ser::{self, Serialize};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
export function fromJson(text, nan) {
  const value = JSON.parse(text);
  if (nan === undefined) return value;
  const back = (v) => (v === null ? undefined : v === nan ? NaN : v);
  const walk = (node) => {
    if (typeof node !== "object" || node === null) return;
    for (const key of Object.keys(node)) {
      const v = node[key];
      // An own `__proto__` (as JSON.parse makes it) is data: assigning to it stays own.
      if (v === null || v === nan) node[key] = back(v);
      else walk(v);
    }
  };
  walk(value);
  return back(value);
}
"#)]
extern "C" {
    /// `JSON.parse(text)`; with `nan`, every `null` becomes `undefined` and every string `nan`
    /// NaN (a walk over the parsed value: a reviver function costs about five times more).
    #[wasm_bindgen(js_name = fromJson)]
    fn from_json(text: &str, nan: Option<&str>) -> JsValue;
}

/// Rust value → plain JS value (maps become objects, `None` is `undefined`).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    write_js(&Ser(value), false)
}

/// [`to_js`] for a result made from a carried argument (`carried` true: see
/// `crate::lone_surrogates`): each stand-in becomes its unpaired surrogate again.
pub fn to_js_carried<T: Serialize + ?Sized>(value: &T, carried: bool) -> Result<JsValue, JsValue> {
    write_js(&Ser(value), carried)
}

/// A value [`write_js`] can write: a one-method trait rather than `dyn Fn`, whose vtable would
/// also carry `call_once`/`call_mut` shims for every value type.
trait WriteTo {
    fn write_to(&self, w: &mut Writer) -> Result<(), Failure>;
}

/// A serializable value, written through its `Serialize` impl.
struct Ser<'v, T: ?Sized>(&'v T);

impl<T: Serialize + ?Sized> WriteTo for Ser<'_, T> {
    fn write_to(&self, w: &mut Writer) -> Result<(), Failure> {
        self.0.serialize(w)
    }
}

/// The one non-generic half of [`to_js`]: write, pick a NaN marker no string equals, parse.
#[inline(never)]
fn write_js(value: &dyn WriteTo, carried: bool) -> Result<JsValue, JsValue> {
    let mut nan = String::from("\0NaN");
    loop {
        let mut w = Writer {
            out: String::new(),
            nan: &nan,
            nan_at: usize::MAX,
            revive: false,
            clash: false,
        };
        if let Err(Failure(e)) = value.write_to(&mut w) {
            return Err(super::error::to_js(Error::new(
                Code::InvalidInput,
                format!("cannot convert result: Error: {e}"),
            )));
        }
        // A clash matters only when the walk runs (it turns every marker string into NaN).
        if !(w.clash && w.revive) {
            let revive = w.revive;
            if carried {
                let json = crate::lone_surrogates::restore_in_json(&w.out);
                return Ok(from_json(&json, revive.then_some(w.nan)));
            }
            return Ok(from_json(&w.out, revive.then_some(w.nan)));
        }
        nan.push('!');
    }
}

/// Why a value has no JS form (the text `serde-wasm-bindgen` gave). Boxed so that it is one
/// pointer: every field's `Result<(), Failure>` then comes back in a register (1.6 KB gzip less
/// than a bare `String`).
#[derive(Debug)]
#[allow(clippy::box_collection)]
struct Failure(Box<String>);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

impl ser::Error for Failure {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Failure(Box::new(msg.to_string()))
    }
}

/// JSON text for [`from_json`].
struct Writer<'a> {
    out: String,
    /// What NaN is written as.
    nan: &'a str,
    /// Where the last NaN was written (a map key there is not a string).
    nan_at: usize,
    /// A `null` or NaN was written: the reviver must run.
    revive: bool,
    /// A string equal to `nan` was written: write again with another marker.
    clash: bool,
}

impl<'a> Writer<'a> {
    fn number(&mut self, n: f64) {
        if n.is_nan() {
            self.nan_at = self.out.len();
            self.revive = true;
            crate::json::push_string(&mut self.out, self.nan);
        } else if n.is_infinite() {
            // Past the largest double: `JSON.parse` reads ±Infinity.
            self.out.push_str(if n > 0.0 { "1e999" } else { "-1e999" });
        } else if n == 0.0 && n.is_sign_negative() {
            self.out.push_str("-0");
        } else {
            crate::json::push_number(&mut self.out, n);
        }
    }

    fn string(&mut self, s: &str) {
        self.clash |= s == self.nan;
        crate::json::push_string(&mut self.out, s);
    }

    fn undefined(&mut self) {
        self.revive = true;
        self.out.push_str("null");
    }

    /// `{"variant":` before a variant's data.
    fn open_variant(&mut self, variant: &str) {
        self.out.push('{');
        crate::json::push_string(&mut self.out, variant);
        self.out.push(':');
    }

    fn compound<'w>(&'w mut self, open: &'static str, close: &'static str) -> Compound<'w, 'a> {
        self.out.push_str(open);
        Compound {
            w: self,
            first: true,
            close,
        }
    }

    fn integer(&mut self, fits: bool, n: f64, text: &dyn std::fmt::Display) -> Result<(), Failure> {
        if fits {
            self.number(n);
            Ok(())
        } else {
            Err(Failure(Box::new(format!(
                "{text} can't be represented as a JavaScript number"
            ))))
        }
    }
}

/// An array, object or variant being written.
struct Compound<'w, 'a> {
    w: &'w mut Writer<'a>,
    first: bool,
    close: &'static str,
}

impl Compound<'_, '_> {
    fn comma(&mut self) {
        if !self.first {
            self.w.out.push(',');
        }
        self.first = false;
    }

    fn key(&mut self, key: &str) {
        self.comma();
        crate::json::push_string(&mut self.w.out, key);
        self.w.out.push(':');
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        self.comma();
        value.serialize(&mut *self.w)
    }

    fn end(self) -> Result<(), Failure> {
        self.w.out.push_str(self.close);
        Ok(())
    }
}

const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

impl<'w, 'a> ser::Serializer for &'w mut Writer<'a> {
    type Ok = ();
    type Error = Failure;
    type SerializeSeq = Compound<'w, 'a>;
    type SerializeTuple = Compound<'w, 'a>;
    type SerializeTupleStruct = Compound<'w, 'a>;
    type SerializeTupleVariant = Compound<'w, 'a>;
    type SerializeMap = Compound<'w, 'a>;
    type SerializeStruct = Compound<'w, 'a>;
    type SerializeStructVariant = Compound<'w, 'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Failure> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Failure> {
        self.serialize_f64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Failure> {
        self.serialize_f64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Failure> {
        self.serialize_f64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Failure> {
        self.integer(v.unsigned_abs() <= MAX_SAFE_INTEGER, v as f64, &v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), Failure> {
        self.serialize_f64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Failure> {
        self.serialize_f64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Failure> {
        self.serialize_f64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Failure> {
        self.integer(v <= MAX_SAFE_INTEGER, v as f64, &v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), Failure> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Failure> {
        self.number(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Failure> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Failure> {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Failure> {
        // No result holds bytes (`serde-wasm-bindgen` made a `Uint8Array`).
        Err(Failure(Box::new("bytes have no JS form here".into())))
    }
    fn serialize_none(self) -> Result<(), Failure> {
        self.undefined();
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Failure> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Failure> {
        self.undefined();
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Failure> {
        self.undefined();
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Failure> {
        crate::json::push_string(&mut self.out, variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Failure> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Failure> {
        self.open_variant(variant);
        value.serialize(&mut *self)?;
        self.out.push('}');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'w, 'a>, Failure> {
        Ok(self.compound("[", "]"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'w, 'a>, Failure> {
        Ok(self.compound("[", "]"))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Compound<'w, 'a>, Failure> {
        Ok(self.compound("[", "]"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'w, 'a>, Failure> {
        self.open_variant(variant);
        Ok(self.compound("[", "]}"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'w, 'a>, Failure> {
        Ok(self.compound("{", "}"))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'w, 'a>, Failure> {
        Ok(self.compound("{", "}"))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'w, 'a>, Failure> {
        self.open_variant(variant);
        Ok(self.compound("{", "}}"))
    }
}

/// The four sequence-like serde traits: each element is one more item of the array.
macro_rules! sequence_impl {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_, '_> {
            type Ok = ();
            type Error = Failure;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
                self.item(value)
            }
            fn end(self) -> Result<(), Failure> {
                Compound::end(self)
            }
        }
    )*};
}

sequence_impl!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Failure;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Failure> {
        self.comma();
        let at = self.w.out.len();
        key.serialize(&mut *self.w)?;
        // Only a string can name a property (NaN is written as a string too).
        if self.w.out.as_bytes().get(at) != Some(&b'"') || self.w.nan_at == at {
            return Err(Failure(Box::new(
                "Map key is not a string and cannot be an object key".into(),
            )));
        }
        self.w.out.push(':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result<(), Failure> {
        Compound::end(self)
    }
}

/// The two struct-like serde traits: each field is one more `"key":value` of the object.
macro_rules! struct_impl {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Compound<'_, '_> {
            type Ok = ();
            type Error = Failure;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Failure> {
                self.key(key);
                value.serialize(&mut *self.w)
            }
            fn end(self) -> Result<(), Failure> {
                Compound::end(self)
            }
        }
    )*};
}

struct_impl!(SerializeStruct, SerializeStructVariant);

fn set(target: &js_sys::Object, key: &str, value: &JsValue) {
    // Setting a data property on a fresh plain object cannot fail. `__proto__` becomes an own
    // property, as `JSON.parse` makes it, instead of replacing the prototype.
    let key = JsValue::from_str(key);
    if key == "__proto__" {
        let descriptor = js_sys::Object::new();
        for flag in ["writable", "enumerable", "configurable"] {
            let _ = js_sys::Reflect::set(&descriptor, &JsValue::from_str(flag), &JsValue::TRUE);
        }
        let _ = js_sys::Reflect::set(&descriptor, &JsValue::from_str("value"), value);
        js_sys::Object::define_property(target, &key, &descriptor);
    } else {
        let _ = js_sys::Reflect::set(target, &key, value);
    }
}

/// A YAML value as plain JS (numbers as JS numbers, mappings as objects, tags dropped). Keys
/// are strings: the parser turns other keys into JS property names.
pub fn yaml_to_js(value: &serde_yaml::Value) -> JsValue {
    use serde_yaml::Value;
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => JsValue::from_str(s),
        Value::Sequence(items) => items
            .iter()
            .map(yaml_to_js)
            .collect::<js_sys::Array>()
            .into(),
        Value::Mapping(map) => mapping_to_js(map),
        Value::Tagged(tagged) => yaml_to_js(&tagged.value),
    }
}

fn mapping_to_js(map: &serde_yaml::Mapping) -> JsValue {
    let obj = js_sys::Object::new();
    for (k, v) in map {
        if let Some(k) = k.as_str() {
            set(&obj, k, &yaml_to_js(v));
        }
    }
    obj.into()
}

thread_local! {
    /// The property names of `parseFrontmatter`'s result, made into JS strings once.
    static RESULT_KEYS: [JsValue; 7] =
        ["frontmatter", "body", "header", "diagnostics", "name", "description", "type"].map(JsValue::from_str);
}

/// `parseFrontmatter`'s result for a head whose values have no JSON form (NaN, ±Infinity, -0),
/// built directly, with `body` as the offset the JS half slices at.
pub fn frontmatter_head_to_js(
    parsed: &crate::frontmatter::FrontmatterHead,
    body_offset: usize,
) -> JsValue {
    RESULT_KEYS.with(
        |[frontmatter, body, header, diagnostics, name, description, kind]| {
            let put = |target: &js_sys::Object, key: &JsValue, value: &JsValue| {
                let _ = js_sys::Reflect::set(target, key, value);
            };
            let fields = js_sys::Object::new();
            if let Some(v) = &parsed.header.name {
                put(&fields, name, &JsValue::from_str(v));
            }
            if let Some(v) = &parsed.header.description {
                put(&fields, description, &JsValue::from_str(v));
            }
            if let Some(v) = parsed.header.memory_type {
                put(&fields, kind, &JsValue::from_str(v.as_str()));
            }
            let notes: js_sys::Array = parsed
                .diagnostics
                .iter()
                .map(|d| JsValue::from_str(d))
                .collect();
            let out = js_sys::Object::new();
            put(&out, frontmatter, &mapping_to_js(&parsed.frontmatter));
            put(&out, body, &JsValue::from_f64(body_offset as f64));
            put(&out, header, &fields);
            put(&out, diagnostics, &notes);
            out.into()
        },
    )
}
