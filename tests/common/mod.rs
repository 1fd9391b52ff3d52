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

pub mod fs;
pub mod llm;
pub mod std_fs;
pub mod telemetry;
pub mod win_fs;

pub use fs::{Op, Tap, Watch};
pub use llm::{Script, ScriptedLlm};
pub use memdir::future::block_on;
pub use telemetry::{Event, Fields, Recorder};

/// What [`TestClock::sleep`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sleep {
    /// Completes at once and moves the time forward by the sleep.
    Advance,
    /// Completes at once; time stands still.
    Instant,
    /// Yields once (so a waiting writer lets the holder run) while time stands still: the
    /// timers that bound host calls and lock waits race every pending call, and a clock that
    /// jumped ahead on each of them would time out calls that are merely interleaved.
    Yield,
    /// Never completes (so no timeout ever fires).
    Never,
}

/// A clock whose time is set by the test; [`TestClock::new`]'s `sleep` completes at once and
/// advances time, the other constructors pick another [`Sleep`].
pub struct TestClock {
    pub now: Cell<f64>,
    pub sleep: Sleep,
}

impl TestClock {
    pub fn new(now_ms: f64) -> Self {
        Self::sleeping(now_ms, Sleep::Advance)
    }

    /// Time stands still; `sleep` completes at once.
    pub fn instant(now_ms: f64) -> Self {
        Self::sleeping(now_ms, Sleep::Instant)
    }

    /// Time stands still; `sleep` yields once.
    pub fn yielding(now_ms: f64) -> Self {
        Self::sleeping(now_ms, Sleep::Yield)
    }

    /// Time stands still; `sleep` never ends.
    pub fn frozen(now_ms: f64) -> Self {
        Self::sleeping(now_ms, Sleep::Never)
    }

    pub fn sleeping(now_ms: f64, sleep: Sleep) -> Self {
        TestClock {
            now: Cell::new(now_ms),
            sleep,
        }
    }
}

impl Clock for TestClock {
    fn now_ms(&self) -> f64 {
        self.now.get()
    }
    async fn sleep(&self, ms: u32) {
        match self.sleep {
            Sleep::Advance => self.now.set(self.now.get() + f64::from(ms)),
            Sleep::Instant => {}
            Sleep::Yield => YieldOnce(false).await,
            Sleep::Never => std::future::pending().await,
        }
    }
}

/// The system clock, with a sleep that blocks the thread (for multi-threaded tests).
pub struct RealClock;

impl Clock for RealClock {
    fn now_ms(&self) -> f64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
            * 1000.0
    }
    async fn sleep(&self, ms: u32) {
        std::thread::sleep(std::time::Duration::from_millis(u64::from(ms)));
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

/// xorshift64 (shifts 13, 7, 17): the generator of the corpus and equivalence tests, whose
/// samples (and so whose seeds) are tuned to its sequence. The state must not be zero.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
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
