//! The feature inputs: recall, lint, extraction, consolidation and the memory tool.

use super::{fields, Fields, FromJs};
use crate::consolidate::{
    Changeset, ConsolidateOptions, ConsolidationGates, FileCreate, FileDelete, FileUpdate,
    IndexChange, SessionInfo,
};
use crate::extract::{ConversationMessage, ExtractOptions, RejectedOperation, ToolUse};
use crate::host::Role;
use crate::lint::LintOptions;
use crate::memory_tool::MemoryToolCommand;
use crate::recall::{AbortFlag, FindOptions};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

impl FromJs for FindOptions {
    const WHAT: &'static str = "findRelevant options";
    const OPTIONAL: bool = true;

    /// Everything but `signal` (see [`FindCall`]).
    fn read(given: &Fields) -> FindOptions {
        let mut find = FindOptions {
            recent_tools: given.strings("recentTools"),
            already_surfaced: given.strings("alreadySurfaced"),
            explain: given.opt_bool("explain").unwrap_or(false),
            ..FindOptions::default()
        };
        if let Some(limit) = given.opt_usize("limit") {
            find.limit = limit;
        }
        find
    }
}

/// Recall options from JS, plus the abort wiring for `signal` (removed on drop).
pub(crate) struct FindCall {
    pub options: FindOptions,
    listener: Option<(web_sys::AbortSignal, Closure<dyn FnMut()>)>,
}

impl FindCall {
    /// Read `options` and wire its `signal` to the options' abort flag.
    pub fn new(options: JsValue) -> Result<FindCall, JsValue> {
        let signal = js_sys::Reflect::get(&options, &"signal".into())
            .ok()
            .and_then(|s| s.dyn_into::<web_sys::AbortSignal>().ok());
        let mut find: FindOptions = super::from_js(options)?;
        let mut listener = None;
        if let Some(signal) = signal {
            let flag = AbortFlag::new();
            if signal.aborted() {
                flag.abort();
            } else {
                let on_abort = flag.clone();
                let closure = Closure::<dyn FnMut()>::new(move || on_abort.abort());
                let _ = signal
                    .add_event_listener_with_callback("abort", closure.as_ref().unchecked_ref());
                listener = Some((signal, closure));
            }
            find.abort = Some(flag);
        }
        Ok(FindCall {
            options: find,
            listener,
        })
    }
}

impl Drop for FindCall {
    fn drop(&mut self) {
        if let Some((signal, closure)) = self.listener.take() {
            let _ = signal
                .remove_event_listener_with_callback("abort", closure.as_ref().unchecked_ref());
        }
    }
}

/// A recalled memory as `surface` takes it: `{ path, mtimeMs }`.
pub(crate) struct RecalledMemory {
    pub path: String,
    pub mtime_ms: f64,
}

impl FromJs for RecalledMemory {
    const WHAT: &'static str = "memories";

    fn read(m: &Fields) -> RecalledMemory {
        RecalledMemory {
            path: m.string("path"),
            mtime_ms: m.opt_f64("mtimeMs").unwrap_or(0.0),
        }
    }
}

/// A memory shown to the model, as `RecallSession.record` takes it: `{ path, content }`.
pub(crate) struct ShownMemory {
    pub path: String,
    pub content: String,
}

impl FromJs for ShownMemory {
    const WHAT: &'static str = "memories";

    fn read(m: &Fields) -> ShownMemory {
        ShownMemory {
            path: m.string("path"),
            content: m.string("content"),
        }
    }
}

impl FromJs for LintOptions {
    const WHAT: &'static str = "lint options";
    const OPTIONAL: bool = true;

    /// The thresholds; `index_caps` stays the default (the store's caps are the caller's).
    fn read(given: &Fields) -> LintOptions {
        let d = LintOptions::default();
        LintOptions {
            stale_days: match given.opt_uint("staleDays", 9_007_199_254_740_991.0) {
                Some(n) => n as u64,
                None => d.stale_days,
            },
            near_duplicate_threshold: given
                .opt_f64("nearDuplicateThreshold")
                .unwrap_or(d.near_duplicate_threshold),
            max_index_line_chars: given
                .opt_usize("maxIndexLineChars")
                .unwrap_or(d.max_index_line_chars),
            check_index: given.opt_bool("checkIndex").unwrap_or(d.check_index),
            index_caps: d.index_caps,
        }
    }
}

impl FromJs for ExtractOptions {
    const WHAT: &'static str = "extract options";
    const OPTIONAL: bool = true;

    fn read(given: &Fields) -> ExtractOptions {
        let d = ExtractOptions::default();
        ExtractOptions {
            max_tokens: given.opt_u32("maxTokens").unwrap_or(d.max_tokens),
            timeout_ms: given.opt_u32("timeoutMs").unwrap_or(d.timeout_ms),
        }
    }
}

/// The options of `new Extractor(options)`.
pub(crate) struct ExtractorOptions {
    /// Extract every N turns (default 1).
    pub every_n: u32,
}

impl FromJs for ExtractorOptions {
    const WHAT: &'static str = "extractor options";
    const OPTIONAL: bool = true;

    fn read(o: &Fields) -> ExtractorOptions {
        ExtractorOptions {
            every_n: o.opt_u32("everyN").unwrap_or(1),
        }
    }
}

impl FromJs for ToolUse {
    const WHAT: &'static str = "messages";

    fn read(t: &Fields) -> ToolUse {
        ToolUse {
            name: t.string_or_empty("name"),
            file_path: t.opt_string("filePath"),
        }
    }
}

impl FromJs for ConversationMessage {
    const WHAT: &'static str = "messages";

    fn read(m: &Fields) -> ConversationMessage {
        let role = m.opt_enum::<Role>("role").unwrap_or_else(|| {
            m.missing("role");
            Role::User
        });
        let tool_uses = match m.value("toolUses") {
            None => Vec::new(),
            Some(list) => m.each(list, Self::WHAT, ToolUse::read),
        };
        ConversationMessage {
            role,
            text: m.string_or_empty("text"),
            id: m.opt_string("id"),
            tool_uses,
        }
    }
}

impl FromJs for ConsolidationGates {
    const WHAT: &'static str = "consolidate options";

    fn read(g: &Fields) -> ConsolidationGates {
        let d = ConsolidationGates::default();
        ConsolidationGates {
            min_hours: g.opt_f64("minHours").unwrap_or(d.min_hours),
            min_sessions: g.opt_usize("minSessions").unwrap_or(d.min_sessions),
        }
    }
}

impl FromJs for SessionInfo {
    const WHAT: &'static str = "consolidate options";

    fn read(s: &Fields) -> SessionInfo {
        SessionInfo {
            id: s.string("id"),
            mtime_ms: s.f64("mtimeMs"),
        }
    }
}

impl FromJs for ConsolidateOptions {
    const WHAT: &'static str = "consolidate options";
    const OPTIONAL: bool = true;

    fn read(given: &Fields) -> ConsolidateOptions {
        let d = ConsolidateOptions::default();
        let gates = match given.value("gates") {
            None => d.gates,
            Some(_) => ConsolidationGates::read(&given.object("gates")),
        };
        let sessions = match given.value("sessions") {
            None => Vec::new(),
            Some(list) => given.each(list, Self::WHAT, SessionInfo::read),
        };
        ConsolidateOptions {
            gates,
            sessions,
            current_session: given.opt_string("currentSession"),
            force: given.flag("force"),
            holder: given.opt_string("holder"),
            max_tokens: given.opt_u32("maxTokens").unwrap_or(d.max_tokens),
            timeout_ms: given.opt_u32("timeoutMs").unwrap_or(d.timeout_ms),
            auto_apply: given.flag("autoApply"),
        }
    }
}

impl FromJs for FileCreate {
    const WHAT: &'static str = "changeset";

    fn read(f: &Fields) -> FileCreate {
        FileCreate {
            file: f.string("file"),
            content: f.string("content"),
        }
    }
}

impl FromJs for FileUpdate {
    const WHAT: &'static str = "changeset";

    fn read(f: &Fields) -> FileUpdate {
        FileUpdate {
            file: f.string("file"),
            before: f.string("before"),
            after: f.string("after"),
        }
    }
}

impl FromJs for FileDelete {
    const WHAT: &'static str = "changeset";

    fn read(f: &Fields) -> FileDelete {
        FileDelete {
            file: f.string("file"),
            before: f.string("before"),
        }
    }
}

impl FromJs for IndexChange {
    const WHAT: &'static str = "changeset";

    fn read(i: &Fields) -> IndexChange {
        IndexChange {
            before: i.opt_string("before"),
            after: i.string("after"),
        }
    }
}

impl FromJs for RejectedOperation {
    const WHAT: &'static str = "changeset";

    fn read(r: &Fields) -> RejectedOperation {
        RejectedOperation {
            index: r.opt_usize("index").unwrap_or_else(|| {
                r.missing("index");
                0
            }),
            file: r.opt_string("file"),
            code: r.string("code"),
            reason: r.string("reason"),
        }
    }
}

impl FromJs for Changeset {
    const WHAT: &'static str = "changeset";

    fn read(given: &Fields) -> Changeset {
        let list = |key: &str| {
            given
                .value(key)
                .unwrap_or_else(|| js_sys::Array::new().into())
        };
        Changeset {
            create: given.each(list("create"), Self::WHAT, FileCreate::read),
            update: given.each(list("update"), Self::WHAT, FileUpdate::read),
            delete: given.each(list("delete"), Self::WHAT, FileDelete::read),
            index: given
                .value("index")
                .map(|_| IndexChange::read(&given.object("index"))),
            summary: given.string_or_empty("summary"),
            rejected: given.each(list("rejected"), Self::WHAT, RejectedOperation::read),
        }
    }
}

fn view_range(c: &Fields) -> Option<[i64; 2]> {
    let range = c.value("view_range")?;
    if fields::array_len(&range) == Some(2) {
        let (a, b) = (fields::element(&range, 0), fields::element(&range, 1));
        if let (Some(a), Some(b)) = (fields::whole(&a), fields::whole(&b)) {
            return Some([a, b]);
        }
    }
    c.wrong_type("view_range", "two whole numbers");
    None
}

impl FromJs for MemoryToolCommand {
    const WHAT: &'static str = "memory tool command";

    fn read(c: &Fields) -> MemoryToolCommand {
        let path = || c.string("path");
        let int = |key: &str| {
            c.opt_i64(key).unwrap_or_else(|| {
                c.missing(key);
                0
            })
        };
        match c.string("command").as_str() {
            "view" => MemoryToolCommand::View {
                path: path(),
                view_range: view_range(c),
            },
            "create" => MemoryToolCommand::Create {
                path: path(),
                file_text: c.string("file_text"),
            },
            "str_replace" => MemoryToolCommand::StrReplace {
                path: path(),
                old_str: c.string("old_str"),
                new_str: c.string("new_str"),
            },
            "insert" => MemoryToolCommand::Insert {
                path: path(),
                insert_line: int("insert_line"),
                insert_text: c.string("insert_text"),
            },
            "delete" => MemoryToolCommand::Delete { path: path() },
            "rename" => MemoryToolCommand::Rename {
                old_path: c.string("old_path"),
                new_path: c.string("new_path"),
            },
            _ => {
                c.wrong_type(
                    "command",
                    "`view`, `create`, `str_replace`, `insert`, `delete` or `rename`",
                );
                MemoryToolCommand::Delete {
                    path: String::new(),
                }
            }
        }
    }
}
