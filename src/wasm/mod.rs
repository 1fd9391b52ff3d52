//! The JS boundary (wasm32 only). Converts and adapts; holds no logic.
