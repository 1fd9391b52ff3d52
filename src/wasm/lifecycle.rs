//! Extraction, consolidation changesets, lint, proposals and the memory-tool backend across
//! the boundary: a second `impl` block of the `Memdir` class and the `Extractor` class.

use super::convert::{from_js, from_js_or_default};
use super::memdir::{promise, JsMemdir};
use crate::consolidate::{Changeset, ConsolidateOptions, ConsolidationGates, SessionInfo};
use crate::extract::{ConversationMessage, ExtractOptions};
use crate::lint::LintOptions;
use crate::memory_tool::MemoryToolCommand;
use crate::store::Proposal;
use js_sys::Promise;
use serde::Deserialize;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct LintOptionsIn {
    stale_days: Option<u64>,
    near_duplicate_threshold: Option<f64>,
    max_index_line_chars: Option<usize>,
    check_index: Option<bool>,
}

impl LintOptionsIn {
    fn into_core(self, store_caps: crate::TruncateOptions) -> LintOptions {
        let d = LintOptions {
            index_caps: store_caps,
            ..LintOptions::default()
        };
        LintOptions {
            stale_days: self.stale_days.unwrap_or(d.stale_days),
            near_duplicate_threshold: self
                .near_duplicate_threshold
                .unwrap_or(d.near_duplicate_threshold),
            max_index_line_chars: self.max_index_line_chars.unwrap_or(d.max_index_line_chars),
            check_index: self.check_index.unwrap_or(d.check_index),
            index_caps: d.index_caps,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ExtractOptionsIn {
    max_tokens: Option<u32>,
    timeout_ms: Option<u32>,
}

impl From<ExtractOptionsIn> for ExtractOptions {
    fn from(o: ExtractOptionsIn) -> Self {
        let d = ExtractOptions::default();
        ExtractOptions {
            max_tokens: o.max_tokens.unwrap_or(d.max_tokens),
            timeout_ms: o.timeout_ms.unwrap_or(d.timeout_ms),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ConsolidateOptionsIn {
    gates: Option<ConsolidationGates>,
    sessions: Vec<SessionInfo>,
    current_session: Option<String>,
    force: bool,
    holder: Option<String>,
    max_tokens: Option<u32>,
    timeout_ms: Option<u32>,
    auto_apply: bool,
}

impl From<ConsolidateOptionsIn> for ConsolidateOptions {
    fn from(o: ConsolidateOptionsIn) -> Self {
        let d = ConsolidateOptions::default();
        ConsolidateOptions {
            gates: o.gates.unwrap_or(d.gates),
            sessions: o.sessions,
            current_session: o.current_session,
            force: o.force,
            holder: o.holder,
            max_tokens: o.max_tokens.unwrap_or(d.max_tokens),
            timeout_ms: o.timeout_ms.unwrap_or(d.timeout_ms),
            auto_apply: o.auto_apply,
        }
    }
}

fn messages_from_js(messages: JsValue) -> Result<Vec<ConversationMessage>, JsValue> {
    from_js(messages, "messages")
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
        #[wasm_bindgen(unchecked_param_type = "LintOptions")] options: Option<JsValue>,
    ) -> Result<Promise, JsValue> {
        let given: LintOptionsIn =
            from_js_or_default(options.unwrap_or(JsValue::UNDEFINED), "lint options")?;
        let options = given.into_core(self.inner.config().store.index_caps);
        let inner = self.inner.clone();
        Ok(promise(async move { inner.lint(&options).await }))
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
        #[wasm_bindgen(unchecked_param_type = "ExtractOptions")] options: Option<JsValue>,
    ) -> Result<Promise, JsValue> {
        let messages = messages_from_js(messages)?;
        let options: ExtractOptionsIn =
            from_js_or_default(options.unwrap_or(JsValue::UNDEFINED), "extract options")?;
        let options = ExtractOptions::from(options);
        let inner = self.inner.clone();
        Ok(promise(
            async move { inner.extract(&messages, &options).await },
        ))
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
        #[wasm_bindgen(unchecked_param_type = "ConsolidateOptions")] options: Option<JsValue>,
    ) -> Result<Promise, JsValue> {
        let options: ConsolidateOptionsIn =
            from_js_or_default(options.unwrap_or(JsValue::UNDEFINED), "consolidate options")?;
        let options = ConsolidateOptions::from(options);
        let inner = self.inner.clone();
        Ok(promise(async move { inner.consolidate(&options).await }))
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
        let changeset: Changeset = from_js(changeset, "changeset")?;
        let inner = self.inner.clone();
        Ok(promise(
            async move { inner.apply_changeset(&changeset).await },
        ))
    }

    /// Undo the last applied changeset; resolves to the number of files restored.
    ///
    /// ```js
    /// const restored = await memdir.undoChangeset();
    /// ```
    #[wasm_bindgen(js_name = undoChangeset, unchecked_return_type = "Promise<number>")]
    pub fn undo_changeset(&self) -> Promise {
        let inner = self.inner.clone();
        promise(async move { inner.undo_changeset().await })
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
        let proposal: Proposal = from_js(proposal, "proposal")?;
        let inner = self.inner.clone();
        Ok(promise(async move { inner.apply_proposal(proposal).await }))
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
        let command: MemoryToolCommand = from_js(command, "memory tool command")?;
        let inner = self.inner.clone();
        Ok(promise(async move { inner.memory_command(command).await }))
    }

    /// Carry out a memory-tool command held back in `confirm` mode.
    #[wasm_bindgen(js_name = applyMemoryCommand, unchecked_return_type = "Promise<string>")]
    pub fn apply_memory_command(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MemoryToolCommand")] command: JsValue,
    ) -> Result<Promise, JsValue> {
        let command: MemoryToolCommand = from_js(command, "memory tool command")?;
        let inner = self.inner.clone();
        Ok(promise(
            async move { inner.apply_memory_command(command).await },
        ))
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

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ExtractorOptionsIn {
    every_n: Option<u32>,
}

#[wasm_bindgen]
impl Extractor {
    /// A fresh extractor (`everyN` defaults to 1).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "{ everyN?: number }")] options: Option<JsValue>,
    ) -> Result<Extractor, JsValue> {
        let o: ExtractorOptionsIn =
            from_js_or_default(options.unwrap_or(JsValue::UNDEFINED), "extractor options")?;
        Ok(Extractor {
            inner: Rc::new(crate::extract::Extractor::new(o.every_n.unwrap_or(1))),
        })
    }

    /// Extract what is new in `messages` into `memdir`.
    #[wasm_bindgen(unchecked_return_type = "Promise<ExtractOutcome>")]
    pub fn run(
        &self,
        memdir: &JsMemdir,
        #[wasm_bindgen(unchecked_param_type = "ConversationMessage[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ExtractOptions")] options: Option<JsValue>,
    ) -> Result<Promise, JsValue> {
        let messages = messages_from_js(messages)?;
        let options: ExtractOptionsIn =
            from_js_or_default(options.unwrap_or(JsValue::UNDEFINED), "extract options")?;
        let options = ExtractOptions::from(options);
        let extractor = self.inner.clone();
        let memdir = memdir.inner.clone();
        Ok(promise(async move {
            extractor.run(&memdir, &messages, &options).await
        }))
    }
}
