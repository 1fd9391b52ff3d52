//! Value conversion between JS and Rust: one configured serializer.

use crate::error::{Code, Error};
use serde::de::DeserializeOwned;
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

/// JS value → Rust value; a shape mismatch is an `INVALID_INPUT` error naming `what`.
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        super::error::to_js(Error::new(
            Code::InvalidInput,
            format!("invalid {what}: {e}"),
        ))
    })
}

/// Like [`from_js`], but `undefined`/`null` give the default.
pub fn from_js_or_default<T: DeserializeOwned + Default>(
    value: JsValue,
    what: &str,
) -> Result<T, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(T::default())
    } else {
        from_js(value, what)
    }
}

/// A shallow copy of `input` whose `env` keeps only string values (so `process.env`, or an
/// object with `undefined` entries, converts to a string map).
pub fn strip_undefined(input: JsValue) -> JsValue {
    if !input.is_object() {
        return input;
    }
    let env_key = JsValue::from_str("env");
    let env = js_sys::Reflect::get(&input, &env_key).unwrap_or(JsValue::UNDEFINED);
    if !env.is_object() {
        return input;
    }
    let clean = js_sys::Object::new();
    for pair in js_sys::Object::entries(&js_sys::Object::from(env)).iter() {
        let pair = js_sys::Array::from(&pair);
        if pair.get(1).is_string() {
            let _ = js_sys::Reflect::set(&clean, &pair.get(0), &pair.get(1));
        }
    }
    let copy = js_sys::Object::assign(&js_sys::Object::new(), &js_sys::Object::from(input));
    let _ = js_sys::Reflect::set(&copy, &env_key, &clean);
    copy.into()
}
