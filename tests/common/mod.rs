//! Shared helpers for native integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use memdir::host::Clock;
use std::cell::Cell;

pub use memdir::future::block_on;

/// A clock whose time is set by the test; `sleep` completes at once (and advances time).
pub struct TestClock {
    pub now: Cell<f64>,
}

impl TestClock {
    pub fn new(now_ms: f64) -> Self {
        TestClock {
            now: Cell::new(now_ms),
        }
    }
}

impl Clock for TestClock {
    fn now_ms(&self) -> f64 {
        self.now.get()
    }
    async fn sleep(&self, ms: u32) {
        self.now.set(self.now.get() + f64::from(ms));
    }
}
