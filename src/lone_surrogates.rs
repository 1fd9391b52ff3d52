//! Unpaired UTF-16 surrogates in strings from JavaScript.
//!
//! A JS string may hold a surrogate code unit (U+D800–U+DFFF) without its partner; Rust text
//! cannot. The boundary only *reports* that a string had one; what happens then is decided
//! here, per exported function ([`handling`]):
//!
//! * [`Handling::Reject`] where a path, a file name or a key is formed from the string
//!   (`sanitizePathKey`, `validateMemoryPath`, `sanitizePath` and its long-path hash,
//!   `slugify`, `derivedFileName`): a name that cannot be written back as the same name is
//!   refused with `UNPAIRED_SURROGATE` ([`refusal`]), never turned into a different directory.
//! * [`Handling::Preserve`] where the result is text made from the input (`redactSecrets`,
//!   `parseIndexEntry`, `truncateEntrypoint`) or a verdict on it (`scanForSecrets`): the string is carried through the core with each lone surrogate
//!   U+D800 + n standing as the private-use character U+E000 + n ([`carry`]) — one UTF-16 unit
//!   either way, so every length, cut and boundary the core computes is the one JS would —
//!   and the result is mapped back ([`restore_units`], [`restore_in_json`]). A lone surrogate
//!   and its stand-in are both "not a word character, not whitespace" to every rule, so
//!   verdicts do not change. A string that already holds characters of U+E000–U+E7FF *and* a
//!   lone surrogate cannot be carried unambiguously and is refused. `parseFrontmatter` is
//!   carried the same way (its values and keys come back exactly; its body is sliced by JS).
//! * [`Handling::Replace`] where the string is only looked at and nothing is written from it
//!   as it is: the `findRelevant` and `shouldRecall` query, the transcript `messages` given to extraction. It is
//!   read with U+FFFD in place of each lone surrogate, which matches nothing and changes no
//!   verdict ([`handling`], [`field_handling`]).
//!
//! Every string field of an options object or a record read from JS ([`field_handling`]) is
//! refused, except those of `messages`: such fields name directories (`dir`, `home`,
//! `projectRoot`), files and keys (`file`, `name`, memory-tool paths, team keys), or are
//! memory text written to disk as UTF-8 (`description`, `body`, memory-tool `file_text`),
//! which cannot hold a lone surrogate: writing U+FFFD instead would change the caller's data
//! without saying so. The same holds for the positional `file` of `update`/`delete` and the
//! `text` of `appendLog`.
//!
//! ```
//! use memdir::lone_surrogates::{carry, restore_units};
//! let units = [0x61, 0xD800, 0x62];
//! let text = carry(&units).unwrap();
//! assert_eq!(text, "a\u{E000}b");
//! assert_eq!(restore_units(&text), units);
//! ```

use crate::error::{Code, Error};

/// What an exported function does with a string argument that holds a lone surrogate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handling {
    /// Carry it through and give it back exactly.
    Preserve,
    /// Refuse the call with `UNPAIRED_SURROGATE`.
    Reject,
    /// Read it with U+FFFD in its place: the string is only looked at.
    Replace,
}

/// Functions that form a path, a file name or a key from their string arguments, or write
/// them to disk.
const FORMS_NAMES: [&str; 8] = [
    "sanitizePathKey",
    "validateMemoryPath",
    "sanitizePath",
    "slugify",
    "derivedFileName",
    "update",
    "delete",
    "appendLog",
];

/// Functions (and record inputs) whose strings are only looked at.
const LOOKS_ONLY: [&str; 3] = ["findRelevant", "shouldRecall", "messages"];

/// The decision for the exported function `function` (its JS name).
///
/// ```
/// use memdir::lone_surrogates::{handling, Handling};
/// assert_eq!(handling("sanitizePath"), Handling::Reject);
/// assert_eq!(handling("redactSecrets"), Handling::Preserve);
/// assert_eq!(handling("findRelevant"), Handling::Replace);
/// ```
pub fn handling(function: &str) -> Handling {
    if FORMS_NAMES.contains(&function) {
        Handling::Reject
    } else if LOOKS_ONLY.contains(&function) {
        Handling::Replace
    } else {
        Handling::Preserve
    }
}

/// The decision for a string field of the options object or record `input` (how its errors
/// name it, e.g. `save input`, `messages`): refused, but for the strings that are only looked at.
///
/// ```
/// use memdir::lone_surrogates::{field_handling, Handling};
/// assert_eq!(field_handling("save input"), Handling::Reject);
/// assert_eq!(field_handling("messages"), Handling::Replace);
/// ```
pub fn field_handling(input: &str) -> Handling {
    match LOOKS_ONLY.contains(&input) {
        true => Handling::Replace,
        false => Handling::Reject,
    }
}

/// The error for a lone surrogate in `what` (an argument name) where a name is formed.
///
/// ```
/// let err = memdir::lone_surrogates::refusal("key");
/// assert_eq!(err.code, memdir::Code::UnpairedSurrogate);
/// ```
pub fn refusal(what: &str) -> Error {
    Error::new(
        Code::UnpairedSurrogate,
        format!(
            "{what} holds an unpaired UTF-16 surrogate, which no file name, key or UTF-8 file \
             can hold (it would be written as U+FFFD, a different text)"
        ),
    )
}

/// First of the private-use characters that stand for lone surrogates.
const STAND_IN: u32 = 0xE000;
/// Number of surrogate code units (U+D800–U+DFFF).
const SURROGATES: u32 = 0x800;

fn is_stand_in(c: char) -> bool {
    (STAND_IN..STAND_IN + SURROGATES).contains(&u32::from(c))
}

/// UTF-16 `units` as Rust text, each unpaired surrogate U+D800 + n written as U+E000 + n.
/// `UNPAIRED_SURROGATE` when the text also holds U+E000–U+E7FF (they could not be told apart).
///
/// ```
/// use memdir::lone_surrogates::carry;
/// assert_eq!(carry(&[0xD83D, 0xDE00]).unwrap(), "😀"); // a pair stays a pair
/// assert!(carry(&[0xE000, 0xDC00]).is_err());
/// ```
pub fn carry(units: &[u16]) -> Result<String, Error> {
    let mut out = String::with_capacity(units.len());
    let mut had_lone = false;
    let mut had_stand_in = false;
    for decoded in char::decode_utf16(units.iter().copied()) {
        let c = match decoded {
            Ok(c) => {
                had_stand_in |= is_stand_in(c);
                c
            }
            Err(lone) => {
                had_lone = true;
                let unit = u32::from(lone.unpaired_surrogate());
                char::from_u32(STAND_IN + (unit - 0xD800)).unwrap_or(char::REPLACEMENT_CHARACTER)
            }
        };
        out.push(c);
    }
    if had_lone && had_stand_in {
        return Err(Error::new(
            Code::UnpairedSurrogate,
            "text holds both unpaired UTF-16 surrogates and private-use characters \
             U+E000–U+E7FF, which cannot be told apart on the way through",
        ));
    }
    Ok(out)
}

/// `text` as UTF-16 units with every stand-in turned back into its lone surrogate.
///
/// ```
/// use memdir::lone_surrogates::restore_units;
/// assert_eq!(restore_units("x\u{E7FF}"), [0x78, 0xDFFF]);
/// ```
pub fn restore_units(text: &str) -> Vec<u16> {
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u16; 2];
    for c in text.chars() {
        if is_stand_in(c) {
            // In range by `is_stand_in`: 0xD800..=0xDFFF.
            out.push((u32::from(c) - STAND_IN + 0xD800) as u16);
        } else {
            out.extend_from_slice(c.encode_utf16(&mut buf));
        }
    }
    out
}

/// JSON text with every stand-in written as the `\uXXXX` escape of its lone surrogate, which
/// `JSON.parse` turns back into that code unit. Stand-ins only occur inside strings.
///
/// ```
/// use memdir::lone_surrogates::restore_in_json;
/// assert_eq!(restore_in_json("{\"a\":\"x\u{E001}\"}"), "{\"a\":\"x\\ud801\"}");
/// ```
pub fn restore_in_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        if is_stand_in(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c) - STAND_IN + 0xD800));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn every_lone_surrogate_round_trips_at_one_unit() {
        for unit in 0xD800u16..=0xDFFF {
            let units = [0x41, unit, 0x42];
            let text = carry(&units).unwrap();
            assert_eq!(text.encode_utf16().count(), 3);
            assert_eq!(restore_units(&text), units);
        }
        // A high surrogate at the very end, a low one at the start, two highs in a row.
        for units in [
            vec![0x61, 0xD800],
            vec![0xDC00, 0x61],
            vec![0xD800, 0xD801, 0xDC02],
        ] {
            assert_eq!(restore_units(&carry(&units).unwrap()), units);
        }
    }

    #[test]
    fn names_are_rejected_and_text_preserved() {
        for f in FORMS_NAMES {
            assert_eq!(handling(f), Handling::Reject);
        }
        for f in LOOKS_ONLY {
            assert_eq!(handling(f), Handling::Replace);
        }
        assert_eq!(field_handling("messages"), Handling::Replace);
        for input in [
            "Memdir options",
            "save input",
            "changes",
            "memory tool command",
        ] {
            assert_eq!(field_handling(input), Handling::Reject);
        }
        for f in [
            "parseFrontmatter",
            "redactSecrets",
            "scanForSecrets",
            "parseIndexEntry",
            "truncateEntrypoint",
        ] {
            assert_eq!(handling(f), Handling::Preserve);
        }
        assert!(!refusal("key").message.contains('\u{FFFD}'));
        // Stand-ins are fine on their own (no lone surrogate to confuse them with).
        assert_eq!(carry(&[0xE000]).unwrap(), "\u{E000}");
    }
}
