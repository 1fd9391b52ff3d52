//! Awaiting a host's Promise, and a timer, without making a closure for each.
//!
//! `wasm_bindgen_futures::JsFuture` makes two closures per Promise awaited (each a boxed
//! function in the module, a JS wrapper and a finalizer registration) and a gloo timer one
//! per timer; a `readIndex()` over an async host awaits three Promises and sets a timer.
//! Here one closure, made once, is called with a slot number: the Promise's outcome (or the
//! timer's firing) is put in the slot and its task woken. A future dropped before its Promise
//! settles frees its slot at once (a Promise that never settles keeps none); the slot's
//! generation, passed along with its number, tells a late settlement from one for the next
//! await in that slot, which it leaves alone. A dropped timer is cleared.
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
export function settleInto(value, slot, generation, settled) {
  try {
    Promise.resolve(value).then(
      (v) => settled(slot, generation, true, v),
      (e) => settled(slot, generation, false, e),
    );
  } catch (e) {
    Promise.reject(e).catch((e) => settled(slot, generation, false, e));
  }
}
export function timerInto(ms, slot, generation, settled) {
  return setTimeout(() => settled(slot, generation, true, undefined), ms);
}
export function clearTimer(handle) {
  clearTimeout(handle);
}
"#)]
extern "C" {
    /// Call `settled(slot, generation, ok, value)` once `value` (a Promise, a thenable or any
    /// value) settles.
    #[wasm_bindgen(js_name = settleInto)]
    fn settle_into(value: &JsValue, slot: u32, generation: u32, settled: &OnSettled);
    /// Call `settled(slot, generation, true, undefined)` after `ms` milliseconds; the timer's
    /// handle.
    #[wasm_bindgen(js_name = timerInto)]
    fn timer_into(ms: u32, slot: u32, generation: u32, settled: &OnSettled) -> JsValue;
    /// `clearTimeout(handle)`.
    #[wasm_bindgen(js_name = clearTimer)]
    fn clear_timer(handle: &JsValue);
}

/// The one closure every settlement calls: `(slot, generation, ok, value)`.
type OnSettled = Closure<dyn FnMut(u32, u32, bool, JsValue)>;

/// What a slot holds.
enum Slot {
    /// Free for the next await.
    Free,
    /// Awaited: the waker of the last poll.
    Waiting(Option<Waker>),
    /// Settled, not yet taken.
    Done(Result<JsValue, JsValue>),
}

/// The slots (each with its generation, counted up each time it is freed) and the free ones
/// among them.
struct Slots {
    slots: Vec<(u32, Slot)>,
    free: Vec<u32>,
}

impl Slots {
    /// A free slot, now awaited: its number and generation.
    fn take(&mut self) -> (u32, u32) {
        if let Some(id) = self.free.pop() {
            if let Some((generation, slot)) = self.slots.get_mut(id as usize) {
                *slot = Slot::Waiting(None);
                return (id, *generation);
            }
        }
        self.slots.push((0, Slot::Waiting(None)));
        ((self.slots.len() - 1) as u32, 0)
    }

    /// Free slot `id` (its holder checked it is still in the generation it took it in, so it
    /// is freed once) for the next await, in the next generation.
    fn release(&mut self, id: u32) {
        if let Some((generation, slot)) = self.slots.get_mut(id as usize) {
            *slot = Slot::Free;
            *generation = generation.wrapping_add(1);
            self.free.push(id);
        }
    }

    /// Slot `id` as taken in `generation`, if it still is.
    fn of(&mut self, id: u32, generation: u32) -> Option<&mut Slot> {
        match self.slots.get_mut(id as usize)? {
            (current, slot) if *current == generation => Some(slot),
            _ => None,
        }
    }
}

thread_local! {
    static SLOTS: RefCell<Slots> = const { RefCell::new(Slots { slots: Vec::new(), free: Vec::new() }) };
    /// The one closure every settlement calls.
    static SETTLED: OnSettled = Closure::new(settled);
}

/// How many slots are taken (awaited, or settled and not yet taken), for the test that awaits
/// dropped before their Promise settles give theirs back.
///
/// ```text
/// assert_eq!(memdir::wasm::settle_slots_in_use(), 0); // nothing awaited
/// ```
#[doc(hidden)]
pub fn slots_in_use() -> usize {
    SLOTS.with_borrow(|s| s.slots.len() - s.free.len())
}

/// A Promise or timer of `slot` (taken in `generation`) settled: keep the outcome and wake its
/// task. A settlement for a slot freed since (its future was dropped) changes nothing.
fn settled(slot: u32, generation: u32, ok: bool, value: JsValue) {
    let waker = SLOTS.with_borrow_mut(|s| {
        let state = s.of(slot, generation)?;
        match std::mem::replace(state, Slot::Free) {
            Slot::Waiting(waker) => {
                *state = Slot::Done(if ok { Ok(value) } else { Err(value) });
                waker
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
    generation: u32,
    /// The timer's handle, cleared if the future is dropped first.
    timer: Option<JsValue>,
    taken: bool,
}

impl Settled {
    /// Await `value`: a Promise or thenable settles as it does; any other value at once.
    pub(super) fn of(value: &JsValue) -> Settled {
        let (slot, generation) = SLOTS.with_borrow_mut(Slots::take);
        SETTLED.with(|settled| settle_into(value, slot, generation, settled));
        Settled {
            slot,
            generation,
            timer: None,
            taken: false,
        }
    }

    /// Ready after `ms` milliseconds (a `setTimeout`).
    pub(super) fn timer(ms: u32) -> Settled {
        let (slot, generation) = SLOTS.with_borrow_mut(Slots::take);
        let handle = SETTLED.with(|settled| timer_into(ms, slot, generation, settled));
        Settled {
            slot,
            generation,
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
        let (slot, generation) = (self.slot, self.generation);
        let out = SLOTS.with_borrow_mut(|s| {
            let state = s.of(slot, generation)?;
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
                Slot::Free => None,
            }
        });
        match out {
            Some(Poll::Ready(result)) => {
                self.taken = true;
                Poll::Ready(result)
            }
            Some(Poll::Pending) => Poll::Pending,
            // Not reached: a slot is only freed by its future.
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
            // A cleared timer never fires.
            clear_timer(handle);
        }
        // Free at once, awaited or settled: a Promise that settles later finds the slot in
        // another generation and leaves it alone.
        let (slot, generation) = (self.slot, self.generation);
        SLOTS.with_borrow_mut(|s| {
            if s.of(slot, generation).is_some() {
                s.release(slot);
            }
        });
    }
}
