//! Every input read from JS, one reader per type, found by its type: `impl FromJs for T` over
//! the [`Fields`] engine. An export reads its arguments with [`from_js`] / [`list_from_js`]; a
//! nested input is read by its own type's [`FromJs::read`] on the nested object.
//!
//! The areas: [`prompt`] (prompt options and config, settings, the path context), [`store`]
//! (the `Memdir` options, save input, changes, proposals), [`features`] (recall, lint,
//! extraction, consolidation, the memory tool) and [`text`] (the pure functions' inputs).

mod features;
mod prompt;
mod store;
mod text;

pub(crate) use features::{ExtractorOptions, FindCall, RecalledMemory, ShownMemory};
pub(crate) use prompt::AutoMemoryInput;
pub(crate) use store::{local_date, ScanOptions};
pub(crate) use text::{text_arg, ValidateOptions};

pub(crate) use super::fields::{self, Fields};
use wasm_bindgen::JsValue;

/// A type read from a JS object by [`Fields`].
pub(crate) trait FromJs: Sized {
    /// How error messages name the input (`invalid {WHAT}: …`).
    const WHAT: &'static str;
    /// Whether `undefined`/`null` reads as an empty object (an optional options bag).
    const OPTIONAL: bool = false;

    /// Read the value from its object; errors go to the object's slot.
    fn read(given: &Fields) -> Self;
}

/// `value` read as a `T`, or the first `INVALID_INPUT` error met.
pub(crate) fn from_js<T: FromJs>(value: JsValue) -> Result<T, JsValue> {
    fields::read(value, T::WHAT, T::OPTIONAL, T::read)
}

/// Each element of the array `value` read as a `T`.
pub(crate) fn list_from_js<T: FromJs>(value: JsValue) -> Result<Vec<T>, JsValue> {
    fields::read_each(value, T::WHAT, T::read)
}
