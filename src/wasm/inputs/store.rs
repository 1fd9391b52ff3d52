//! The `Memdir` options and the store's inputs: save input, changes, proposals.

use super::{Fields, FromJs};
use crate::prompt::PromptConfig;
use crate::store::{LocalDate, MemoryChanges, Proposal, SaveInput};
use crate::MemdirConfig;
use wasm_bindgen::{JsCast, JsValue};

impl FromJs for MemdirConfig {
    const WHAT: &'static str = "Memdir options";

    /// The configuration half of `new Memdir(options)` (the host objects are adapted apart).
    fn read(given: &Fields) -> MemdirConfig {
        let mut config = MemdirConfig::new(given.string("dir"));
        config.write_mode = given.opt_enum("writeMode").unwrap_or_default();
        config.prompt = PromptConfig::read(&given.object("prompt"));
        let recall = given.object("recall");
        if let Some(ms) = recall.opt_u32("timeoutMs") {
            config.recall.timeout_ms = ms;
        }
        if let Some(n) = recall.opt_usize("selectorBudget") {
            config.recall.selector_budget = n;
        }
        if let Some(b) = recall.opt_bool("fallbackToLexical") {
            config.recall.fallback_to_lexical = b;
        }
        let given = given.object("store");
        let store = &mut config.store;
        if let Some(n) = given.opt_usize("maxLines") {
            store.index_caps.max_lines = n;
        }
        if let Some(n) = given.opt_usize("maxUnits") {
            store.index_caps.max_units = n;
        }
        if let Some(n) = given.opt_u32("lockTimeoutMs") {
            store.lock_timeout_ms = n;
        }
        if let Some(n) = given.opt_u32("lockStaleMs") {
            store.lock_stale_ms = n;
        }
        if let Some(n) = given.opt_u32("hostCallTimeoutMs") {
            store.host_call_timeout_ms = n;
        }
        if let Some(b) = given.opt_bool("guardPrivateSecrets") {
            store.guard_private_secrets = b;
        }
        config
    }
}

/// `scanPage`'s options: `{ limit? }` (default 200).
pub(crate) struct ScanOptions {
    pub limit: usize,
}

impl FromJs for ScanOptions {
    const WHAT: &'static str = "scan options";
    const OPTIONAL: bool = true;

    fn read(given: &Fields) -> ScanOptions {
        ScanOptions {
            limit: given
                .opt_usize("limit")
                .unwrap_or(crate::types::MAX_MEMORY_FILES),
        }
    }
}

impl FromJs for SaveInput {
    const WHAT: &'static str = "save input";

    /// Every field optional; the store checks them.
    fn read(given: &Fields) -> SaveInput {
        SaveInput {
            name: given.string_or_empty("name"),
            description: given.string_or_empty("description"),
            memory_type: given.string_or_empty("type"),
            body: given.string_or_empty("body"),
            file: given.opt_string("file"),
            scope: given.opt_enum("scope").unwrap_or_default(),
            skip_index: given.flag("skipIndex"),
            replace: given.flag("replace"),
        }
    }
}

impl FromJs for MemoryChanges {
    const WHAT: &'static str = "changes";
    const OPTIONAL: bool = true;

    /// Every field optional.
    fn read(c: &Fields) -> MemoryChanges {
        MemoryChanges {
            name: c.opt_string("name"),
            description: c.opt_string("description"),
            memory_type: c.opt_string("type"),
            body: c.opt_string("body"),
            skip_index: c.flag("skipIndex"),
        }
    }
}

impl FromJs for Proposal {
    const WHAT: &'static str = "proposal";

    fn read(given: &Fields) -> Proposal {
        match given.string("kind").as_str() {
            "save" => Proposal::Save(SaveInput::read(given)),
            "update" => {
                let file = given.string("file");
                if given.value("changes").is_none() {
                    given.missing("changes");
                }
                Proposal::Update {
                    file,
                    changes: MemoryChanges::read(&given.object("changes")),
                }
            }
            "delete" => Proposal::Delete {
                file: given.string("file"),
            },
            _ => {
                given.wrong_type("kind", "`save`, `update` or `delete`");
                Proposal::Delete {
                    file: String::new(),
                }
            }
        }
    }
}

/// `appendLog`'s date: the local calendar date of a JS `Date` (`now_ms` when absent).
pub(crate) fn local_date(date: Option<JsValue>, now_ms: f64) -> Result<LocalDate, JsValue> {
    let date = match date {
        Some(date) => date
            .dyn_into::<js_sys::Date>()
            .map_err(|_| super::fields::invalid("date", "expected a Date"))?,
        None => js_sys::Date::new(&JsValue::from_f64(now_ms)),
    };
    Ok(LocalDate {
        year: date.get_full_year().clamp(0, 9999) as u16,
        month: (date.get_month() + 1) as u8,
        day: date.get_date() as u8,
    })
}
