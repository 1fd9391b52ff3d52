//! `parseFrontmatter` across the boundary. The core's `frontmatter::head_for_js` encodes the
//! start of a file in the form that crosses most cheaply (`HeadForJs`); this module is the one
//! place that form is decoded, into the result JS sees: the offsets and the header bits of
//! `HeadForJs::Slices` (bit `i` for `HEADER_KEYS[i]`, read by JS where they lie in the module's
//! memory, so no array is made per call), the JSON text with the body's offset,
//! or the object built when a value has no JSON form. `pkg/lib/api.js` only hands over the
//! start of the text (as UTF-8 bytes when it fits the probe), so the body never crosses.

use super::inputs::text_arg;
use crate::frontmatter::{head_for_js, HeadForJs};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
// A carried text's stand-ins (U+E000 + n for the lone surrogate U+D800 + n, src/lone_surrogates.rs)
// back as the surrogates, in every key and string of a result not sliced from the text itself.
const back = (v) => typeof v === "string"
  ? v.replace(/[\uE000-\uE7FF]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x800))
  : Array.isArray(v) ? v.map(back)
  : v !== null && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [back(k), back(x)]))
  : v;

// A view of the module's memory, made again when the memory grows (the old buffer is then
// detached, and a view of it has length 0).
let words = new Uint32Array(0);

// The offsets `[body, header bits, key start, key end, value start, value end, ...]` at
// `words[at..at + len]`, read where the core wrote them (no copy, no array per call). A key
// `[i, 0]`, and header bit i, is the i-th of the core's HEADER_KEYS (name, description, type):
// stored by name, no slice. The names are written out here, not looked up in that list (a
// computed key per field made the plain parse 20-25 % slower); tests/wasm.rs
// (every_header_key_is_decoded_under_its_own_name) fails if this order is not the core's.
export function decodeSlicesAt(text, memory, at, len) {
  if (words.length === 0) words = new Uint32Array(memory.buffer);
  const head = words;
  const frontmatter = {};
  let name, description, type;
  for (let i = at + 2; i < at + len; i += 4) {
    const value = text.slice(head[i + 2], head[i + 3]);
    if (head[i + 1] !== 0) frontmatter[text.slice(head[i], head[i + 1])] = value;
    else if (head[i] === 0) frontmatter.name = name = value;
    else if (head[i] === 1) frontmatter.description = description = value;
    else frontmatter.type = type = value;
  }
  const bits = head[at + 1];
  const header = {};
  if (bits & 1) header.name = name;
  if (bits & 2) header.description = description;
  if (bits & 4) header.type = type;
  return { frontmatter, body: text.slice(head[at]), header, diagnostics: [] };
}

export function decodeHead(text, head, carried) {
  if (head === undefined) return undefined;
  if (carried) {
    const { body, ...rest } = decodeHead(text, head, false);
    return { ...back(rest), body };
  }
  const parsed = typeof head === "string" ? JSON.parse(head) : head;
  parsed.body = text.slice(parsed.body);
  const { header } = parsed;
  if (Array.isArray(header)) {
    // A plain block: the core named the frontmatter keys whose values the fields are.
    const fields = {};
    for (const key of header) fields[key] = parsed.frontmatter[key];
    parsed.header = fields;
  }
  return parsed;
}
"#)]
extern "C" {
    /// The result from the encoded `head` of `text` (`undefined` stays `undefined`).
    #[wasm_bindgen(js_name = decodeHead)]
    fn decode_head(text: &JsValue, head: JsValue, carried: bool) -> JsValue;

    /// The result from `len` offsets at `memory`'s 32-bit word `at` (`HeadForJs::Slices`), a
    /// key `[i, 0]` and header bit `i` meaning `HEADER_KEYS[i]`.
    #[wasm_bindgen(js_name = decodeSlicesAt)]
    fn decode_slices_at(text: &JsValue, memory: &JsValue, at: u32, len: u32) -> JsValue;
}

thread_local! {
    /// The module's `WebAssembly.Memory`, for JS to read offsets where they lie.
    static MEMORY: JsValue = wasm_bindgen::memory();
}

/// `parseFrontmatter(text)` from the core's encoding of `head` (a prefix of `text`, or all of
/// it): the result, or `undefined` when `complete` is false and `head` ends inside the
/// frontmatter. `carried`: `head` holds stand-ins for lone surrogates of `text`.
fn parse(text: &JsValue, head: &str, complete: bool, carried: bool) -> JsValue {
    let encoded = match head_for_js(head, complete) {
        HeadForJs::NeedMore => JsValue::UNDEFINED,
        HeadForJs::Json(json) => JsValue::from_str(&json),
        HeadForJs::Slices(offsets) => {
            // Read by JS in place: the vector lives until the call returns (a wasm32 address
            // and a length of 32-bit words fit `u32`).
            let at = (offsets.as_ptr() as usize / 4) as u32;
            let len = offsets.len() as u32;
            return MEMORY.with(|memory| decode_slices_at(text, memory, at, len));
        }
        HeadForJs::Head(head, body_offset) => {
            super::convert::frontmatter_head_to_js(&head, body_offset)
        }
    };
    decode_head(text, encoded, carried)
}

/// `parseFrontmatter` over the whole of `text` (a non-string is an `INVALID_INPUT` error). A
/// text with lone surrogates comes here (`pkg/lib/api.js`) and is carried
/// ([`crate::lone_surrogates`]): keys and values come back exactly.
///
/// ```js
/// const { header, body } = __parseFrontmatter(text);
/// ```
#[wasm_bindgen(js_name = __parseFrontmatter, skip_typescript)]
pub fn parse_frontmatter(text: JsValue) -> Result<JsValue, JsValue> {
    let head = text_arg(text.clone(), "text", "parseFrontmatter")?;
    Ok(parse(&text, &head.text, true, head.carried))
}

/// `parseFrontmatter` from the first `len` bytes of `utf8` (what `TextEncoder.encodeInto` wrote
/// of `text` into a reused buffer; copying bytes in is cheaper than passing a JS string):
/// `undefined` when the frontmatter does not end within them (`complete` false).
///
/// ```js
/// const { read, written } = new TextEncoder().encodeInto(text, probe);
/// const parsed = __parseFrontmatterProbe(text, probe, written, read === text.length) ?? __parseFrontmatter(text);
/// ```
#[wasm_bindgen(js_name = __parseFrontmatterProbe, skip_typescript)]
pub fn parse_frontmatter_probe(text: JsValue, utf8: &[u8], len: usize, complete: bool) -> JsValue {
    let written = utf8.get(..len).unwrap_or(utf8);
    // `from_utf8` checks a word at a time; the lossy decoder only for bytes that need it.
    match std::str::from_utf8(written) {
        Ok(head) => parse(&text, head, complete, false),
        Err(_) => parse(&text, &String::from_utf8_lossy(written), complete, false),
    }
}
