//! The host embedder: `embed(texts, { signal })` → `Float32Array[]` or `number[][]` (or a
//! Promise of either), adapted to [`crate::host::Embedder`]. Only copying happens here: a
//! throw or rejection is a host error; an answer of the wrong shape is handed to the core as
//! vectors it will refuse (no vectors, an empty or NaN vector), so every check stays in Rust.

use super::error::host_error;
use super::host::{settle, AbortOnDrop};
use crate::host::{Embedder, HostResult};
use js_sys::{Array, Float32Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The `embed` callback of `new Memdir({ embed, embedModel })`.
pub struct JsEmbedder {
    callback: Function,
    model: String,
}

impl JsEmbedder {
    /// The embedder named by the options' `embed` (a function) and `embedModel` (else
    /// `embed.model`, else `"default"`); `None` when `embed` is absent.
    pub fn from_options(options: &JsValue) -> Result<Option<JsEmbedder>, String> {
        let embed = get(options, "embed");
        if embed.is_undefined() || embed.is_null() {
            return Ok(None);
        }
        let callback = embed
            .dyn_into::<Function>()
            .map_err(|_| String::from("`embed` must be a function"))?;
        let named = get(options, "embedModel");
        let model = if named.is_undefined() || named.is_null() {
            get(&callback, "model")
                .as_string()
                .unwrap_or_else(|| "default".into())
        } else {
            named
                .as_string()
                .ok_or_else(|| String::from("`embedModel` must be a string"))?
        };
        if !crate::recall::semantic::is_valid_model_id(&model) {
            return Err("`embedModel` must be a non-empty single-line string".into());
        }
        Ok(Some(JsEmbedder { callback, model }))
    }
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// One vector from whatever the host put there (a wrong shape becomes an empty vector).
fn vector_of(value: &JsValue) -> Vec<f32> {
    if let Some(v) = value.dyn_ref::<Float32Array>() {
        return v.to_vec();
    }
    if Array::is_array(value) {
        return Array::from(value)
            .iter()
            .map(|x| x.as_f64().map_or(f32::NAN, |x| x as f32))
            .collect();
    }
    Vec::new()
}

impl Embedder for JsEmbedder {
    fn model(&self) -> &str {
        &self.model
    }

    async fn embed(&self, texts: &[String]) -> HostResult<Vec<Vec<f32>>> {
        let controller = web_sys::AbortController::new().map_err(host_error)?;
        let mut guard = AbortOnDrop {
            controller,
            done: false,
        };
        let list: Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
        let options = Object::new();
        let _ = Reflect::set(&options, &"signal".into(), &guard.controller.signal());
        let value = self
            .callback
            .call2(&JsValue::UNDEFINED, &list, &options)
            .map_err(host_error)?;
        let value = settle(value).await.map_err(host_error)?;
        guard.done = true;
        if !Array::is_array(&value) {
            return Ok(Vec::new()); // not a list of vectors: refused by the core's count check
        }
        Ok(Array::from(&value).iter().map(|v| vector_of(&v)).collect())
    }
}
