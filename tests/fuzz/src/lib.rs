//! memdir fuzz harness: the invariant checks each cargo-fuzz target runs (see `checks`).
#[path = "checks.rs"]
pub mod checks;

/// The clock the checks' timing uses: this thread's CPU time, so that other processes on a busy
/// machine do not make a linear parser look slow.
pub mod cpu_time {
    use std::time::Duration;

    /// CPU time this thread has used (zero if the clock cannot be read).
    pub fn now() -> Duration {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        if rc != 0 {
            return Duration::ZERO;
        }
        Duration::new(
            u64::try_from(ts.tv_sec).unwrap_or(0),
            u32::try_from(ts.tv_nsec).unwrap_or(0),
        )
    }
}
