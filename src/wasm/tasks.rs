//! The executor behind every Promise the module returns. It replaces
//! `wasm_bindgen_futures::future_to_promise` for one reason: a WebAssembly trap (running out of
//! memory, or a bug) inside a future's `poll` must not escape into the host's microtask queue,
//! where it crashes Node (`uncaughtException`) or, with a handler installed, leaves the
//! operation's Promise pending forever and its lock held.
//!
//! Here every poll runs inside a JS `try`: on a trap, the instance is marked lost (its stack
//! pointer and heap are no longer trustworthy), the Promise of every pending operation rejects
//! with a `MemdirError` coded `INSTANCE_LOST`, and every later operation rejects the same way at
//! once. Nothing runs in the instance after a trap.
//!
//! ```js
//! try { await memdir.save(input); }
//! catch (e) { if (e.code === "INSTANCE_LOST") { /* reload the module */ } }
//! ```

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
const pending = new Map();
let lost = null;
function lostError(cause) {
  const e = new Error("the WebAssembly instance trapped (" + (cause && cause.message) + ") and cannot be used again; load the module again");
  e.name = "MemdirError";
  e.code = "INSTANCE_LOST";
  e.cause = cause;
  return e;
}
export function track(id) {
  return new Promise((resolve, reject) => {
    if (lost) reject(lostError(lost));
    else pending.set(id, [resolve, reject]);
  });
}
export function finish(id, ok, value) {
  const p = pending.get(id);
  if (p) {
    pending.delete(id);
    p[ok ? 0 : 1](value);
  }
}
export function schedule(run) {
  queueMicrotask(() => {
    if (lost) return;
    try {
      run();
    } catch (e) {
      lost = e;
      for (const [, reject] of pending.values()) reject(lostError(e));
      pending.clear();
    }
  });
}
export function isLost() {
  return lost !== null;
}
"#)]
extern "C" {
    /// A Promise settled by [`finish`] with the same `id` (rejected at once when lost).
    fn track(id: u32) -> js_sys::Promise;
    /// Settle the Promise of `id`: resolve with `value` when `ok`, reject otherwise.
    fn finish(id: u32, ok: bool, value: JsValue);
    /// Call `run` in a microtask, inside a `try` that marks the instance lost on a throw.
    fn schedule(run: &Closure<dyn FnMut()>);
    /// Whether a trap has happened.
    #[wasm_bindgen(js_name = isLost)]
    fn is_lost() -> bool;
}

/// A spawned operation: its future, polled until it settles its Promise.
type Job = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

thread_local! {
    /// Jobs by id (the index): `None` is a free id, `Some(None)` a job being polled.
    static JOBS: RefCell<Vec<Option<Option<Job>>>> = const { RefCell::new(Vec::new()) };
    /// Ids woken since the last run, in order.
    static READY: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// A run is queued.
    static QUEUED: Cell<bool> = const { Cell::new(false) };
    /// The closure each microtask calls (made once).
    static RUN: Closure<dyn FnMut()> = Closure::new(run);
}

/// Wakes one job by id (an id is `Send`, so a std `Waker` can carry it).
struct JobWaker(u32);

impl Wake for JobWaker {
    fn wake(self: Arc<Self>) {
        ready(self.0);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        ready(self.0);
    }
}

/// Queue job `id` for the next run.
fn ready(id: u32) {
    READY.with_borrow_mut(|r| r.push(id));
    if !QUEUED.replace(true) {
        RUN.with(schedule);
    }
}

/// Poll every job woken so far (jobs woken meanwhile wait for the next microtask).
fn run() {
    QUEUED.set(false);
    let ids = READY.take();
    for id in ids {
        let Some(mut job) = JOBS.with_borrow_mut(|j| j.get_mut(id as usize)?.as_mut()?.take())
        else {
            continue;
        };
        let waker = Waker::from(Arc::new(JobWaker(id)));
        match job.as_mut().poll(&mut Context::from_waker(&waker)) {
            Poll::Ready(result) => {
                JOBS.with_borrow_mut(|j| j.get_mut(id as usize).map(Option::take));
                let ok = result.is_ok();
                finish(id, ok, result.unwrap_or_else(|e| e));
            }
            Poll::Pending => {
                JOBS.with_borrow_mut(|j| {
                    j.get_mut(id as usize).map(|slot| *slot = Some(Some(job)))
                });
            }
        }
    }
}

/// A Promise settled by `job`; it rejects with `INSTANCE_LOST` if the instance traps first
/// (and at once when it already has).
pub(crate) fn spawn(job: Job) -> js_sys::Promise {
    let id = JOBS.with_borrow_mut(|j| {
        let free = j.iter().position(Option::is_none).unwrap_or(j.len());
        match j.get_mut(free) {
            Some(slot) => *slot = Some(Some(job)),
            None => j.push(Some(Some(job))),
        }
        free as u32
    });
    let promise = track(id);
    if is_lost() {
        JOBS.with_borrow_mut(|j| j.get_mut(id as usize).map(Option::take));
    } else {
        ready(id);
    }
    promise
}

/// A future that yields once before it traps: the test hook for the trap path
/// (tests/js/trap.test.mjs). Nothing reaches it but that test.
///
/// ```js
/// await __trapInTask().catch((e) => e.code); // "INSTANCE_LOST"
/// ```
#[wasm_bindgen(js_name = __trapInTask, skip_typescript)]
pub fn trap_in_task() -> js_sys::Promise {
    spawn(Box::pin(async {
        let yielded = Cell::new(false);
        std::future::poll_fn(|cx| {
            if yielded.replace(true) {
                Poll::Ready(())
            } else {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await;
        std::process::abort()
    }))
}
