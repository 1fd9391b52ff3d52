//! The pure functions' inputs: memory fields, manifest entries, index entries, caps.

use super::{Fields, FromJs};
use crate::types::MemoryHeader;
use crate::{IndexEntry, MemoryFields, TruncateOptions};

impl FromJs for MemoryFields {
    const WHAT: &'static str = "header";

    fn read(h: &Fields) -> MemoryFields {
        MemoryFields {
            name: h.opt_string("name"),
            description: h.opt_string("description"),
            memory_type: h.opt_enum("type"),
        }
    }
}

impl FromJs for MemoryHeader {
    const WHAT: &'static str = "headers";

    /// A manifest entry: what `formatManifest` reads of a header.
    fn read(h: &Fields) -> MemoryHeader {
        MemoryHeader {
            filename: h.string("filename"),
            file_path: h.string_or_empty("filePath"),
            mtime_ms: h.f64("mtimeMs"),
            description: h.opt_string("description"),
            memory_type: h.opt_enum("type"),
            name: None,
            body_head: String::new(),
        }
    }
}

impl FromJs for IndexEntry {
    const WHAT: &'static str = "entry";

    fn read(e: &Fields) -> IndexEntry {
        IndexEntry {
            title: e.string("title"),
            file: e.string("file"),
            hook: e.string("hook"),
        }
    }
}

impl FromJs for TruncateOptions {
    const WHAT: &'static str = "options";
    const OPTIONAL: bool = true;

    fn read(given: &Fields) -> TruncateOptions {
        let d = TruncateOptions::default();
        TruncateOptions {
            max_lines: given.opt_usize("maxLines").unwrap_or(d.max_lines),
            max_units: given.opt_usize("maxUnits").unwrap_or(d.max_units),
        }
    }
}

/// `validateMemoryPath`'s options.
pub(crate) struct ValidateOptions {
    pub expand_tilde: bool,
    pub home: String,
    pub platform: String,
}

impl FromJs for ValidateOptions {
    const WHAT: &'static str = "options";
    const OPTIONAL: bool = true;

    fn read(o: &Fields) -> ValidateOptions {
        ValidateOptions {
            expand_tilde: o.flag("expandTilde"),
            home: o.string_or_empty("home"),
            platform: o.string_or_empty("platform"),
        }
    }
}

/// A string argument as the core carries it (see [`crate::lone_surrogates`]): `carried` when
/// the JS string held an unpaired surrogate and it now stands as a private-use character,
/// which the export maps back in its result ([`Carried::result_to_js`], `to_js_carried`).
pub(crate) struct Carried {
    pub text: String,
    pub carried: bool,
}

/// The string argument `name` of the export `function`. This only looks: whether the string
/// holds an unpaired surrogate; the core decides what that means for `function`
/// ([`crate::lone_surrogates::handling`]): refused with `UNPAIRED_SURROGATE`, carried, or read
/// with U+FFFD in its place.
pub(crate) fn text_arg(
    value: wasm_bindgen::JsValue,
    name: &str,
    function: &str,
) -> Result<Carried, wasm_bindgen::JsValue> {
    use crate::lone_surrogates::{carry, handling, refusal, Handling};
    use wasm_bindgen::JsCast;
    let within_cap =
        super::fields::units(&value).is_some_and(|n| n <= crate::types::MAX_INPUT_UNITS);
    let js = value.unchecked_ref::<js_sys::JsString>();
    let how = match within_cap && !super::fields::well_formed(js) {
        true => handling(function),
        false => Handling::Replace,
    };
    let result = match how {
        Handling::Replace => {
            return super::fields::string_arg(value, name).map(|text| Carried {
                text,
                carried: false,
            })
        }
        Handling::Reject => Err(refusal(name)),
        Handling::Preserve => carry(&js.iter().collect::<Vec<u16>>()),
    };
    super::super::error::throw(result).map(|text| Carried {
        text,
        carried: true,
    })
}

impl Carried {
    /// `text` (a result made from this argument) as a JS string, stand-ins mapped back when the
    /// argument was carried.
    pub fn result_to_js(&self, text: String) -> wasm_bindgen::JsValue {
        if !self.carried {
            return text.into();
        }
        let units = crate::lone_surrogates::restore_units(&text);
        // `String.fromCharCode` takes its units as arguments: a chunk at a time.
        let mut out = js_sys::JsString::from("");
        for chunk in units.chunks(8192) {
            out = out.concat(&js_sys::JsString::from_char_code(chunk));
        }
        out.into()
    }
}
