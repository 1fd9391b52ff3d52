//! [`AbortFlag`]: a caller's "stop" that an async operation can await.
//!
//! The wasm boundary creates one per call and sets it from an `AbortSignal`'s `abort` event;
//! Rust hosts set it themselves. Single-threaded, like the rest of the core.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct State {
    aborted: Cell<bool>,
    wakers: RefCell<Vec<Waker>>,
}

/// A shared cancellation flag. Clones share the flag; [`AbortFlag::abort`] wakes every waiter.
///
/// ```
/// use memdir::recall::AbortFlag;
/// use memdir::future::{block_on, race, Either};
/// let flag = AbortFlag::new();
/// flag.clone().abort();
/// assert!(flag.is_aborted());
/// let out = block_on(race(std::future::pending::<()>(), flag.aborted()));
/// assert_eq!(out, Either::Right(()));
/// ```
#[derive(Clone, Default)]
pub struct AbortFlag {
    state: Rc<State>,
}

impl AbortFlag {
    /// A flag that is not set.
    pub fn new() -> Self {
        AbortFlag::default()
    }

    /// Set the flag (idempotent) and wake everything awaiting [`AbortFlag::aborted`].
    pub fn abort(&self) {
        self.state.aborted.set(true);
        let wakers = std::mem::take(&mut *self.state.wakers.borrow_mut());
        for waker in wakers {
            waker.wake();
        }
    }

    /// True once [`AbortFlag::abort`] was called on this flag or a clone.
    pub fn is_aborted(&self) -> bool {
        self.state.aborted.get()
    }

    /// A future that resolves when the flag is set (at once if it already is).
    pub fn aborted(&self) -> Aborted {
        Aborted {
            state: Rc::clone(&self.state),
        }
    }
}

impl std::fmt::Debug for AbortFlag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AbortFlag")
            .field("aborted", &self.is_aborted())
            .finish()
    }
}

/// The future of [`AbortFlag::aborted`].
pub struct Aborted {
    state: Rc<State>,
}

impl Future for Aborted {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.state.aborted.get() {
            return Poll::Ready(());
        }
        let mut wakers = self.state.wakers.borrow_mut();
        if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
            wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct Counter(AtomicUsize);
    impl Wake for Counter {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn pending_until_aborted_then_wakes() {
        let flag = AbortFlag::new();
        let counter = Arc::new(Counter(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&counter));
        let mut cx = Context::from_waker(&waker);
        let mut fut = Box::pin(flag.aborted());
        assert_eq!(fut.as_mut().poll(&mut cx), Poll::Pending);
        assert_eq!(fut.as_mut().poll(&mut cx), Poll::Pending);
        assert!(!flag.is_aborted());
        flag.abort();
        assert_eq!(counter.0.load(Ordering::SeqCst), 1);
        assert_eq!(fut.as_mut().poll(&mut cx), Poll::Ready(()));
        flag.abort();
        assert!(flag.is_aborted());
    }
}
