//! Awaiting a host's Promise, and a timer, without making a closure for each.
//!
//! `wasm_bindgen_futures::JsFuture` makes two closures per Promise awaited (each a boxed
//! function in the module, a JS wrapper and a finalizer registration) and a gloo timer one
//! per timer; a `readIndex()` over an async host awaits three Promises and sets a timer.
//! Here one closure, made once, is called with a slot number: the Promise's outcome (or the
//! timer's firing) is put in the slot and its task woken. A future dropped before its Promise
//! settles leaves its slot to be freed when it does; a dropped timer is cleared.
//!
//! ```text
//! let value = Settled::of(&promise).await?; // as JsFuture::from(Promise::resolve(&promise))
//! Settled::timer(250).await;                // a setTimeout of 250 ms
//! ```

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
export function settleInto(value, slot, settled) {
  try {
    Promise.resolve(value).then((v) => settled(slot, true, v), (e) => settled(slot, false, e));
  } catch (e) {
    Promise.reject(e).catch((e) => settled(slot, false, e));
  }
}
export function timerInto(ms, slot, settled) {
  return setTimeout(() => settled(slot, true, undefined), ms);
}
export function clearTimer(handle) {
  clearTimeout(handle);
}
"#)]
extern "C" {
    /// Call `settled(slot, ok, value)` once `value` (a Promise, a thenable or any value) settles.
    #[wasm_bindgen(js_name = settleInto)]
    fn settle_into(value: &JsValue, slot: u32, settled: &Closure<dyn FnMut(u32, bool, JsValue)>);
    /// Call `settled(slot, true, undefined)` after `ms` milliseconds; the timer's handle.
    #[wasm_bindgen(js_name = timerInto)]
    fn timer_into(ms: u32, slot: u32, settled: &Closure<dyn FnMut(u32, bool, JsValue)>) -> JsValue;
    /// `clearTimeout(handle)`.
    #[wasm_bindgen(js_name = clearTimer)]
    fn clear_timer(handle: &JsValue);
}

/// What a slot holds.
enum Slot {
    /// Free for the next await.
    Free,
    /// Awaited: the waker of the last poll.
    Waiting(Option<Waker>),
    /// Settled, not yet taken.
    Done(Result<JsValue, JsValue>),
    /// Its future was dropped first: freed when the Promise settles.
    Abandoned,
}

/// The slots and the free ones among them.
struct Slots {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl Slots {
    fn take(&mut self) -> u32 {
        if let Some(id) = self.free.pop() {
            if let Some(slot) = self.slots.get_mut(id as usize) {
                *slot = Slot::Waiting(None);
            }
            return id;
        }
        self.slots.push(Slot::Waiting(None));
        (self.slots.len() - 1) as u32
    }

    fn release(&mut self, id: u32) {
        if let Some(slot) = self.slots.get_mut(id as usize) {
            *slot = Slot::Free;
            self.free.push(id);
        }
    }
}

thread_local! {
    static SLOTS: RefCell<Slots> = const { RefCell::new(Slots { slots: Vec::new(), free: Vec::new() }) };
    /// The one closure every settlement calls.
    static SETTLED: Closure<dyn FnMut(u32, bool, JsValue)> = Closure::new(settled);
}

/// A Promise or timer of `slot` settled: keep the outcome and wake its task (or free the slot
/// when nobody waits any more).
fn settled(slot: u32, ok: bool, value: JsValue) {
    let waker = SLOTS.with_borrow_mut(|s| {
        let state = s.slots.get_mut(slot as usize)?;
        match std::mem::replace(state, Slot::Free) {
            Slot::Waiting(waker) => {
                *state = Slot::Done(if ok { Ok(value) } else { Err(value) });
                waker
            }
            Slot::Abandoned => {
                s.release(slot);
                None
            }
            // A second settlement (a misbehaving thenable): keep what was there.
            other => {
                *state = other;
                None
            }
        }
    });
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// The outcome of a Promise (or a timer) that settles through [`SETTLED`].
pub(super) struct Settled {
    slot: u32,
    /// The timer's handle, cleared if the future is dropped first.
    timer: Option<JsValue>,
    taken: bool,
}

impl Settled {
    /// Await `value`: a Promise or thenable settles as it does; any other value at once.
    pub(super) fn of(value: &JsValue) -> Settled {
        let slot = SLOTS.with_borrow_mut(Slots::take);
        SETTLED.with(|settled| settle_into(value, slot, settled));
        Settled {
            slot,
            timer: None,
            taken: false,
        }
    }

    /// Ready after `ms` milliseconds (a `setTimeout`).
    pub(super) fn timer(ms: u32) -> Settled {
        let slot = SLOTS.with_borrow_mut(Slots::take);
        let handle = SETTLED.with(|settled| timer_into(ms, slot, settled));
        Settled {
            slot,
            timer: Some(handle),
            taken: false,
        }
    }
}

impl Future for Settled {
    type Output = Result<JsValue, JsValue>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Polled again after its outcome was taken: the slot may be another future's by now.
        if self.taken {
            return Poll::Ready(Err(JsValue::UNDEFINED));
        }
        let slot = self.slot;
        let out = SLOTS.with_borrow_mut(|s| {
            let state = s.slots.get_mut(slot as usize)?;
            match state {
                Slot::Done(_) => match std::mem::replace(state, Slot::Free) {
                    Slot::Done(result) => {
                        s.release(slot);
                        Some(Poll::Ready(result))
                    }
                    _ => None,
                },
                Slot::Waiting(waker) => {
                    *waker = Some(cx.waker().clone());
                    Some(Poll::Pending)
                }
                Slot::Free | Slot::Abandoned => None,
            }
        });
        match out {
            Some(Poll::Ready(result)) => {
                self.taken = true;
                Poll::Ready(result)
            }
            Some(Poll::Pending) => Poll::Pending,
            // Not reached: a slot is only freed by its future or after it was abandoned.
            None => {
                self.taken = true;
                Poll::Ready(Err(JsValue::UNDEFINED))
            }
        }
    }
}

impl Drop for Settled {
    fn drop(&mut self) {
        if self.taken {
            return;
        }
        if let Some(handle) = &self.timer {
            // A cleared timer never fires: its slot is free at once.
            clear_timer(handle);
            SLOTS.with_borrow_mut(|s| s.release(self.slot));
            return;
        }
        SLOTS.with_borrow_mut(|s| {
            let Some(state) = s.slots.get_mut(self.slot as usize) else {
                return;
            };
            match state {
                Slot::Waiting(_) => *state = Slot::Abandoned,
                Slot::Done(_) => s.release(self.slot),
                Slot::Free | Slot::Abandoned => {}
            }
        });
    }
}
