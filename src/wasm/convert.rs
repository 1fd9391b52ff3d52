//! Value conversion from Rust to JS: one configured serializer (inputs are read by
//! [`super::fields::Fields`]).

use crate::error::{Code, Error};
use serde::Serialize;
use wasm_bindgen::prelude::*;

const SERIALIZER: serde_wasm_bindgen::Serializer =
    serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);

/// Rust value → plain JS value (maps become objects, `None` fields are left out).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value.serialize(&SERIALIZER).map_err(|e| {
        super::error::to_js(Error::new(
            Code::InvalidInput,
            format!("cannot convert result: {e}"),
        ))
    })
}

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
