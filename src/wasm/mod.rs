//! The JS boundary (wasm32 only). It converts values and adapts JS host objects to the core's
//! traits; every decision is made in the core.

/// The body every exported async method shares: `$core` is the method's own handle on
/// `$owner` (an `Rc`, cloned: nothing is borrowed across an `await`, so JS may call back in
/// while the Promise is pending), `$body` the core call, and the Promise settles with its
/// serialized result or rejects with a `MemdirError`. A macro rather than a generic function:
/// the method's future is the one state machine, not one wrapped in another.
///
/// ```ignore
/// settle!(self.inner, |core| { core.save(input).await })
/// ```
macro_rules! settle {
    ($owner:expr, |$core:ident| $body:block) => {{
        let $core = $owner.clone();
        $crate::wasm::promise(async move { $crate::wasm::to_settled($body) })
    }};
}

pub mod convert;
pub mod embed;
pub mod error;
pub mod fields;
pub mod frontmatter;
pub mod host;
mod inputs;
pub mod lifecycle;
pub mod memdir;
pub mod pure;
pub mod recall;
mod settle;
#[doc(hidden)]
pub use settle::slots_in_use as settle_slots_in_use;
pub mod sync;
pub mod tasks;
mod ts;
mod watch;

use host::{JsClock, JsFs, JsLlm, JsTelemetry};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The core's `Memdir` over JS host objects.
pub(crate) type Core = crate::Memdir<JsFs, JsClock, JsLlm, JsTelemetry, embed::JsEmbedder>;

/// A core result as the value a Promise settles with: its serialized value, or a
/// `MemdirError` to reject with.
pub(crate) fn to_settled<T: Serialize>(result: crate::Result<T>) -> Result<JsValue, JsValue> {
    convert::to_js(&error::throw(result)?)
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

/// A Promise driving `future`. One non-generic spawn for every call site (each generic
/// instantiation would copy its state machine into the module); [`tasks`] turns a trap into
/// an `INSTANCE_LOST` rejection instead of a Promise that never settles.
#[inline(never)]
pub(crate) fn spawn_promise(
    future: std::pin::Pin<Box<dyn std::future::Future<Output = Result<JsValue, JsValue>>>>,
) -> js_sys::Promise {
    tasks::spawn(future)
}

/// [`spawn_promise`] for any future: only the boxing is generic. The `Memdir` methods end
/// their futures with [`to_settled`], so no future is wrapped per result type.
pub(crate) fn promise(
    future: impl std::future::Future<Output = Result<JsValue, JsValue>> + 'static,
) -> js_sys::Promise {
    spawn_promise(Box::pin(future))
}

/// Runs once when the module is instantiated: report panics on the console before the instance
/// aborts (a panic is a bug; none is reachable from input).
#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!("memdir: internal error (please report): {info}"));
    }));
}

/// The library version.
///
/// ```js
/// import { version } from "memdir";
/// console.log(version()); // "0.1.0"
/// ```
#[wasm_bindgen(unchecked_return_type = "string")]
pub fn version() -> JsValue {
    JsValue::from_str(env!("CARGO_PKG_VERSION"))
}
