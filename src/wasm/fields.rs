//! A small reader for JS option bags: one property at a time, one error path. It replaces the
//! generic deserializer for the flat inputs (each generic instantiation costs module size).
//! `undefined` and `null` count as absent; a present value of the wrong type is an
//! `INVALID_INPUT` error naming the input and the field.

use crate::error::{Code, Error};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A JS object read field by field; `what` names it in error messages.
pub struct Fields<'a> {
    object: JsValue,
    what: &'a str,
}

/// An `INVALID_INPUT` error `invalid {what}: {detail}`.
#[inline(never)]
pub fn invalid(what: &str, detail: &str) -> JsValue {
    super::error::to_js(Error::new(
        Code::InvalidInput,
        format!("invalid {what}: {detail}"),
    ))
}

/// A string argument, or an `INVALID_INPUT` error naming it. Exports take strings as `JsValue`
/// and check them here: the generated glue would copy a non-string into wasm and trap.
pub fn string_arg(value: &JsValue, name: &str) -> Result<String, JsValue> {
    value
        .as_string()
        .ok_or_else(|| invalid(name, "expected a string"))
}

fn absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

impl<'a> Fields<'a> {
    /// Read `value`, which must be an object.
    pub fn new(value: JsValue, what: &'a str) -> Result<Fields<'a>, JsValue> {
        if value.is_object() {
            Ok(Fields {
                object: value,
                what,
            })
        } else {
            Err(invalid(what, "expected an object"))
        }
    }

    /// Like [`Fields::new`], but `undefined`/`null` read as an empty object.
    pub fn or_empty(value: JsValue, what: &'a str) -> Result<Fields<'a>, JsValue> {
        if absent(&value) {
            Ok(Fields {
                object: js_sys::Object::new().into(),
                what,
            })
        } else {
            Fields::new(value, what)
        }
    }

    /// Each element of the array `value`, read as an object.
    pub fn each<T>(
        value: JsValue,
        what: &'a str,
        mut read: impl FnMut(&Fields<'a>) -> Result<T, JsValue>,
    ) -> Result<Vec<T>, JsValue> {
        let array = value
            .dyn_into::<js_sys::Array>()
            .map_err(|_| invalid(what, "expected an array"))?;
        // A loop rather than `collect::<Result<Vec<_>, _>>()`: the same, with far less code
        // per element type.
        let mut out = Vec::with_capacity(array.length() as usize);
        for item in array.iter() {
            out.push(read(&Fields::new(item, what)?)?);
        }
        Ok(out)
    }

    fn raw(&self, key: &str) -> Option<JsValue> {
        let value =
            js_sys::Reflect::get(&self.object, &JsValue::from_str(key)).unwrap_or(JsValue::NULL);
        (!absent(&value)).then_some(value)
    }

    #[inline(never)]
    fn wrong(&self, key: &str, expected: &str) -> JsValue {
        invalid(self.what, &format!("`{key}`: expected {expected}"))
    }

    /// A required field's absence.
    #[inline(never)]
    pub fn missing(&self, key: &str) -> JsValue {
        invalid(self.what, &format!("missing field `{key}`"))
    }

    /// An optional string.
    pub fn opt_string(&self, key: &str) -> Result<Option<String>, JsValue> {
        match self.raw(key) {
            None => Ok(None),
            Some(v) => v
                .as_string()
                .map(Some)
                .ok_or_else(|| self.wrong(key, "a string")),
        }
    }

    /// A required string.
    pub fn string(&self, key: &str) -> Result<String, JsValue> {
        self.opt_string(key)?.ok_or_else(|| self.missing(key))
    }

    /// A string, `""` when absent.
    pub fn string_or_empty(&self, key: &str) -> Result<String, JsValue> {
        Ok(self.opt_string(key)?.unwrap_or_default())
    }

    /// An optional number.
    pub fn opt_f64(&self, key: &str) -> Result<Option<f64>, JsValue> {
        match self.raw(key) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.wrong(key, "a number")),
        }
    }

    /// An optional whole number in `0..=max`.
    pub fn opt_uint(&self, key: &str, max: f64) -> Result<Option<f64>, JsValue> {
        match self.opt_f64(key)? {
            Some(n) if !(n >= 0.0 && n <= max && n.fract() == 0.0) => {
                Err(self.wrong(key, "a non-negative whole number"))
            }
            n => Ok(n),
        }
    }

    /// An optional `u32`.
    pub fn opt_u32(&self, key: &str) -> Result<Option<u32>, JsValue> {
        Ok(self.opt_uint(key, u32::MAX as f64)?.map(|n| n as u32))
    }

    /// An optional `usize` (up to 2^53).
    pub fn opt_usize(&self, key: &str) -> Result<Option<usize>, JsValue> {
        Ok(self
            .opt_uint(key, 9_007_199_254_740_991.0)?
            .map(|n| n as usize))
    }

    /// An optional whole number (within ±2^53).
    pub fn opt_i64(&self, key: &str) -> Result<Option<i64>, JsValue> {
        match self.raw(key) {
            None => Ok(None),
            Some(v) => whole(&v)
                .map(Some)
                .ok_or_else(|| self.wrong(key, "a whole number")),
        }
    }

    /// The value of `key` if present (neither `undefined` nor `null`).
    pub fn value(&self, key: &str) -> Option<JsValue> {
        self.raw(key)
    }

    /// The error for a present value of the wrong type.
    pub fn wrong_type(&self, key: &str, expected: &str) -> JsValue {
        self.wrong(key, expected)
    }

    /// An optional choice among `names`, each with its value.
    pub fn opt_choice<T: Copy>(
        &self,
        key: &str,
        choices: &[(&str, T)],
    ) -> Result<Option<T>, JsValue> {
        let Some(given) = self.opt_string(key)? else {
            return Ok(None);
        };
        match choices.iter().find(|(name, _)| *name == given) {
            Some((_, value)) => Ok(Some(*value)),
            None => {
                let names: Vec<String> = choices.iter().map(|(n, _)| format!("`{n}`")).collect();
                Err(self.wrong(key, &format!("one of {}", crate::jsstr::join(&names, ", "))))
            }
        }
    }

    /// Refuse any own property not in `allowed`.
    pub fn only(&self, allowed: &[&str]) -> Result<(), JsValue> {
        for key in js_sys::Object::keys(self.object.unchecked_ref::<js_sys::Object>()).iter() {
            let key = key.as_string().unwrap_or_default();
            if !allowed.contains(&key.as_str()) {
                return Err(invalid(self.what, &format!("unknown field `{key}`")));
            }
        }
        Ok(())
    }

    /// An object of strings, empty when absent; with `skip_other`, entries whose value is not
    /// a string are left out instead of refused.
    pub fn string_map(
        &self,
        key: &str,
        skip_other: bool,
    ) -> Result<crate::str_map::StrMap, JsValue> {
        let mut map = crate::str_map::StrMap::new();
        let Some(v) = self.raw(key) else {
            return Ok(map);
        };
        if !v.is_object() {
            return Err(self.wrong(key, "an object of strings"));
        }
        for pair in js_sys::Object::entries(v.unchecked_ref::<js_sys::Object>()).iter() {
            let pair = js_sys::Array::from(&pair);
            match (pair.get(0).as_string(), pair.get(1).as_string()) {
                (Some(k), Some(value)) => {
                    map.insert(k, value);
                }
                _ if skip_other => {}
                _ => return Err(self.wrong(key, "an object of strings")),
            }
        }
        Ok(map)
    }

    /// An optional boolean.
    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>, JsValue> {
        match self.raw(key) {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| self.wrong(key, "a boolean")),
        }
    }

    /// A boolean, `false` when absent.
    pub fn flag(&self, key: &str) -> Result<bool, JsValue> {
        Ok(self.opt_bool(key)?.unwrap_or(false))
    }

    /// An array of strings, empty when absent.
    pub fn strings(&self, key: &str) -> Result<Vec<String>, JsValue> {
        let Some(v) = self.raw(key) else {
            return Ok(Vec::new());
        };
        let array = v
            .dyn_into::<js_sys::Array>()
            .map_err(|_| self.wrong(key, "an array of strings"))?;
        let mut out = Vec::with_capacity(array.length() as usize);
        for s in array.iter() {
            out.push(
                s.as_string()
                    .ok_or_else(|| self.wrong(key, "an array of strings"))?,
            );
        }
        Ok(out)
    }

    /// A nested object, read as an empty one when absent.
    pub fn object(&self, key: &str) -> Result<Fields<'a>, JsValue> {
        match self.raw(key) {
            None => Fields::or_empty(JsValue::UNDEFINED, self.what),
            Some(v) if v.is_object() => Ok(Fields {
                object: v,
                what: self.what,
            }),
            Some(_) => Err(self.wrong(key, "an object")),
        }
    }

    /// An optional memory type (`user`, `feedback`, `project`, `reference`).
    pub fn opt_memory_type(&self, key: &str) -> Result<Option<crate::MemoryType>, JsValue> {
        match self.opt_string(key)? {
            None => Ok(None),
            Some(s) => crate::MemoryType::parse(&s)
                .map(Some)
                .ok_or_else(|| self.wrong(key, "`user`, `feedback`, `project` or `reference`")),
        }
    }
}

/// `value` as a whole number within ±2^53, if it is one.
pub fn whole(value: &JsValue) -> Option<i64> {
    value
        .as_f64()
        .filter(|n| n.abs() <= 9_007_199_254_740_991.0 && n.fract() == 0.0)
        .map(|n| n as i64)
}
