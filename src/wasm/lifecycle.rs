//! Extraction, consolidation changesets, lint, proposals and the memory-tool backend across
//! the boundary: a second `impl` block of the `Memdir` class and the `Extractor` class.

use super::fields::{self, whole, Fields};
use super::memdir::JsMemdir;
use super::{promise, to_settled};
use crate::consolidate::{
    Changeset, ConsolidateOptions, ConsolidationGates, FileCreate, FileDelete, FileUpdate,
    IndexChange, SessionInfo,
};
use crate::extract::{ConversationMessage, ExtractOptions, RejectedOperation, ToolUse};
use crate::host::Role;
use crate::lint::LintOptions;
use crate::memory_tool::MemoryToolCommand;
use crate::store::Proposal;
use js_sys::Promise;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

fn lint_options(given: &Fields, store_caps: crate::TruncateOptions) -> LintOptions {
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
        index_caps: store_caps,
    }
}

fn extract_options(given: &Fields) -> ExtractOptions {
    let d = ExtractOptions::default();
    ExtractOptions {
        max_tokens: given.opt_u32("maxTokens").unwrap_or(d.max_tokens),
        timeout_ms: given.opt_u32("timeoutMs").unwrap_or(d.timeout_ms),
    }
}

fn consolidate_options(given: &Fields) -> ConsolidateOptions {
    let d = ConsolidateOptions::default();
    let gates = match given.value("gates") {
        None => d.gates,
        Some(_) => {
            let g = given.object("gates");
            ConsolidationGates {
                min_hours: g.opt_f64("minHours").unwrap_or(d.gates.min_hours),
                min_sessions: g.opt_usize("minSessions").unwrap_or(d.gates.min_sessions),
            }
        }
    };
    let sessions = match given.value("sessions") {
        None => Vec::new(),
        Some(list) => given.each(list, "consolidate options", |s| SessionInfo {
            id: s.string("id"),
            mtime_ms: s.f64("mtimeMs"),
        }),
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

fn role(m: &Fields) -> Role {
    match m.string("role").as_str() {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        _ => {
            m.wrong_type("role", "`user` or `assistant`");
            Role::User
        }
    }
}

fn messages_from_js(messages: JsValue) -> Result<Vec<ConversationMessage>, JsValue> {
    fields::read_each(messages, "messages", |m| {
        let tool_uses = match m.value("toolUses") {
            None => Vec::new(),
            Some(list) => m.each(list, "messages", |t| ToolUse {
                name: t.string_or_empty("name"),
                file_path: t.opt_string("filePath"),
            }),
        };
        ConversationMessage {
            role: role(m),
            text: m.string_or_empty("text"),
            id: m.opt_string("id"),
            tool_uses,
        }
    })
}

fn changeset_from(given: &Fields) -> Changeset {
    let list = |key: &str| {
        given
            .value(key)
            .unwrap_or_else(|| js_sys::Array::new().into())
    };
    Changeset {
        create: given.each(list("create"), "changeset", |f| FileCreate {
            file: f.string("file"),
            content: f.string("content"),
        }),
        update: given.each(list("update"), "changeset", |f| FileUpdate {
            file: f.string("file"),
            before: f.string("before"),
            after: f.string("after"),
        }),
        delete: given.each(list("delete"), "changeset", |f| FileDelete {
            file: f.string("file"),
            before: f.string("before"),
        }),
        index: match given.value("index") {
            None => None,
            Some(_) => {
                let i = given.object("index");
                Some(IndexChange {
                    before: i.opt_string("before"),
                    after: i.string("after"),
                })
            }
        },
        summary: given.string_or_empty("summary"),
        rejected: given.each(list("rejected"), "changeset", |r| RejectedOperation {
            index: r.opt_usize("index").unwrap_or_else(|| {
                r.missing("index");
                0
            }),
            file: r.opt_string("file"),
            code: r.string("code"),
            reason: r.string("reason"),
        }),
    }
}

fn proposal_from(given: &Fields) -> Proposal {
    match given.string("kind").as_str() {
        "save" => Proposal::Save(super::memdir::save_input(given)),
        "update" => {
            let file = given.string("file");
            if given.value("changes").is_none() {
                given.missing("changes");
            }
            Proposal::Update {
                file,
                changes: super::memdir::memory_changes(&given.object("changes")),
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

fn view_range(c: &Fields) -> Option<[i64; 2]> {
    let range = c.value("view_range")?;
    let pair = js_sys::Array::from(&range);
    if js_sys::Array::is_array(&range) && pair.length() == 2 {
        if let (Some(a), Some(b)) = (whole(&pair.get(0)), whole(&pair.get(1))) {
            return Some([a, b]);
        }
    }
    c.wrong_type("view_range", "two whole numbers");
    None
}

fn memory_command(c: &Fields) -> MemoryToolCommand {
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

#[wasm_bindgen(js_class = Memdir)]
impl JsMemdir {
    /// A report of problems, each with a stable `code`: bad frontmatter, unknown types, index
    /// entries pointing nowhere, files missing from the index, duplicates, an index over its
    /// caps (and which entries would be cut), long index lines, secrets, stale and oversized
    /// memories.
    ///
    /// ```js
    /// const { findings } = await memdir.lint({ staleDays: 60 });
    /// for (const f of findings) console.log(f.code, f.file ?? "", f.message);
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<LintReport>")]
    pub fn lint(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "LintOptions")] options: JsValue,
    ) -> Result<Promise, JsValue> {
        let caps = self.inner.config().store.index_caps;
        let options = fields::read(options, "lint options", true, |given| {
            lint_options(given, caps)
        })?;
        let inner = self.inner.clone();
        Ok(promise(
            async move { to_settled(inner.lint(&options).await) },
        ))
    }

    /// One-off extraction: ask the host's LLM which memories the conversation holds and apply
    /// the valid operations through the store (proposals in `confirm` mode). For a running
    /// conversation use an `Extractor`, which keeps a cursor, throttles and coalesces.
    ///
    /// ```js
    /// const out = await memdir.extract([{ role: "user", text: "Remember: I prefer pnpm" }]);
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<ExtractOutcome>")]
    pub fn extract(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ConversationMessage[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ExtractOptions")] options: JsValue,
    ) -> Result<Promise, JsValue> {
        let messages = messages_from_js(messages)?;
        let options = fields::read(options, "extract options", true, extract_options)?;
        let inner = self.inner.clone();
        Ok(promise(async move {
            to_settled(inner.extract(&messages, &options).await)
        }))
    }

    /// Consolidation: when the gates allow (24 h and 5 sessions since the last run, unless
    /// `force`), ask the host's LLM for a tidier directory and return it as a changeset — files
    /// to create, update and delete and the new index — for the host to show. Nothing is
    /// written unless `autoApply` (in `auto` mode).
    ///
    /// ```js
    /// const out = await memdir.consolidate({ sessions, force: true });
    /// if (out.status === "ready" && confirm(render(out.changeset))) await memdir.applyChangeset(out.changeset);
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<ConsolidateOutcome>")]
    pub fn consolidate(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "ConsolidateOptions")] options: JsValue,
    ) -> Result<Promise, JsValue> {
        let options = fields::read(options, "consolidate options", true, consolidate_options)?;
        let inner = self.inner.clone();
        Ok(promise(async move {
            to_settled(inner.consolidate(&options).await)
        }))
    }

    /// Write a changeset (every `before` must still match, or nothing is written), keeping an
    /// undo journal.
    ///
    /// ```js
    /// await memdir.applyChangeset(changeset);
    /// await memdir.undoChangeset(); // the directory is as it was, byte for byte
    /// ```
    #[wasm_bindgen(js_name = applyChangeset, unchecked_return_type = "Promise<ApplyReport>")]
    pub fn apply_changeset(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Changeset")] changeset: JsValue,
    ) -> Result<Promise, JsValue> {
        let changeset = fields::read(changeset, "changeset", false, changeset_from)?;
        let inner = self.inner.clone();
        Ok(promise(async move {
            to_settled(inner.apply_changeset(&changeset).await)
        }))
    }

    /// Undo the last applied changeset; resolves to the number of files restored.
    ///
    /// ```js
    /// const restored = await memdir.undoChangeset();
    /// ```
    #[wasm_bindgen(js_name = undoChangeset, unchecked_return_type = "Promise<number>")]
    pub fn undo_changeset(&self) -> Promise {
        let inner = self.inner.clone();
        promise(async move { to_settled(inner.undo_changeset().await) })
    }

    /// Carry out a write held back in `confirm` mode (the host approved it).
    ///
    /// ```js
    /// const out = await memdir.save(input);
    /// if (out.status === "proposed" && userApproves(out)) await memdir.applyProposal(out);
    /// ```
    #[wasm_bindgen(js_name = applyProposal, unchecked_return_type = "Promise<SaveOutcome>")]
    pub fn apply_proposal(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Proposal")] proposal: JsValue,
    ) -> Result<Promise, JsValue> {
        let proposal = fields::read(proposal, "proposal", false, proposal_from)?;
        let inner = self.inner.clone();
        Ok(promise(async move {
            to_settled(inner.apply_proposal(proposal).await)
        }))
    }

    /// Run one command of Anthropic's memory tool (`memory_20250818`: view, create, str_replace,
    /// insert, delete, rename) over this directory, mapped from `/memories`. Traversal is
    /// refused; writes respect the write mode (proposals in `confirm`).
    ///
    /// ```js
    /// const out = await memdir.memoryCommand(toolUse.input);
    /// reply({ type: "tool_result", tool_use_id: toolUse.id, content: out.text });
    /// ```
    #[wasm_bindgen(js_name = memoryCommand, unchecked_return_type = "Promise<MemoryToolOutcome>")]
    pub fn memory_command(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MemoryToolCommand")] command: JsValue,
    ) -> Result<Promise, JsValue> {
        let command = fields::read(command, "memory tool command", false, memory_command)?;
        let inner = self.inner.clone();
        Ok(promise(async move {
            to_settled(inner.memory_command(command).await)
        }))
    }

    /// Carry out a memory-tool command held back in `confirm` mode.
    #[wasm_bindgen(js_name = applyMemoryCommand, unchecked_return_type = "Promise<string>")]
    pub fn apply_memory_command(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MemoryToolCommand")] command: JsValue,
    ) -> Result<Promise, JsValue> {
        let command = fields::read(command, "memory tool command", false, memory_command)?;
        let inner = self.inner.clone();
        Ok(promise(async move {
            to_settled(inner.apply_memory_command(command).await)
        }))
    }
}

/// Extraction over a running conversation: call `run` at the end of each turn with the whole
/// conversation; it extracts only what is new since its cursor, every `everyN` turns, skips
/// turns where the agent saved memories itself, and folds calls that overlap a run into one
/// trailing run.
///
/// ```js
/// const extractor = new Extractor({ everyN: 1 });
/// const out = await extractor.run(memdir, conversation);
/// ```
#[wasm_bindgen]
pub struct Extractor {
    inner: Rc<crate::extract::Extractor>,
}

#[wasm_bindgen]
impl Extractor {
    /// A fresh extractor (`everyN` defaults to 1).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "{ everyN?: number }")] options: JsValue,
    ) -> Result<Extractor, JsValue> {
        let every_n = fields::read(options, "extractor options", true, |o| {
            o.opt_u32("everyN").unwrap_or(1)
        })?;
        Ok(Extractor {
            inner: Rc::new(crate::extract::Extractor::new(every_n)),
        })
    }

    /// Extract what is new in `messages` into `memdir`.
    #[wasm_bindgen(unchecked_return_type = "Promise<ExtractOutcome>")]
    pub fn run(
        &self,
        memdir: &JsMemdir,
        #[wasm_bindgen(unchecked_param_type = "ConversationMessage[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ExtractOptions")] options: JsValue,
    ) -> Result<Promise, JsValue> {
        let messages = messages_from_js(messages)?;
        let options = fields::read(options, "extract options", true, extract_options)?;
        let extractor = self.inner.clone();
        let memdir = memdir.inner.clone();
        Ok(promise(async move {
            to_settled(extractor.run(&memdir, &messages, &options).await)
        }))
    }
}
