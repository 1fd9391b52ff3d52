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
