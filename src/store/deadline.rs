//! Bounding host calls in time, so a filesystem call that never settles cannot hang an
//! operation (or keep the directory lock) forever.
//!
//! Every host call the store makes on the write path goes through [`Store::bounded`]: it is
//! raced against [`Clock::sleep`] for [`super::StoreConfig::host_call_timeout_ms`] and, if the
//! host has not answered by then, fails with a host error coded `ETIMEDOUT` (the store reports
//! it as [`Code::Timeout`]). The lock wait is raced against `lock_timeout_ms` the same way.
//! Features with a deadline and an abort of their own (recall) use [`Store::with_deadline`].
//!
//! A call is polled once before any timer is made, so a host that answers synchronously (the
//! `sync` node filesystem, [`crate::MemFs`]) pays nothing. When the timer fires, the deadline is
//! checked against [`Clock::now_ms`]: a clock whose `sleep` returns early does not cut a call
//! short. A host call that timed out is dropped, not undone: its effect may still land later.

use super::Store;
use crate::error::{Code, Error, HostError};
use crate::future::{race, Either};
use crate::host::{Clock, FileSystem, HostResult, Telemetry};
use std::future::Future;
use std::pin::{pin, Pin};
use std::task::{Context, Poll};

/// The host error code [`Store::bounded`] gives a call that did not answer in time.
pub const TIMED_OUT: &str = "ETIMEDOUT";

/// Why [`Store::with_deadline`] stopped waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The deadline passed.
    TimedOut,
    /// The `stop` future resolved (the caller aborted).
    Aborted,
}

/// Poll a future once: its output if it is ready at once.
async fn poll_once<F: Future + ?Sized>(mut fut: Pin<&mut F>) -> Option<F::Output> {
    std::future::poll_fn(|cx| match fut.as_mut().poll(cx) {
        Poll::Ready(v) => Poll::Ready(Some(v)),
        Poll::Pending => Poll::Ready(None),
    })
    .await
}

/// Pending once (waking itself), then ready: lets other futures of the same task run.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// The longest single timer (setTimeout's limit; longer delays fire at once).
const MAX_TIMER_MS: f64 = 2_147_483_647.0;

/// Whole milliseconds left until `deadline`, rounded up; `None` once it has passed.
fn remaining_ms(deadline: f64, now: f64) -> Option<u32> {
    let left = deadline - now;
    if left.is_nan() || left <= 0.0 {
        return None;
    }
    // JS timers fire at once past 2^31 - 1 ms: wait at most that long at a time.
    Some(left.ceil().min(MAX_TIMER_MS) as u32)
}

/// The error a store operation reports for a host call that timed out (`TIMEOUT`), or any
/// other host failure (`HOST_FS`), as `<action> <path>: <cause>`.
pub(crate) fn fs_error(action: &str, path: &str, cause: HostError) -> Error {
    if cause.has_code(TIMED_OUT) {
        Error::host(Code::Timeout, format_args!("{action} {path}"), cause)
    } else {
        Error::fs(action, path, cause)
    }
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Run `fut` until the clock reaches `deadline_ms` (milliseconds since the epoch, as
    /// [`Clock::now_ms`] tells it) or `stop` resolves, whichever comes first. The future is
    /// dropped (cancelled) when cut.
    ///
    /// Recall uses it around its scan and file reads: a host filesystem that never answers then
    /// ends in the recall timeout or the caller's abort instead of hanging.
    ///
    /// ```
    /// use memdir::store::{deadline::Cut, Store, StoreConfig, WriteMode};
    /// use memdir::{future::block_on, MemFs, NoTelemetry};
    /// # struct Clock0(std::cell::Cell<f64>);
    /// # impl memdir::Clock for Clock0 {
    /// #     fn now_ms(&self) -> f64 { self.0.get() }
    /// #     async fn sleep(&self, ms: u32) { self.0.set(self.0.get() + f64::from(ms)) }
    /// # }
    /// let store = Store::new(MemFs::new(), Clock0(0.0.into()), NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
    /// let never = std::future::pending::<()>();
    /// let out = block_on(store.with_deadline(1_000.0, std::future::pending(), never));
    /// assert_eq!(out, Err(Cut::TimedOut));
    /// let out = block_on(store.with_deadline(1_000.0, async {}, std::future::pending::<()>()));
    /// assert_eq!(out, Err(Cut::Aborted));
    /// assert_eq!(block_on(store.with_deadline(1_000.0, std::future::pending(), async { 7 })), Ok(7));
    /// ```
    pub async fn with_deadline<R>(
        &self,
        deadline_ms: f64,
        stop: impl Future<Output = ()>,
        fut: impl Future<Output = R>,
    ) -> Result<R, Cut> {
        self.deadline_dyn(deadline_ms, pin!(stop), pin!(fut)).await
    }

    /// [`Store::with_deadline`] over type-erased futures (compiled once per output type).
    async fn deadline_dyn<R>(
        &self,
        deadline_ms: f64,
        stop: Pin<&mut dyn Future<Output = ()>>,
        fut: Pin<&mut dyn Future<Output = R>>,
    ) -> Result<R, Cut> {
        let mut out = None;
        let cut = {
            let body = pin!(async {
                out = Some(fut.await);
            });
            self.wait_until(deadline_ms, stop, body).await
        };
        match (out, cut) {
            (Some(v), _) => Ok(v),
            (None, Some(cut)) => Err(cut),
            // Not reached: `wait_until` returns `None` only once the body has run.
            (None, None) => Err(Cut::TimedOut),
        }
    }

    /// The one (type-erased, so compiled once) loop behind [`Store::with_deadline`]: `None`
    /// when `body` finished, else why it was cut.
    async fn wait_until(
        &self,
        deadline_ms: f64,
        mut stop: Pin<&mut dyn Future<Output = ()>>,
        mut body: Pin<&mut dyn Future<Output = ()>>,
    ) -> Option<Cut> {
        if poll_once(body.as_mut()).await.is_some() {
            return None;
        }
        loop {
            // An abort that already happened wins over a deadline that passed.
            if poll_once(stop.as_mut()).await.is_some() {
                return Some(Cut::Aborted);
            }
            let Some(ms) = remaining_ms(deadline_ms, self.clock.now_ms()) else {
                return Some(Cut::TimedOut);
            };
            match race(body.as_mut(), race(stop.as_mut(), self.clock.sleep(ms))).await {
                Either::Left(()) => return None,
                Either::Right(Either::Left(())) => return Some(Cut::Aborted),
                Either::Right(Either::Right(())) => {
                    if remaining_ms(deadline_ms, self.clock.now_ms()).is_none() {
                        return Some(Cut::TimedOut);
                    }
                    // The timer fired early: let the rest of the task run, then wait again.
                    YieldNow(false).await;
                }
            }
        }
    }

    /// A host call bounded by `host_call_timeout_ms` (0: unbounded): a call that has not
    /// answered by then fails with a host error coded [`TIMED_OUT`]. (Boxed so the waiting
    /// code is compiled once per output type, not once per call site.)
    pub(crate) fn bounded<'a, R: 'a>(
        &'a self,
        call: impl Future<Output = HostResult<R>> + 'a,
    ) -> impl Future<Output = HostResult<R>> + 'a {
        self.bounded_dyn(f64::INFINITY, Box::pin(call))
    }

    /// A host call bounded by `host_call_timeout_ms` and by the absolute time `deadline`.
    pub(crate) fn bounded_until<'a, R: 'a>(
        &'a self,
        deadline: f64,
        call: impl Future<Output = HostResult<R>> + 'a,
    ) -> impl Future<Output = HostResult<R>> + 'a {
        self.bounded_dyn(deadline, Box::pin(call))
    }

    async fn bounded_dyn<'a, R>(
        &'a self,
        deadline: f64,
        call: Pin<Box<dyn Future<Output = HostResult<R>> + 'a>>,
    ) -> HostResult<R> {
        let ms = self.config.host_call_timeout_ms;
        let deadline = if ms == 0 {
            deadline
        } else {
            deadline.min(self.clock.now_ms() + f64::from(ms))
        };
        if deadline == f64::INFINITY {
            return call.await;
        }
        let mut out = None;
        {
            let body = pin!(async {
                out = Some(call.await);
            });
            let stop = pin!(std::future::pending::<()>());
            self.wait_until(deadline, stop, body).await;
        }
        out.unwrap_or_else(|| {
            Err(HostError::new(
                Some(TIMED_OUT),
                "the host filesystem did not answer in time",
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remaining_time_rounds_up_and_ends() {
        assert_eq!(remaining_ms(10.0, 9.5), Some(1));
        assert_eq!(remaining_ms(10.0, 10.0), None);
        assert_eq!(remaining_ms(f64::NAN, 0.0), None);
        assert_eq!(remaining_ms(f64::INFINITY, 0.0), Some(2_147_483_647));
    }
}
