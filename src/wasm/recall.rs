//! Recall across the boundary: `Memdir.findRelevant`, `Memdir.surface`, and the turn-loop
//! helpers `shouldRecall` and `RecallSession`.

use super::convert::to_js;
use super::inputs::{list_from_js, ShownMemory};
use crate::recall::{render_surfaced, SessionBudget, SurfacedMemory};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A surfaced memory plus its rendered `<system-reminder>` text.
#[derive(Serialize)]
pub(crate) struct SurfacedOut {
    #[serde(flatten)]
    memory: SurfacedMemory,
    text: String,
}

impl From<SurfacedMemory> for SurfacedOut {
    fn from(memory: SurfacedMemory) -> Self {
        let text = render_surfaced(&memory);
        SurfacedOut { memory, text }
    }
}

/// Whether a user prompt should trigger recall: not for a single word.
///
/// ```js
/// shouldRecall("tests");                    // false
/// shouldRecall("how do we run the tests?"); // true
/// ```
#[wasm_bindgen(js_name = shouldRecall)]
pub fn should_recall(
    #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
) -> Result<bool, JsValue> {
    let query = super::inputs::text_arg(query, "query", "shouldRecall")?;
    Ok(crate::recall::should_recall(&query.text))
}

/// What one session has surfaced: recall stops once 61,440 UTF-16 units were shown, and a
/// memory already shown is not shown again.
///
/// ```js
/// const session = new RecallSession();
/// if (shouldRecall(prompt) && !session.exhausted) {
///   const { memories } = await memdir.findRelevant(prompt, { alreadySurfaced: session.surfacedPaths });
///   session.record(await memdir.surface(memories));
/// }
/// ```
#[wasm_bindgen]
#[derive(Default)]
pub struct RecallSession {
    budget: SessionBudget,
}

#[wasm_bindgen]
impl RecallSession {
    /// An empty session.
    #[wasm_bindgen(constructor)]
    pub fn new() -> RecallSession {
        RecallSession::default()
    }

    /// Count memories shown to the model (the objects `surface` returned).
    pub fn record(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "{ path: string; content: string }[]")]
        memories: JsValue,
    ) -> Result<(), JsValue> {
        let shown: Vec<ShownMemory> = list_from_js(memories)?;
        for ShownMemory { path, content } in shown {
            self.budget.record(&SurfacedMemory {
                path,
                content,
                mtime_ms: 0.0,
                header: String::new(),
                limit: None,
            });
        }
        Ok(())
    }

    /// UTF-16 units surfaced so far.
    #[wasm_bindgen(getter, js_name = usedUnits)]
    pub fn used_units(&self) -> f64 {
        self.budget.used_units() as f64
    }

    /// True once the session budget is spent: skip recall for the rest of the session.
    #[wasm_bindgen(getter)]
    pub fn exhausted(&self) -> bool {
        self.budget.is_exhausted()
    }

    /// Absolute paths surfaced so far (pass as `alreadySurfaced`).
    #[wasm_bindgen(getter, js_name = surfacedPaths, unchecked_return_type = "string[]")]
    pub fn surfaced_paths(&self) -> Result<JsValue, JsValue> {
        to_js(self.budget.surfaced_paths())
    }

    /// Forget everything (after the conversation is compacted).
    pub fn reset(&mut self) {
        self.budget.reset();
    }
}
