//! The `Memdir` class: the core's `Memdir` over JS host objects. Each method clones the shared
//! state into a future and returns a Promise; nothing is borrowed across an `await`, so JS may
//! call back in while a Promise is pending.

use super::error::throw;
use super::fields;
use super::host::{JsClock, JsFs, JsLlm, JsTelemetry};
use super::inputs::{from_js, list_from_js, local_date, text_arg, FindCall, RecalledMemory};
use super::{promise, Core};
use crate::store::{MemoryChanges, SaveInput};
use js_sys::{Promise, Reflect};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

fn field(options: &JsValue, key: &str) -> JsValue {
    Reflect::get(options, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A memory directory over a host filesystem, with an optional LLM for recall, a telemetry
/// sink and a clock.
///
/// ```js
/// import { Memdir, memoryFs } from "memdir";
/// const memdir = new Memdir({ fs: memoryFs(), dir: "/memory/" });
/// await memdir.save({ name: "Role", description: "Senior Go dev", type: "user", body: "…" });
/// const headers = await memdir.scan();
/// ```
#[wasm_bindgen(js_name = Memdir)]
pub struct JsMemdir {
    pub(crate) inner: Rc<Core>,
}

#[wasm_bindgen(js_class = Memdir)]
impl JsMemdir {
    /// Open a memory directory. `fs` and `dir` are required; `llm`, `telemetry`, `now`,
    /// `writeMode`, `store`, `prompt` and `recall` are optional.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "MemdirOptions")] options: JsValue,
    ) -> Result<JsMemdir, JsValue> {
        if !options.is_object() {
            return Err(fields::invalid_input(
                "new Memdir(options): options must be an object".into(),
            ));
        }
        let fs = JsFs::new(field(&options, "fs")).map_err(fields::invalid_input)?;
        let llm = field(&options, "llm");
        let llm = if llm.is_undefined() || llm.is_null() {
            None
        } else {
            Some(JsLlm::new(llm).map_err(fields::invalid_input)?)
        };
        let telemetry =
            JsTelemetry::new(field(&options, "telemetry")).map_err(fields::invalid_input)?;
        let clock = JsClock::new(field(&options, "now")).map_err(fields::invalid_input)?;
        let embedder =
            super::embed::JsEmbedder::from_options(&options).map_err(fields::invalid_input)?;
        let config: crate::MemdirConfig = from_js(options)?;
        crate::paths::check_memory_dir(&config.dir).map_err(super::error::to_js)?;
        let core = crate::Memdir::new(fs, clock, llm, telemetry, config).with_embedder(embedder);
        Ok(JsMemdir {
            inner: Rc::new(core),
        })
    }

    /// The memory directory (absolute, ending with `/`).
    #[wasm_bindgen(getter, unchecked_return_type = "string")]
    pub fn dir(&self) -> JsValue {
        JsValue::from_str(self.inner.dir())
    }

    /// The memory section for the system prompt in the configured mode, or `null` when memory
    /// is off. Creates the directory if needed (never failing the prompt for it) and reports
    /// `memdir_loaded` / `memdir_disabled` telemetry.
    ///
    /// ```js
    /// const section = await memdir.loadPrompt();
    /// if (section) systemPrompt += "\n\n" + section;
    /// ```
    #[wasm_bindgen(js_name = loadPrompt, unchecked_return_type = "Promise<string | null>")]
    pub fn load_prompt(&self) -> Promise {
        let inner = self.inner.clone();
        promise(async move {
            // `None` (memory off) is `null`, as the type says, not the serializer's `undefined`.
            let section = throw(inner.load_prompt().await)?;
            Ok(section.map_or(JsValue::NULL, |text| JsValue::from_str(&text)))
        })
    }

    /// The memories relevant to `query` (at most `limit`, default 5): picked by the host's LLM
    /// when one is configured, by the built-in ranker otherwise (or when the LLM fails, times
    /// out or answers garbage). Never rejects for a bad reply; `answeredBy` says which path
    /// answered and `outcome` what happened. `signal` aborts it.
    ///
    /// ```js
    /// const { memories, answeredBy } = await memdir.findRelevant("how do we run the tests?", { signal });
    /// ```
    #[wasm_bindgen(js_name = findRelevant, unchecked_return_type = "Promise<Recall>")]
    pub fn find_relevant(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "FindOptions")] options: Option<JsValue>,
    ) -> Result<Promise, JsValue> {
        let query = text_arg(query, "query", "findRelevant")?.text;
        let call = FindCall::new(options.unwrap_or(JsValue::UNDEFINED))?;
        Ok(settle!(self.inner, |core| {
            let result = core.find_relevant(&query, call.options.clone()).await;
            drop(call);
            result
        }))
    }

    /// Read recalled memories for the model: each file's first 200 lines within 4,096 bytes,
    /// a truncation note when cut, the age header, and `text`, the rendered system reminder.
    /// Unreadable files are left out.
    ///
    /// ```js
    /// const shown = await memdir.surface(memories);
    /// for (const m of shown) messages.push({ role: "user", content: m.text });
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<SurfacedMemory[]>")]
    pub fn surface(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ path: string; mtimeMs: number }[]")]
        memories: JsValue,
    ) -> Result<Promise, JsValue> {
        let memories: Vec<(String, f64)> = list_from_js::<RecalledMemory>(memories)?
            .into_iter()
            .map(|m| (m.path, m.mtime_ms))
            .collect();
        Ok(settle!(self.inner, |core| {
            let shown = core.surface(&memories).await;
            Ok(shown
                .into_iter()
                .map(super::recall::SurfacedOut::from)
                .collect::<Vec<_>>())
        }))
    }

    /// Team sync for this memory's `team/`, over the same filesystem, clock and telemetry. Its
    /// pulls are writes of this memdir: refused in `off`/`read-only` mode and made under the
    /// directory lock, so they never interleave with a save. Options: `baseUrl`, `repo`,
    /// `transport`; optional `headers`, `timeoutMs`.
    ///
    /// ```js
    /// const sync = memdir.teamSync({ baseUrl, repo: "acme/app", transport: fetchTransport() });
    /// await sync.pull();
    /// ```
    #[wasm_bindgen(js_name = teamSync)]
    pub fn team_sync(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "Omit<TeamSyncOptions, \"fs\" | \"dir\" | \"telemetry\" | \"now\">"
        )]
        options: JsValue,
    ) -> Result<super::sync::TeamSync, JsValue> {
        super::sync::TeamSync::for_memdir(self.inner.clone(), options)
    }

    /// Every memory file's header, newest first, at most 200.
    ///
    /// ```js
    /// for (const h of await memdir.scan()) console.log(h.filename, h.description);
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<MemoryHeader[]>")]
    pub fn scan(&self) -> Promise {
        settle!(self.inner, |core| { core.scan().await })
    }

    /// The newest `limit` memory headers (default 200, at most 100,000) and how many memory
    /// files there are in all, so a listing can say what it left out.
    ///
    /// ```js
    /// const { headers, total } = await memdir.scanPage({ limit: 1000 });
    /// if (total > headers.length) console.log(`… ${total - headers.length} more`);
    /// ```
    #[wasm_bindgen(js_name = scanPage, unchecked_return_type = "Promise<ScanPage>")]
    pub fn scan_page(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "{ limit?: number }")] options: JsValue,
    ) -> Result<Promise, JsValue> {
        let options: super::inputs::ScanOptions = from_js(options)?;
        Ok(settle!(self.inner, |core| {
            core.scan_page(options.limit).await
        }))
    }

    /// The manifest of the scan: one `- [type] file (ISO time): description` line per memory.
    ///
    /// ```js
    /// const manifest = await memdir.manifest();
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<string>")]
    pub fn manifest(&self) -> Promise {
        let inner = self.inner.clone();
        // The text as a string, not through the JSON route (no escaping, no `JSON.parse`).
        promise(async move { throw(inner.manifest().await).map(|text| JsValue::from_str(&text)) })
    }

    /// MEMORY.md as the model gets it: frontmatter and block comments stripped, caps applied.
    ///
    /// ```js
    /// const { content, wasLineTruncated } = await memdir.readIndex();
    /// ```
    #[wasm_bindgen(js_name = readIndex, unchecked_return_type = "Promise<IndexView>")]
    pub fn read_index(&self) -> Promise {
        // The view is built directly (the content decoded once), not written as JSON and parsed.
        let core = self.inner.clone();
        promise(async move {
            let v = throw(core.read_index().await)?;
            Ok(index_view(
                &v.path,
                v.exists,
                &v.content,
                v.line_count as f64,
                v.byte_count as f64,
                v.was_line_truncated,
                v.was_byte_truncated,
            ))
        })
    }

    /// Save a memory: its file and its MEMORY.md entry, atomically, under the directory lock.
    ///
    /// ```js
    /// const out = await memdir.save({ name: "Testing", description: "Use the real DB", type: "feedback", body: "…" });
    /// if (out.status === "saved" && out.indexWarning) console.warn("MEMORY.md is over its caps");
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<SaveOutcome>")]
    pub fn save(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SaveInput")] input: JsValue,
    ) -> Result<Promise, JsValue> {
        let input: SaveInput = from_js(input)?;
        Ok(settle!(self.inner, |core| { core.save(input).await }))
    }

    /// Change a memory's fields or body; its index entry follows.
    ///
    /// ```js
    /// await memdir.update("feedback_testing.md", { description: "Integration tests hit the real DB" });
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<SaveOutcome>")]
    pub fn update(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] file: JsValue,
        #[wasm_bindgen(unchecked_param_type = "MemoryChanges")] changes: JsValue,
    ) -> Result<Promise, JsValue> {
        let file = text_arg(file, "file", "update")?.text;
        let changes: MemoryChanges = from_js(changes)?;
        Ok(settle!(self.inner, |core| {
            core.update(&file, changes).await
        }))
    }

    /// Delete a memory file and its index entry.
    ///
    /// ```js
    /// await memdir.delete("feedback_testing.md");
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<SaveOutcome>")]
    pub fn delete(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] file: JsValue,
    ) -> Result<Promise, JsValue> {
        let file = text_arg(file, "file", "delete")?.text;
        Ok(settle!(self.inner, |core| { core.delete(&file).await }))
    }

    /// The index entries (private and team) and whether each file exists.
    ///
    /// ```js
    /// for (const m of await memdir.list()) console.log(m.entry.title, m.exists);
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<ListedMemory[]>")]
    pub fn list(&self) -> Promise {
        settle!(self.inner, |core| { core.list().await })
    }

    /// Append to today's daily log `logs/YYYY/MM/YYYY-MM-DD.md` (local date of `date`, default
    /// now); resolves to the log's path.
    ///
    /// ```js
    /// await memdir.appendLog("- 14:02 user prefers pnpm\n");
    /// ```
    #[wasm_bindgen(js_name = appendLog, unchecked_return_type = "Promise<string>")]
    pub fn append_log(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "Date")] date: Option<JsValue>,
    ) -> Result<Promise, JsValue> {
        let text = text_arg(text, "text", "appendLog")?.text;
        let now = crate::Clock::now_ms(self.inner.clock());
        let local = local_date(date, now)?;
        Ok(settle!(self.inner, |core| {
            core.append_log(&text, local).await
        }))
    }
}

#[wasm_bindgen(
    inline_js = "export function indexView(path, exists, content, lineCount, byteCount, wasLineTruncated, wasByteTruncated) { return { path, exists, content, lineCount, byteCount, wasLineTruncated, wasByteTruncated }; }"
)]
extern "C" {
    /// The `IndexView` object `readIndex` resolves to (`store::IndexView`'s fields, in order).
    #[wasm_bindgen(js_name = indexView)]
    fn index_view(
        path: &str,
        exists: bool,
        content: &str,
        line_count: f64,
        byte_count: f64,
        was_line_truncated: bool,
        was_byte_truncated: bool,
    ) -> JsValue;
}
