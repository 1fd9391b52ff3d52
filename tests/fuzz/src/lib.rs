//! memdir fuzz harness: the invariant checks each cargo-fuzz target runs (see `checks`).
#[path = "checks.rs"]
pub mod checks;
