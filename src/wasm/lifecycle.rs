//! Extraction, consolidation changesets, lint, proposals and the memory-tool backend across
//! the boundary: a second `impl` block of the `Memdir` class and the `Extractor` class.

use super::inputs::{from_js, list_from_js, ExtractorOptions};
use super::memdir::JsMemdir;
use crate::consolidate::{Changeset, ConsolidateOptions};
use crate::extract::{ConversationMessage, ExtractOptions};
use crate::lint::LintOptions;
use crate::memory_tool::MemoryToolCommand;
use crate::store::Proposal;
use js_sys::Promise;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

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
        let mut options: LintOptions = from_js(options)?;
        options.index_caps = self.inner.config().store.index_caps;
        Ok(settle!(self.inner, |core| { core.lint(&options).await }))
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
        let messages: Vec<ConversationMessage> = list_from_js(messages)?;
        let options: ExtractOptions = from_js(options)?;
        Ok(settle!(self.inner, |core| {
            core.extract(&messages, &options).await
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
        let options: ConsolidateOptions = from_js(options)?;
        Ok(settle!(self.inner, |core| {
            core.consolidate(&options).await
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
        let changeset: Changeset = from_js(changeset)?;
        Ok(settle!(self.inner, |core| {
            core.apply_changeset(&changeset).await
        }))
    }

    /// Undo the last applied changeset; resolves to the number of files restored.
    ///
    /// ```js
    /// const restored = await memdir.undoChangeset();
    /// ```
    #[wasm_bindgen(js_name = undoChangeset, unchecked_return_type = "Promise<number>")]
    pub fn undo_changeset(&self) -> Promise {
        settle!(self.inner, |core| { core.undo_changeset().await })
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
        let proposal: Proposal = from_js(proposal)?;
        Ok(settle!(self.inner, |core| {
            core.apply_proposal(proposal).await
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
        let command: MemoryToolCommand = from_js(command)?;
        Ok(settle!(self.inner, |core| {
            core.memory_command(command).await
        }))
    }

    /// Carry out a memory-tool command held back in `confirm` mode.
    #[wasm_bindgen(js_name = applyMemoryCommand, unchecked_return_type = "Promise<string>")]
    pub fn apply_memory_command(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MemoryToolCommand")] command: JsValue,
    ) -> Result<Promise, JsValue> {
        let command: MemoryToolCommand = from_js(command)?;
        Ok(settle!(self.inner, |core| {
            core.apply_memory_command(command).await
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
        let options: ExtractorOptions = from_js(options)?;
        Ok(Extractor {
            inner: Rc::new(crate::extract::Extractor::new(options.every_n)),
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
        let messages: Vec<ConversationMessage> = list_from_js(messages)?;
        let options: ExtractOptions = from_js(options)?;
        let memdir = memdir.inner.clone();
        Ok(settle!(self.inner, |extractor| {
            extractor.run(&memdir, &messages, &options).await
        }))
    }
}
