//! The JS boundary (wasm32 only). It converts values and adapts JS host objects to the core's
//! traits; every decision is made in the core.

pub mod convert;
pub mod error;
pub mod host;
pub mod lifecycle;
pub mod memdir;
pub mod pure;
pub mod recall;
pub mod sync;
mod ts;

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

/// Runs once when the module is instantiated: report panics on the console before the instance
/// aborts (a panic is a bug; none is reachable from input).
#[wasm_bindgen(start)]
pub fn start() {
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
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
