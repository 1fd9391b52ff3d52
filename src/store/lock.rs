//! The directory lock every write takes.
//!
//! Strategy, by host capability:
//! 1. Always, an in-process queue: writes through the same [`Store`] run one at a time, in the
//!    order they asked (FIFO). A waiter is woken by the release before it, never polled. Its
//!    `lock_timeout_ms` counts from the last time the lock changed hands: a long queue that
//!    moves never times out, a holder that never lets go times everyone behind it out.
//! 2. `lock` (e.g. Web Locks in browsers): the host lock named `memdir:<dir>`.
//! 3. Else `createExclusive`: the lock file `<dir>.memdir.lock` holding `<holder id>\n<acquired
//!    at, ms>` and, when the host tells [`FileSystem::process_id`] and [`FileSystem::host_id`],
//!    a third line `<pid>@<host id>`. A writer that finds it waits with a backoff (10 ms
//!    doubling to 200 ms, through [`Clock::sleep`]). The lock is broken when
//!    - its holder is provably dead: the same host id as ours and
//!      [`FileSystem::process_alive`] says `false` for its pid (broken at once), or
//!    - it is older than `lock_stale_ms`, judged by the older *credible* of the time written in
//!      it and the file's mtime. A time is credible when finite, at most [`MAX_CREDIBLE_TIME_MS`]
//!      and no more than [`CLOCK_SKEW_MS`] in the future; a lock with no credible time at all
//!      (`1e308`, a far-future body on a far-future file) is broken as garbage.
//!
//!    A *directory* at the lock path cannot be removed through the host interface (`remove`
//!    removes files), so it fails the write at once with `HOST_FS` (cause `EISDIR`) naming the
//!    path, instead of waiting for the timeout. Release removes the file only if it still names
//!    this holder.
//! 4. Else no cross-process lock (hosts without either capability are single-writer by
//!    assumption; only the in-process queue applies).
//!
//! The wait for the host lock or the lock file is bounded by `lock_timeout_ms` (→
//! `LOCK_TIMEOUT`), as is a wait in the queue that sees no progress; every host call is bounded
//! by `host_call_timeout_ms` too (see [`super::deadline`]).
//!
//! Known limits: breaking a stale lock re-reads the file just before removing it, but two
//! writers breaking the same stale lock at the same instant can still both proceed; a write
//! that holds the lock longer than the stale age can be broken into; a process id reused by a
//! new process keeps a dead holder's lock until it is stale. A future dropped mid-write, or a
//! `createExclusive` that timed out but lands later, leaves its lock file behind until it goes
//! stale, unless the same store writes again first (it removes its own orphaned lock file).

use super::deadline::fs_error;
use super::journal::journal_line;
use super::types::Scope;
use super::Store;
use super::LOCK_FILE_NAME;
use crate::error::{Code, Error, HostError, Result};
use crate::host::{Clock, EntryKind, FieldValue, FileSystem, HostLock, Telemetry};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// First backoff step while waiting for the lock, in ms.
pub const LOCK_BACKOFF_START_MS: u32 = 10;
/// Longest backoff step, in ms.
pub const LOCK_BACKOFF_MAX_MS: u32 = 200;
/// How far in the future a lock time may lie and still be believed (clocks of two machines
/// sharing a directory differ a little), in ms.
pub const CLOCK_SKEW_MS: f64 = 5_000.0;
/// Lock times above this (about the year 33,658) are not believed.
pub const MAX_CREDIBLE_TIME_MS: f64 = 1e15;

/// Immediate retries after finding the lock gone or stale, before backing off again.
const MAX_QUICK_RETRIES: u32 = 8;

/// A waiter's place in the in-process queue.
struct Waiter {
    ticket: u64,
    waker: Option<Waker>,
}

#[derive(Default)]
struct Queue {
    held: bool,
    /// How many times the lock changed hands: a waiter's timeout restarts while this moves.
    handovers: u64,
    next_ticket: u64,
    waiters: Vec<Waiter>,
}

impl Queue {
    /// The waker of the first waiter, when the lock is free for it.
    fn front_waker(&mut self) -> Option<Waker> {
        if self.held {
            return None;
        }
        self.waiters.first_mut().and_then(|w| w.waker.take())
    }
}

/// The store's lock state: the in-process FIFO queue of writers, and when stale temp files
/// were last swept (see [`super::journal`]).
#[derive(Default)]
pub(crate) struct LockState {
    queue: RefCell<Queue>,
    pub(crate) last_sweep_ms: Cell<Option<f64>>,
    /// Lock files (path, holder id) of writes whose future was dropped while holding the lock:
    /// the next writer of this store removes them if they still name that holder.
    orphans: RefCell<Vec<(String, String)>>,
    /// Set when a write failed half done and its journal could not be written: the held lock
    /// file, which carries the write's journal line, is then left in place at release.
    pub(crate) keep_lock_file: Cell<bool>,
    /// The journal line the held lock file carries (its write's intent), if any.
    pub(crate) intent: RefCell<Option<String>>,
    /// True while the held write's journal is the line in its lock file rather than the
    /// journal file (set by `journal_begin`, cleared by `journal_end`).
    pub(crate) journal_in_lock: Cell<bool>,
    /// The line `journal_begin` added to the journal file (when the lock file does not carry
    /// the write's intent), for `journal_end` to take out again.
    pub(crate) journal_in_file: RefCell<Option<String>>,
    /// Set when the held lock's recovery could not repair every journal entry: the index may
    /// still end in part of an appended line, which only that repair may take off.
    pub(crate) journal_unrepaired: Cell<bool>,
    /// This process's owner tag, asked of the host once (it does not change while we run).
    owner: std::cell::OnceCell<Option<String>>,
}

impl LockState {
    /// Wait for the in-process lock, behind every writer that asked before.
    fn enter(&self) -> Enter<'_> {
        Enter {
            state: self,
            ticket: None,
            done: false,
        }
    }

    fn release(&self) {
        let waker = {
            let mut q = self.queue.borrow_mut();
            q.held = false;
            q.handovers = q.handovers.wrapping_add(1);
            q.front_waker()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// The future of [`LockState::enter`]; dropping it before it is ready leaves the queue.
struct Enter<'a> {
    state: &'a LockState,
    ticket: Option<u64>,
    done: bool,
}

impl<'a> Future for Enter<'a> {
    type Output = InProcessGuard<'a>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<InProcessGuard<'a>> {
        let state = self.state;
        let mut q = state.queue.borrow_mut();
        let ticket = match self.ticket {
            Some(t) => t,
            None if !q.held && q.waiters.is_empty() => {
                q.held = true;
                drop(q);
                self.done = true;
                return Poll::Ready(InProcessGuard(state));
            }
            None => {
                let t = q.next_ticket;
                q.next_ticket = t.wrapping_add(1);
                q.waiters.push(Waiter {
                    ticket: t,
                    waker: Some(cx.waker().clone()),
                });
                drop(q);
                self.ticket = Some(t);
                return Poll::Pending;
            }
        };
        if !q.held && q.waiters.first().is_some_and(|w| w.ticket == ticket) {
            q.waiters.remove(0);
            q.held = true;
            drop(q);
            self.done = true;
            return Poll::Ready(InProcessGuard(state));
        }
        if let Some(w) = q.waiters.iter_mut().find(|w| w.ticket == ticket) {
            w.waker = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl Drop for Enter<'_> {
    fn drop(&mut self) {
        let (Some(ticket), false) = (self.ticket, self.done) else {
            return;
        };
        let waker = {
            let mut q = self.state.queue.borrow_mut();
            q.waiters.retain(|w| w.ticket != ticket);
            // If we were first and the lock is free, the next one may go now.
            q.front_waker()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// Releases the in-process lock when dropped (also when the write future is cancelled).
pub(crate) struct InProcessGuard<'a>(&'a LockState);

impl Drop for InProcessGuard<'_> {
    fn drop(&mut self) {
        self.0.release();
    }
}

enum Held {
    Host(#[allow(dead_code)] HostLock),
    /// Boxed: the lock is handed through many futures, and this keeps it two words.
    File(Box<(String, String)>),
    InProcessOnly,
}

/// A held directory lock; give it back with [`Store::unlock_dir`]. Dropped without that (the
/// write's future was cancelled), its lock file is left for the store's next writer to remove.
pub(crate) struct DirLock<'a> {
    flag: InProcessGuard<'a>,
    held: Held,
}

impl Drop for DirLock<'_> {
    fn drop(&mut self) {
        if let Held::File(file) = std::mem::replace(&mut self.held, Held::InProcessOnly) {
            self.flag.0.orphans.borrow_mut().push(*file);
        }
    }
}

/// The `acquired at` time written in a lock file, if readable.
fn lock_acquired_at(content: &str) -> Option<f64> {
    content
        .split('\n')
        .nth(1)
        .and_then(|t| t.trim().parse::<f64>().ok())
        .filter(|t| t.is_finite())
}

/// The `<pid>@<host id>` of a lock file's holder, if written.
fn lock_owner(content: &str) -> Option<(u32, &str)> {
    let (pid, host) = content.split('\n').nth(2)?.trim().split_once('@')?;
    Some((pid.parse().ok()?, host))
}

/// A lock time that can be believed at `now`.
fn credible(t: f64, now: f64) -> bool {
    t.is_finite() && (0.0..=MAX_CREDIBLE_TIME_MS).contains(&t) && t <= now + CLOCK_SKEW_MS
}

/// When a lock was taken, as best known: the older credible one of the time written in it and
/// the file's mtime; `None` when neither is credible.
fn lock_taken_at(written: Option<f64>, mtime: f64, now: f64) -> Option<f64> {
    [written, Some(mtime)]
        .into_iter()
        .flatten()
        .filter(|&t| credible(t, now))
        .reduce(f64::min)
}

/// What to do about a lock file someone else holds.
enum Verdict {
    /// It is gone (or was just broken): try to take it again at once.
    Retry,
    /// It is held: back off and wait.
    Wait,
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Path of the lock file.
    pub(crate) fn lock_file_path(&self) -> String {
        format!("{}{LOCK_FILE_NAME}", self.dir)
    }

    fn lock_timeout_error(&self) -> Error {
        Error::new(
            Code::LockTimeout,
            format!(
                "could not lock {} within {} ms",
                self.dir, self.config.lock_timeout_ms
            ),
        )
    }

    fn lock_timeout(&self, deadline: f64) -> Result<()> {
        if self.clock.now_ms() >= deadline {
            return Err(self.lock_timeout_error());
        }
        Ok(())
    }

    /// Take the directory lock (see the module docs for the strategy), then finish any write a
    /// killed writer left half done (see [`super::journal`]).
    pub(crate) async fn lock_dir(&self) -> Result<DirLock<'_>> {
        self.lock_dir_for(None).await
    }

    /// [`Store::lock_dir`] for a write of the memory `rel` of `scope` that keeps the index in
    /// step: with a lock file, the file carries that intent as its journal line, so the write
    /// needs no journal file of its own (see [`super::journal`]).
    pub(crate) async fn lock_dir_for(&self, intent: Option<(Scope, &str)>) -> Result<DirLock<'_>> {
        let lock = self.acquire_dir_lock(intent).await?;
        self.journal_recover().await;
        Ok(lock)
    }

    /// `<pid>@<host id>` of this process, when the host tells both.
    fn owner_tag(&self) -> Option<&str> {
        self.lock_state
            .owner
            .get_or_init(|| {
                let pid = self.fs.process_id()?;
                let host = self.fs.host_id()?;
                let host: String = host.chars().filter(|c| !c.is_control()).collect();
                (!host.is_empty()).then(|| format!("{pid}@{host}"))
            })
            .as_deref()
    }

    /// [`Store::lock_dir_for`] without the recovery: the caller must finish what a killed
    /// writer left (`journal_pending`, then `journal_repair`) before it writes anything.
    pub(crate) async fn acquire_dir_lock(
        &self,
        intent: Option<(Scope, &str)>,
    ) -> Result<DirLock<'_>> {
        let timeout = f64::from(self.config.lock_timeout_ms);
        let handovers = || self.lock_state.queue.borrow().handovers;
        let mut enter = self.lock_state.enter();
        let mut seen = handovers();
        let flag = loop {
            let deadline = self.clock.now_ms() + timeout;
            match self
                .with_deadline(deadline, std::future::pending(), &mut enter)
                .await
            {
                Ok(guard) => break guard,
                // The queue moved meanwhile: the writers ahead are making progress, keep our
                // place and wait on. A holder that never lets go times us out.
                Err(_) if handovers() != seen => seen = handovers(),
                Err(_) => return Err(self.lock_timeout_error()),
            }
        };
        drop(enter);
        // Left over by a write whose future was dropped while holding the lock.
        self.lock_state.intent.borrow_mut().take();
        self.lock_state.journal_in_lock.set(false);
        self.lock_state.journal_in_file.borrow_mut().take();
        self.lock_state.journal_unrepaired.set(false);
        let deadline = self.clock.now_ms() + timeout;
        let caps = self.fs.capabilities();
        if caps.lock {
            let name = format!("memdir:{}", self.dir);
            let host = self
                .with_deadline(deadline, std::future::pending(), self.fs.lock(&name))
                .await
                .map_err(|_| self.lock_timeout_error())?
                .map_err(|e| Error::host(Code::HostFs, format_args!("lock {name}"), e))?;
            return Ok(DirLock {
                flag,
                held: Held::Host(host),
            });
        }
        if !caps.create_exclusive {
            return Ok(DirLock {
                flag,
                held: Held::InProcessOnly,
            });
        }
        let orphans = std::mem::take(&mut *self.lock_state.orphans.borrow_mut());
        for (path, holder) in orphans {
            self.remove_own_lock_file(&path, &holder, true).await;
        }
        let path = self.lock_file_path();
        let holder = self.next_id();
        let owner = self.owner_tag();
        let intent = intent.map(|(scope, rel)| journal_line(scope, rel));
        let mut delay = LOCK_BACKOFF_START_MS;
        let mut quick_retries = 0u32;
        // The directory is created only when the lock file cannot be for want of it.
        let mut made_dir = false;
        loop {
            let now = self.clock.now_ms();
            let mut content = match &owner {
                Some(tag) => format!("{holder}\n{}\n{tag}", now.floor()),
                None => format!("{holder}\n{}", now.floor()),
            };
            // This write's intent as a journal line after the third line (empty without an
            // owner tag).
            if let Some(line) = &intent {
                if owner.is_none() {
                    content.push('\n');
                }
                content.push('\n');
                content.push_str(line);
            }
            let created = match self
                .bounded_until(deadline, self.fs.create_exclusive(&path, &content))
                .await
            {
                Ok(created) => created,
                Err(e) if e.is_not_found() && !made_dir => {
                    made_dir = true;
                    self.mkdir_all(&self.dir).await?;
                    continue;
                }
                Err(_) if self.lock_timeout(deadline).is_err() => {
                    return Err(self.lock_timeout_error())
                }
                Err(e) => return Err(fs_error("create", &path, e)),
            };
            if created {
                *self.lock_state.intent.borrow_mut() = intent;
                return Ok(DirLock {
                    flag,
                    held: Held::File(Box::new((path, holder))),
                });
            }
            let verdict = self.judge_lock(&path, deadline).await?;
            self.lock_timeout(deadline)?;
            if matches!(verdict, Verdict::Retry) && quick_retries < MAX_QUICK_RETRIES {
                quick_retries += 1;
                continue;
            }
            self.clock.sleep(delay).await;
            delay = (delay * 2).min(LOCK_BACKOFF_MAX_MS);
        }
    }

    /// Look at a lock file someone else holds, and remove it when its holder is gone (see the
    /// module docs). Fails only for a directory at the lock path.
    async fn judge_lock(&self, path: &str, deadline: f64) -> Result<Verdict> {
        let stat = match self.bounded_until(deadline, self.fs.stat(path)).await {
            Ok(st) => st,
            Err(e) if e.is_not_found() => return Ok(Verdict::Retry),
            Err(_) => return Ok(Verdict::Wait),
        };
        if stat.kind == EntryKind::Dir {
            let cause = HostError::new(Some("EISDIR"), "a directory is in the lock file's place");
            return Err(Error::host(
                Code::HostFs,
                format_args!(
                    "the lock path {path} is a directory, which memdir does not remove; \
                     remove it by hand"
                ),
                cause,
            ));
        }
        let content = match self.bounded_until(deadline, self.fs.read_file(path)).await {
            Ok(c) => c,
            Err(e) if e.is_not_found() => return Ok(Verdict::Retry),
            Err(_) => return Ok(Verdict::Wait),
        };
        let now = self.clock.now_ms();
        let taken = lock_taken_at(lock_acquired_at(&content), stat.mtime_ms, now);
        let age = taken.map_or(f64::INFINITY, |t| now - t);
        let dead = self.holder_is_dead(&content).await;
        if !dead && age <= f64::from(self.config.lock_stale_ms) {
            return Ok(Verdict::Wait);
        }
        // Re-read right before removing so a lock taken meanwhile by someone else survives.
        match self.bounded_until(deadline, self.fs.read_file(path)).await {
            Ok(again) if again == content => {}
            Ok(_) => return Ok(Verdict::Retry),
            Err(e) if e.is_not_found() => return Ok(Verdict::Retry),
            Err(_) => return Ok(Verdict::Wait),
        }
        self.telemetry.emit(
            "memdir_lock_broken",
            &[
                (
                    "age_ms",
                    FieldValue::Num(if age.is_finite() { age } else { -1.0 }),
                ),
                ("holder_dead", FieldValue::Bool(dead)),
            ],
        );
        // The journal lines it carries go to the journal file first: once the lock file is
        // gone they must not live only in this process.
        if !self.keep_journal_of_lock(&content).await {
            return Ok(Verdict::Wait);
        }
        match self.bounded_until(deadline, self.fs.remove(path)).await {
            Ok(()) => Ok(Verdict::Retry),
            Err(e) if e.is_not_found() => Ok(Verdict::Retry),
            Err(_) => Ok(Verdict::Wait),
        }
    }

    /// True when the lock body names a process on this host that the host says is gone.
    async fn holder_is_dead(&self, content: &str) -> bool {
        let Some((pid, host)) = lock_owner(content) else {
            return false;
        };
        let Some(ours) = self.fs.host_id() else {
            return false;
        };
        if ours.chars().filter(|c| !c.is_control()).ne(host.chars()) {
            return false;
        }
        let alive = self.bounded(async { Ok(self.fs.process_alive(pid).await) });
        alive.await.ok().flatten() == Some(false)
    }

    /// Release a lock taken by [`Store::lock_dir`]. Never fails: a lock file that now names
    /// another holder (ours was broken as stale) is left alone.
    pub(crate) async fn unlock_dir(&self, mut lock: DirLock<'_>) {
        if let Held::File(file) = std::mem::replace(&mut lock.held, Held::InProcessOnly) {
            if !self.lock_state.keep_lock_file.replace(false) {
                self.remove_own_lock_file(&file.0, &file.1, false).await;
            }
        }
        self.lock_state.intent.borrow_mut().take();
        self.lock_state.journal_in_lock.set(false);
        self.lock_state.journal_in_file.borrow_mut().take();
        drop(lock);
    }

    /// Remove the lock file at `path` if it still names `holder`; an orphan's journal lines
    /// go to the journal file first (its write may have stopped half done), and when they
    /// cannot, the orphan stays until it is broken as stale.
    async fn remove_own_lock_file(&self, path: &str, holder: &str, orphan: bool) {
        // The first line is all a release compares: with `readHead`, no more is read.
        let content = if self.fs.capabilities().read_head && !orphan {
            self.bounded(self.fs.read_head(path, holder.len() + 1))
                .await
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        } else {
            self.bounded(self.fs.read_file(path)).await
        };
        if let Ok(content) = content {
            if content.split('\n').next() == Some(holder)
                && (!orphan || self.keep_journal_of_lock(&content).await)
            {
                let _ = self.bounded(self.fs.remove(path)).await;
            }
        }
    }
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Run `work` — writes into this directory made by something other than the store, such as
    /// a team-sync pull — as a write of this store: refused in `off` and `read-only` mode, and
    /// under the directory lock, so it never interleaves with a save's read-modify-write of an
    /// index.
    ///
    /// ```
    /// use memdir::store::{Store, StoreConfig, WriteMode};
    /// use memdir::{future::block_on, Code, MemFs, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _ms: u32) {} }
    /// let store = Store::new(MemFs::new(), Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
    /// assert_eq!(block_on(store.with_write_lock(async { 42 })).unwrap(), 42);
    /// let ro = Store::new(MemFs::new(), Clock0, NoTelemetry, "/m/", WriteMode::ReadOnly, StoreConfig::default());
    /// assert_eq!(block_on(ro.with_write_lock(async { 42 })).unwrap_err().code, Code::WriteForbidden);
    /// ```
    pub async fn with_write_lock<R>(
        &self,
        work: impl std::future::Future<Output = R>,
    ) -> Result<R> {
        self.check_writable()?;
        let lock = self.lock_dir().await?;
        let out = work.await;
        self.unlock_dir(lock).await;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_lock_times() {
        let now = 1.7e12;
        // The older credible time wins.
        assert_eq!(
            lock_taken_at(Some(now - 5.0), now - 1.0, now),
            Some(now - 5.0)
        );
        assert_eq!(
            lock_taken_at(Some(now - 1.0), now - 5.0, now),
            Some(now - 5.0)
        );
        // Absurd body times are ignored: the file's mtime decides.
        for absurd in [now + 3_600_000.0, 1e308, 2e15, -1.0] {
            assert_eq!(lock_taken_at(Some(absurd), now - 7.0, now), Some(now - 7.0));
        }
        // A little skew is believed; nothing credible gives None.
        assert_eq!(lock_taken_at(None, now + 1_000.0, now), Some(now + 1_000.0));
        assert_eq!(lock_taken_at(Some(1e308), f64::NAN, now), None);
    }

    #[test]
    fn parses_owner() {
        assert_eq!(lock_owner("h\n1\n42@box"), Some((42, "box")));
        assert_eq!(lock_owner("h\n1\nx@box"), None);
        assert_eq!(lock_owner("h\n1"), None);
    }

    #[test]
    fn parses_acquired_time() {
        assert_eq!(lock_acquired_at("abc\n1700000000000"), Some(1.7e12));
        assert_eq!(lock_acquired_at("abc\n"), None);
        assert_eq!(lock_acquired_at("abc"), None);
        assert_eq!(lock_acquired_at("abc\nNaN"), None);
    }
}
