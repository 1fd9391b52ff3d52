//! A small reader for JS option bags: one property at a time, one error path. It replaces the
//! generic deserializer for the flat inputs (each generic instantiation costs module size).
//! `undefined` and `null` count as absent; a present value of the wrong type is an
//! `INVALID_INPUT` error naming the input and the field.
//!
//! Readers return plain values, not `Result`s: the first error is kept in the input's slot,
//! every later read returns a default without touching JS (so nothing more is read than with
//! early returns), and [`read`] turns the slot into the `Result` at the end. This keeps the
//! per-field code to one call (no partial-struct drop paths per `?`).

use crate::error::{Code, Error};
use crate::types::{MAX_CALL_UNITS, MAX_INPUT_ITEMS, MAX_INPUT_UNITS};
use std::cell::Cell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The first error met while reading one input.
#[derive(Default)]
pub struct Slot {
    failed: Cell<bool>,
    error: Cell<Option<JsValue>>,
    /// UTF-16 units of the strings read so far (bounded by [`MAX_CALL_UNITS`]).
    units: Cell<usize>,
}

impl Slot {
    #[inline(never)]
    fn finish(self) -> Result<(), JsValue> {
        match self.error.into_inner() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// The per-element step of [`Fields::each`]: a one-method trait rather than `dyn FnMut`, whose
/// vtable would also carry a `call_once` shim for every element type.
trait EachItem<'a> {
    fn item(&mut self, fields: &Fields<'a>);
}

/// Reads each element with `read` into `out`.
struct Collect<'r, R, T> {
    read: &'r mut R,
    out: Vec<T>,
}

impl<'a, R: FnMut(&Fields<'a>) -> T, T> EachItem<'a> for Collect<'_, R, T> {
    fn item(&mut self, fields: &Fields<'a>) {
        let value = (self.read)(fields);
        self.out.push(value);
    }
}

/// A JS object read field by field; `what` names it in error messages.
pub struct Fields<'a> {
    object: JsValue,
    what: &'a str,
    slot: &'a Slot,
}

/// An `INVALID_INPUT` error `invalid {what}: {detail}`.
#[inline(never)]
pub fn invalid(what: &str, detail: &str) -> JsValue {
    invalid_input(format!("invalid {what}: {detail}"))
}

/// An `INVALID_INPUT` error with `message`.
#[inline(never)]
pub fn invalid_input(message: String) -> JsValue {
    super::error::to_js(Error::new(Code::InvalidInput, message))
}

/// A string argument, or an `INVALID_INPUT` error naming it. Exports take strings as `JsValue`
/// and check them here: the generated glue would copy a non-string into wasm and trap, and a
/// string longer than [`MAX_INPUT_UNITS`] is refused before it is copied.
#[inline(never)]
pub fn string_arg(value: JsValue, name: &str) -> Result<String, JsValue> {
    match units(&value) {
        None => Err(invalid(name, "expected a string")),
        Some(n) if n > MAX_INPUT_UNITS => Err(invalid(
            name,
            &format!("one string over the limit of {MAX_INPUT_UNITS} UTF-16 units"),
        )),
        Some(_) => value
            .as_string()
            .ok_or_else(|| invalid(name, "expected a string")),
    }
}

#[wasm_bindgen(inline_js = r#"
export function wellFormed(s) {
  return typeof s.isWellFormed === "function" ? s.isWellFormed() : !/\p{Cs}/u.test(s);
}
"#)]
extern "C" {
    /// `s.isWellFormed()` (ES2024), or the same test by a regular expression where it is missing:
    /// no unpaired surrogate, in one call however long the string. What a lone surrogate means
    /// is the core's decision (`crate::lone_surrogates`).
    #[wasm_bindgen(js_name = wellFormed)]
    pub fn well_formed(s: &js_sys::JsString) -> bool;
}

#[wasm_bindgen]
extern "C" {
    /// `Object.keys`, its exception caught (a Proxy's `ownKeys` trap may throw).
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn own_keys(object: &JsValue) -> Result<js_sys::Array, JsValue>;
    /// `Object.entries`, its exception caught (a Proxy's trap or a getter may throw).
    #[wasm_bindgen(catch, js_namespace = Object, js_name = entries)]
    fn own_entries(object: &JsValue) -> Result<js_sys::Array, JsValue>;
}

/// A number argument, or an `INVALID_INPUT` error naming it. Exports take numbers as `JsValue`
/// and check them here: the glue would convert a BigInt, a Symbol or an object whose
/// `valueOf` throws with a plain `TypeError` (or that object's own error).
///
/// ```ignore
/// let now = number_arg(now_ms, "nowMs")?; // 10n → INVALID_INPUT "invalid nowMs: expected a number"
/// ```
#[inline(never)]
pub fn number_arg(value: JsValue, name: &str) -> Result<f64, JsValue> {
    value
        .as_f64()
        .ok_or_else(|| invalid(name, "expected a number"))
}

/// The length of `value` when it is an array whose `length` reads as a whole number (a
/// Proxy's trap may throw: then `None`).
///
/// ```ignore
/// if array_len(&range) == Some(2) { let first = element(&range, 0); }
/// ```
pub fn array_len(value: &JsValue) -> Option<u32> {
    if !js_sys::Array::is_array(value) {
        return None;
    }
    js_sys::Reflect::get(value, &JsValue::from_str("length"))
        .ok()?
        .as_f64()
        .filter(|n| n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(n))
        .map(|n| n as u32)
}

/// Element `i` of `array` (`undefined` when reading it throws).
///
/// ```ignore
/// let first = element(&list, 0);
/// ```
pub fn element(array: &JsValue, i: u32) -> JsValue {
    js_sys::Reflect::get_u32(array, i).unwrap_or(JsValue::UNDEFINED)
}

/// The length of `value` in UTF-16 units (JS `.length`) when it is a string, read without
/// copying it.
///
/// ```ignore
/// if units(&value).is_some_and(|n| n > MAX_INPUT_UNITS) { /* refuse before copying */ }
/// ```
pub fn units(value: &JsValue) -> Option<usize> {
    value
        .is_string()
        .then(|| value.unchecked_ref::<js_sys::JsString>().length() as usize)
}

fn absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

/// Read the object `value` (`undefined`/`null` too, as an empty object, with `or_empty`)
/// with `body`; the first error any reader met, or what `body` built.
pub fn read<T>(
    value: JsValue,
    what: &str,
    or_empty: bool,
    body: impl FnOnce(&Fields) -> T,
) -> Result<T, JsValue> {
    let slot = Slot::default();
    let out = body(&Fields::start(value, what, &slot, or_empty));
    slot.finish().map(|()| out)
}

/// Read each element of the array `value` as an object with `item`.
pub fn read_each<T>(
    value: JsValue,
    what: &str,
    item: impl FnMut(&Fields) -> T,
) -> Result<Vec<T>, JsValue> {
    let slot = Slot::default();
    let root = Fields {
        object: JsValue::UNDEFINED,
        what,
        slot: &slot,
    };
    let out = root.each(value, what, item);
    drop(root);
    slot.finish().map(|()| out)
}

impl<'a> Fields<'a> {
    #[inline(never)]
    fn start(value: JsValue, what: &'a str, slot: &'a Slot, or_empty: bool) -> Fields<'a> {
        let mut fields = Fields {
            object: value,
            what,
            slot,
        };
        if or_empty && absent(&fields.object) {
            fields.object = js_sys::Object::new().into();
        } else if !fields.object.is_object() {
            fields.fail_with(format_args!("expected an object"));
        }
        fields
    }

    /// Whether a reader already met an error (later reads then return defaults).
    pub fn failed(&self) -> bool {
        self.slot.failed.get()
    }

    /// Keep `error` unless an earlier one is kept.
    pub fn fail(&self, error: JsValue) {
        if !self.failed() {
            self.slot.failed.set(true);
            self.slot.error.set(Some(error));
        }
    }

    /// Fail with `invalid {what}: {detail}` (built only for the first error).
    #[inline(never)]
    fn fail_with(&self, detail: std::fmt::Arguments) {
        if !self.failed() {
            self.fail(invalid(self.what, &std::fmt::format(detail)));
        }
    }

    /// Each element of the array `value`, read as an object (stops at the first error).
    pub fn each<T>(
        &self,
        value: JsValue,
        what: &'a str,
        mut read: impl FnMut(&Fields<'a>) -> T,
    ) -> Vec<T> {
        let mut collect = Collect {
            read: &mut read,
            out: Vec::new(),
        };
        self.each_item(value, what, &mut collect);
        collect.out
    }

    /// The loop of [`Fields::each`], one copy for every element type.
    #[inline(never)]
    fn each_item(&self, value: JsValue, what: &'a str, item: &mut dyn EachItem<'a>) {
        let len = self.array(&value, what);
        for i in 0..len {
            if self.failed() {
                break;
            }
            item.item(&Fields::start(element(&value, i), what, self.slot, false));
        }
    }

    /// The length of the array `value` (0, after failing, when it is not an array, its length
    /// cannot be read, or it has more than [`MAX_INPUT_ITEMS`] elements).
    #[inline(never)]
    fn array(&self, value: &JsValue, what: &'a str) -> u32 {
        if self.failed() {
            return 0;
        }
        let here = Fields {
            object: JsValue::UNDEFINED,
            what,
            slot: self.slot,
        };
        match array_len(value) {
            Some(n) if n as usize <= MAX_INPUT_ITEMS => return n,
            Some(n) => here.fail_with(format_args!(
                "an array of {n} elements is longer than the limit of {MAX_INPUT_ITEMS}"
            )),
            None => here.fail_with(format_args!("expected an array")),
        }
        0
    }

    #[inline(never)]
    fn raw(&self, key: &str) -> Option<JsValue> {
        if self.failed() {
            return None;
        }
        let value =
            js_sys::Reflect::get(&self.object, &JsValue::from_str(key)).unwrap_or(JsValue::NULL);
        (!absent(&value)).then_some(value)
    }

    #[inline(never)]
    fn wrong(&self, key: &str, expected: &str) {
        self.fail_with(format_args!("`{key}`: expected {expected}"));
    }

    /// Fail for a required field's absence.
    #[inline(never)]
    pub fn missing(&self, key: &str) {
        self.fail_with(format_args!("missing field `{key}`"));
    }

    /// An optional string.
    #[inline(never)]
    pub fn opt_string(&self, key: &str) -> Option<String> {
        let value = self.raw(key)?;
        let s = self.text(&value, key);
        if s.is_none() && !self.failed() {
            self.wrong(key, "a string");
        }
        s
    }

    /// `value` as a string when it is one within the caps ([`MAX_INPUT_UNITS`] for one string,
    /// [`MAX_CALL_UNITS`] for all the strings of this input); past a cap, fail (naming `key`)
    /// without copying it. One holding an unpaired surrogate fails with `UNPAIRED_SURROGATE`
    /// unless the core reads this input's strings as they are looked at only
    /// ([`crate::lone_surrogates::field_handling`]).
    #[inline(never)]
    fn text(&self, value: &JsValue, key: &str) -> Option<String> {
        let n = units(value)?;
        let total = self.slot.units.get().saturating_add(n);
        if n > MAX_INPUT_UNITS || total > MAX_CALL_UNITS {
            let (what, limit) = match n > MAX_INPUT_UNITS {
                true => ("one string", MAX_INPUT_UNITS),
                false => ("the strings of this input in all", MAX_CALL_UNITS),
            };
            self.fail_with(format_args!(
                "`{key}`: {what} over the limit of {limit} UTF-16 units"
            ));
            return None;
        }
        self.slot.units.set(total);
        if !well_formed(value.unchecked_ref()) {
            self.lone_surrogate(key);
            if self.failed() {
                return None;
            }
        }
        value.as_string()
    }

    /// Fail for a lone surrogate in the string field `key`, unless the core accepts it.
    #[inline(never)]
    fn lone_surrogate(&self, key: &str) {
        use crate::lone_surrogates::{field_handling, refusal, Handling};
        if field_handling(self.what) == Handling::Reject {
            let field = format!("`{key}` of the {}", self.what);
            self.fail(super::error::to_js(refusal(&field)));
        }
    }

    /// A required string.
    #[inline(never)]
    pub fn string(&self, key: &str) -> String {
        self.opt_string(key).unwrap_or_else(|| {
            self.missing(key);
            String::new()
        })
    }

    /// A string, `""` when absent.
    pub fn string_or_empty(&self, key: &str) -> String {
        self.opt_string(key).unwrap_or_default()
    }

    /// An optional number.
    #[inline(never)]
    pub fn opt_f64(&self, key: &str) -> Option<f64> {
        let n = self.raw(key)?.as_f64();
        if n.is_none() {
            self.wrong(key, "a number");
        }
        n
    }

    /// A required number.
    #[inline(never)]
    pub fn f64(&self, key: &str) -> f64 {
        self.opt_f64(key).unwrap_or_else(|| {
            self.missing(key);
            0.0
        })
    }

    /// An optional whole number in `0..=max`.
    #[inline(never)]
    pub fn opt_uint(&self, key: &str, max: f64) -> Option<f64> {
        match self.opt_f64(key) {
            Some(n) if !(n >= 0.0 && n <= max && n.fract() == 0.0) => {
                self.wrong(key, "a non-negative whole number");
                None
            }
            n => n,
        }
    }

    /// An optional `u32`.
    pub fn opt_u32(&self, key: &str) -> Option<u32> {
        self.opt_uint(key, u32::MAX as f64).map(|n| n as u32)
    }

    /// An optional `usize` (up to 2^53).
    pub fn opt_usize(&self, key: &str) -> Option<usize> {
        self.opt_uint(key, 9_007_199_254_740_991.0)
            .map(|n| n as usize)
    }

    /// An optional whole number (within ±2^53).
    #[inline(never)]
    pub fn opt_i64(&self, key: &str) -> Option<i64> {
        let n = whole(&self.raw(key)?);
        if n.is_none() {
            self.wrong(key, "a whole number");
        }
        n
    }

    /// The value of `key` if present (neither `undefined` nor `null`).
    pub fn value(&self, key: &str) -> Option<JsValue> {
        self.raw(key)
    }

    /// Fail for a present value of the wrong type.
    pub fn wrong_type(&self, key: &str, expected: &str) {
        self.wrong(key, expected)
    }

    /// An optional unit-variant enum, read by its serde name: the type's `rename_all` is the one
    /// table of its strings (an unknown one fails with serde's `unknown variant` message, which
    /// lists them).
    pub fn opt_enum<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        let given = self.opt_string(key)?;
        let read = serde::de::value::StrDeserializer::<serde::de::value::Error>::new(&given);
        T::deserialize(read)
            .map_err(|error| self.enum_error(key, &error))
            .ok()
    }

    /// The failure of [`Fields::opt_enum`], one copy for every enum type.
    #[inline(never)]
    fn enum_error(&self, key: &str, error: &serde::de::value::Error) {
        self.fail_with(format_args!("`{key}`: {error}"));
    }

    /// Refuse any own property not in `allowed`.
    #[inline(never)]
    pub fn only(&self, allowed: &[&str]) {
        if self.failed() {
            return;
        }
        let Ok(keys) = own_keys(&self.object) else {
            self.fail_with(format_args!("its properties cannot be listed"));
            return;
        };
        for key in keys.iter() {
            let key = key.as_string().unwrap_or_default();
            if !allowed.contains(&key.as_str()) {
                self.fail_with(format_args!("unknown field `{key}`"));
                return;
            }
        }
    }

    /// An object of strings, empty when absent; with `skip_other`, entries whose value is not
    /// a string are left out instead of refused.
    #[inline(never)]
    pub fn string_map(&self, key: &str, skip_other: bool) -> crate::str_map::StrMap {
        let mut map = crate::str_map::StrMap::new();
        let Some(v) = self.raw(key) else {
            return map;
        };
        if !v.is_object() {
            self.wrong(key, "an object of strings");
            return map;
        }
        let Ok(entries) = own_entries(&v) else {
            self.wrong(key, "an object of strings");
            return map;
        };
        for i in 0..entries.length() {
            // Each entry is a fresh `[key, value]` array made by `Object.entries`.
            let pair: js_sys::Array = entries.get(i).unchecked_into();
            let value = pair.get(1);
            let value = if skip_other && !value.is_string() {
                None
            } else {
                self.text(&value, key)
            };
            if self.failed() {
                break;
            }
            match (pair.get(0).as_string(), value) {
                (Some(k), Some(value)) => {
                    map.insert(k, value);
                }
                _ if skip_other => {}
                _ => {
                    self.wrong(key, "an object of strings");
                    break;
                }
            }
        }
        map
    }

    /// An optional boolean.
    #[inline(never)]
    pub fn opt_bool(&self, key: &str) -> Option<bool> {
        let b = self.raw(key)?.as_bool();
        if b.is_none() {
            self.wrong(key, "a boolean");
        }
        b
    }

    /// A boolean, `false` when absent.
    pub fn flag(&self, key: &str) -> bool {
        self.opt_bool(key).unwrap_or(false)
    }

    /// An array of strings, empty when absent.
    #[inline(never)]
    pub fn strings(&self, key: &str) -> Vec<String> {
        let mut out = Vec::new();
        let Some(v) = self.raw(key) else {
            return out;
        };
        if array_len(&v).is_none() {
            self.wrong(key, "an array of strings");
            return out;
        }
        for i in 0..self.array(&v, self.what) {
            match self.text(&element(&v, i), key) {
                Some(s) => out.push(s),
                None => {
                    self.wrong(key, "an array of strings");
                    break;
                }
            }
        }
        out
    }

    /// A nested object, read as an empty one when absent.
    #[inline(never)]
    pub fn object(&self, key: &str) -> Fields<'a> {
        let object = match self.raw(key) {
            Some(v) if v.is_object() => v,
            Some(_) => {
                self.wrong(key, "an object");
                JsValue::UNDEFINED
            }
            None => js_sys::Object::new().into(),
        };
        Fields {
            object,
            what: self.what,
            slot: self.slot,
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
