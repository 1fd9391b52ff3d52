//! The host's optional `watch(dir, onChange, onLost)` adapted to [`FileSystem::watch`]
//! (`crate::host::FileSystem::watch`).
//!
//! The host calls `onChange(path?)` after each change below `dir` (`path` absolute or relative
//! to `dir`; omitted when unknown) and `onLost()` if the watch breaks, and returns (or resolves
//! to) a `close()`-able handle or a stop function. A thin JS wrapper drops every call made after
//! the watch is stopped, so a late event never reaches a freed Rust closure.

use super::error::host_error;
use crate::error::HostError;
use crate::host::{HostResult, HostWatch, WatchEvent, WatchListener};
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(inline_js = r#"
export async function startWatch(fs, dir, onChange, onLost) {
  let live = true;
  const change = (path) => {
    if (live) onChange(typeof path === "string" ? path : undefined);
  };
  const lost = () => {
    if (live) onLost();
  };
  const handle = await fs.watch(dir, change, lost);
  return () => {
    live = false;
    try {
      const r =
        typeof handle === "function" ? handle()
        : handle !== null && typeof handle === "object" && typeof handle.close === "function" ? handle.close()
        : undefined;
      if (r !== null && typeof r === "object" && typeof r.then === "function") r.then(undefined, () => {});
    } catch {
      // A stop that throws leaves nothing for us to undo.
    }
  };
}
"#)]
extern "C" {
    /// Start the host's watch; resolves to a function that stops it (and silences the wrapper).
    #[wasm_bindgen(js_name = startWatch)]
    fn start_watch(fs: &JsValue, dir: &str, on_change: &JsValue, on_lost: &JsValue) -> Promise;
}

/// `fs.watch(dir, …)` as a [`HostWatch`]; `unsupported` when the host has no `watch`.
pub(super) async fn watch(
    fs: &JsValue,
    dir: &str,
    listener: WatchListener,
) -> HostResult<HostWatch> {
    let has = js_sys::Reflect::get(fs, &JsValue::from_str("watch"))
        .map(|f| f.is_function())
        .unwrap_or(false);
    if !has {
        return Err(HostError::unsupported("watch"));
    }
    let changed = WatchListener::clone(&listener);
    let on_change = Closure::<dyn Fn(JsValue)>::new(move |path: JsValue| match path.as_string() {
        Some(path) => changed(WatchEvent::Changed(&path)),
        None => changed(WatchEvent::Unknown),
    });
    let on_lost = Closure::<dyn Fn()>::new(move || listener(WatchEvent::Lost));
    let stop = JsFuture::from(start_watch(fs, dir, on_change.as_ref(), on_lost.as_ref()))
        .await
        .map_err(host_error)?
        .dyn_into::<Function>()
        .map_err(|_| HostError::new(Some("EINVAL"), "the host's watch could not be stopped"))?;
    Ok(HostWatch::new(move || {
        let _ = stop.call0(&JsValue::UNDEFINED);
        // The wrapper no longer calls them: safe to free.
        drop(on_change);
        drop(on_lost);
    }))
}
