//! Core errors → real JS `Error`s with `name = "MemdirError"`, a stable `code`, the host's
//! original error as `cause`, and `status` for HTTP failures.

use crate::error::{Error, HostError, HostErrorFields};
use js_sys::Reflect;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

fn set(target: &JsValue, key: &str, value: &JsValue) {
    // Reflect.set only fails on frozen or proxy objects; a fresh Error is neither.
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}

/// Build the JS error for a core error.
pub fn to_js(error: Error) -> JsValue {
    let js = js_sys::Error::new(&error.message);
    js.set_name("MemdirError");
    let value: JsValue = js.into();
    set(&value, "code", &JsValue::from_str(error.code.as_str()));
    let cause = error.cause.as_ref().and_then(payload);
    // An HTTP status travels to the error itself, also when it came with the host's error (an
    // `anthropicLlm` 401 is a `HOST_LLM` whose cause is the adapter's `HTTP` error).
    let status = error
        .status
        .map(JsValue::from)
        .or_else(|| cause.as_ref().and_then(http_status));
    if let Some(status) = status {
        set(&value, "status", &status);
    }
    if let Some(cause) = cause {
        set(&value, "cause", &cause);
    }
    value
}

/// The `status` of a thrown JS value, when it is an HTTP status (a whole number 100–599).
fn http_status(value: &JsValue) -> Option<JsValue> {
    if !value.is_object() {
        return None;
    }
    let status = Reflect::get(value, &JsValue::from_str("status")).ok()?;
    let n = status.as_f64()?;
    (n.fract() == 0.0 && (100.0..600.0).contains(&n)).then_some(status)
}

/// The original JS value behind a host error, if it came from JS.
pub fn payload(host: &HostError) -> Option<JsValue> {
    host.payload
        .as_ref()
        .and_then(|p| p.downcast_ref::<JsValue>())
        .cloned()
}

/// A thrown JS value → a host error that keeps the value as its payload.
pub fn host_error(value: JsValue) -> HostError {
    let code = Reflect::get(&value, &JsValue::from_str("code"))
        .ok()
        .and_then(|c| c.as_string());
    let message = match value.dyn_ref::<js_sys::Error>() {
        Some(e) => String::from(e.message()),
        None => value
            .as_string()
            .unwrap_or_else(|| String::from("host call failed")),
    };
    HostError::from(HostErrorFields {
        code,
        message,
        payload: Some(Rc::new(value)),
    })
}

/// Convert a core result for returning to JS (an `Err` is thrown).
pub fn throw<T>(result: crate::Result<T>) -> Result<T, JsValue> {
    result.map_err(to_js)
}
