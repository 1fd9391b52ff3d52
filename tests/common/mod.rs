//! Shared helpers for native integration tests.
#![allow(
    dead_code,
    unused_imports,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use memdir::host::Clock;
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

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

/// A small deterministic generator (xorshift64*), so property tests need no crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Completes on the second poll, so concurrent futures interleave.
pub struct YieldOnce(pub bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}
