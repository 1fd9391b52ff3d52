//! Tiny executor-free future helpers: the core needs to race a host call against a timeout and an
//! abort without pulling in an async runtime.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Which of two raced futures finished first.
#[derive(Debug, PartialEq, Eq)]
pub enum Either<A, B> {
    /// The first one.
    Left(A),
    /// The second one.
    Right(B),
}

/// Poll both futures; resolve with whichever finishes first (the first one wins a tie). The
/// loser is dropped, which cancels it.
///
/// ```
/// use memdir::future::{race, block_on, Either};
/// let out = block_on(race(async { 1 }, std::future::pending::<()>()));
/// assert_eq!(out, Either::Left(1));
/// ```
pub async fn race<A: Future, B: Future>(a: A, b: B) -> Either<A::Output, B::Output> {
    let mut a = Box::pin(a);
    let mut b = Box::pin(b);
    std::future::poll_fn(move |cx| {
        if let Poll::Ready(v) = a.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(v));
        }
        if let Poll::Ready(v) = b.as_mut().poll(cx) {
            return Poll::Ready(Either::Right(v));
        }
        Poll::Pending
    })
    .await
}

/// Run two futures to completion, concurrently: both outputs.
///
/// ```
/// use memdir::future::{block_on, join};
/// assert_eq!(block_on(join(async { 1 }, async { "two" })), (1, "two"));
/// ```
pub async fn join<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (Box::pin(a), Box::pin(b));
    let (mut out_a, mut out_b) = (None, None);
    std::future::poll_fn(move |cx| {
        if out_a.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                out_a = Some(v);
            }
        }
        if out_b.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                out_b = Some(v);
            }
        }
        match (out_a.take(), out_b.take()) {
            (Some(x), Some(y)) => Poll::Ready((x, y)),
            (x, y) => {
                out_a = x;
                out_b = y;
                Poll::Pending
            }
        }
    })
    .await
}

/// A future being joined and, once it finished, its output.
type Slot<F> = (Pin<Box<F>>, Option<<F as Future>::Output>);

/// Run every future to completion, concurrently, keeping input order in the output.
///
/// ```
/// use memdir::future::{block_on, join_all};
/// let ready = |n: u32| std::future::ready(n);
/// assert_eq!(block_on(join_all(vec![ready(1), ready(2)])), [1, 2]);
/// ```
pub async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    join_filter(futures, Some).await
}

/// [`join_all`] over futures that may give nothing: the outputs that are `Some`, in input order.
pub(crate) async fn join_some<T, F: Future<Output = Option<T>>>(futures: Vec<F>) -> Vec<T> {
    join_filter(futures, |out| out).await
}

/// Run every future to completion, concurrently; keep what `keep` makes of each output, in
/// input order.
async fn join_filter<F: Future, T>(
    futures: Vec<F>,
    keep: impl Fn(F::Output) -> Option<T>,
) -> Vec<T> {
    let mut slots: Vec<Slot<F>> = futures.into_iter().map(|f| (Box::pin(f), None)).collect();
    std::future::poll_fn(move |cx| {
        let mut pending = false;
        for (fut, out) in slots.iter_mut() {
            if out.is_none() {
                match fut.as_mut().poll(cx) {
                    Poll::Ready(v) => *out = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(
                slots
                    .iter_mut()
                    .filter_map(|(_, out)| out.take().and_then(&keep))
                    .collect::<Vec<_>>(),
            )
        }
    })
    .await
}

fn noop_waker() -> Waker {
    Waker::noop().clone()
}

/// Drive a future whose host calls complete synchronously (such as [`crate::MemFs`]) to the end,
/// by polling in a loop. Not a general executor: a future that waits on a real timer or I/O
/// spins. Meant for native tests and synchronous Rust hosts.
///
/// ```
/// assert_eq!(memdir::future::block_on(async { 2 + 2 }), 4);
/// ```
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = Box::pin(fut);
    let waker = noop_waker();
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}
