//! The directory lock every write takes.
//!
//! Strategy, by host capability:
//! 1. Always, an in-process flag: two writes through the same [`Store`] never overlap.
//! 2. `lock` (e.g. Web Locks in browsers): the host lock named `memdir:<dir>`.
//! 3. Else `createExclusive`: the lock file `<dir>.memdir.lock` holding `<holder id>\n<acquired
//!    at, ms>`. A writer that finds it waits with a backoff (10 ms doubling to 200 ms, through
//!    [`Clock::sleep`]) up to `lock_timeout_ms` (→ `LOCK_TIMEOUT`). A lock file older than
//!    `lock_stale_ms` is broken, so a holder killed by SIGKILL blocks others for at most that
//!    long. Release removes the file only if it still names this holder.
//! 4. Else no cross-process lock (hosts without either capability are single-writer by
//!    assumption; only the in-process flag applies).
//!
//! Known limits: breaking a stale lock re-reads the file just before removing it, but two
//! writers breaking the same stale lock at the same instant can still both proceed; and a write
//! that holds the lock longer than the stale age can be broken into. A future dropped mid-write
//! leaves its lock file behind until it goes stale.

use super::Store;
use super::LOCK_FILE_NAME;
use crate::error::{Code, Error, Result};
use crate::host::{Clock, FieldValue, FileSystem, HostLock, Telemetry};
use std::cell::Cell;

/// First backoff step while waiting for the lock, in ms.
pub const LOCK_BACKOFF_START_MS: u32 = 10;
/// Longest backoff step, in ms.
pub const LOCK_BACKOFF_MAX_MS: u32 = 200;

/// Immediate retries after finding the lock gone or stale, before backing off again.
const MAX_QUICK_RETRIES: u32 = 8;

/// Resets the in-process flag when dropped (also when the write future is cancelled).
pub(crate) struct FlagGuard<'a>(&'a Cell<bool>);

impl Drop for FlagGuard<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

enum Held {
    Host(#[allow(dead_code)] HostLock),
    /// Boxed: the lock is handed through many futures, and this keeps it two words.
    File(Box<(String, String)>),
    InProcessOnly,
}

/// A held directory lock; give it back with [`Store::unlock_dir`].
pub(crate) struct DirLock<'a> {
    _flag: FlagGuard<'a>,
    held: Held,
}

/// The `acquired at` time written in a lock file, if readable.
fn lock_acquired_at(content: &str) -> Option<f64> {
    content
        .split('\n')
        .nth(1)
        .and_then(|t| t.trim().parse::<f64>().ok())
        .filter(|t| t.is_finite())
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Path of the lock file.
    pub(crate) fn lock_file_path(&self) -> String {
        format!("{}{LOCK_FILE_NAME}", self.dir)
    }

    fn lock_timeout(&self, started: f64) -> Result<()> {
        let waited = self.clock.now_ms() - started;
        if waited >= f64::from(self.config.lock_timeout_ms) {
            return Err(Error::new(
                Code::LockTimeout,
                format!(
                    "could not lock {} within {} ms",
                    self.dir, self.config.lock_timeout_ms
                ),
            ));
        }
        Ok(())
    }

    /// Take the directory lock (see the module docs for the strategy), then finish any write a
    /// killed writer left half done (see [`super::journal`]).
    pub(crate) async fn lock_dir(&self) -> Result<DirLock<'_>> {
        let lock = self.acquire_dir_lock().await?;
        self.journal_recover().await;
        Ok(lock)
    }

    async fn acquire_dir_lock(&self) -> Result<DirLock<'_>> {
        let started = self.clock.now_ms();
        let mut delay = LOCK_BACKOFF_START_MS;
        while self.writing.get() {
            self.lock_timeout(started)?;
            self.clock.sleep(delay).await;
            delay = (delay * 2).min(LOCK_BACKOFF_MAX_MS);
        }
        self.writing.set(true);
        let flag = FlagGuard(&self.writing);
        let caps = self.fs.capabilities();
        if caps.lock {
            let name = format!("memdir:{}", self.dir);
            let host = self
                .fs
                .lock(&name)
                .await
                .map_err(|e| Error::host(Code::HostFs, format_args!("lock {name}"), e))?;
            return Ok(DirLock {
                _flag: flag,
                held: Held::Host(host),
            });
        }
        if !caps.create_exclusive {
            return Ok(DirLock {
                _flag: flag,
                held: Held::InProcessOnly,
            });
        }
        self.mkdir_all(&self.dir).await?;
        let path = self.lock_file_path();
        let holder = self.next_id();
        let mut quick_retries = 0u32;
        loop {
            let now = self.clock.now_ms();
            let content = format!("{holder}\n{}", now.floor());
            let created = self
                .fs
                .create_exclusive(&path, &content)
                .await
                .map_err(|e| Error::fs("create", &path, e))?;
            if created {
                return Ok(DirLock {
                    _flag: flag,
                    held: Held::File(Box::new((path, holder))),
                });
            }
            let retry_now = self.break_stale_lock(&path).await;
            self.lock_timeout(started)?;
            if retry_now && quick_retries < MAX_QUICK_RETRIES {
                quick_retries += 1;
                continue;
            }
            self.clock.sleep(delay).await;
            delay = (delay * 2).min(LOCK_BACKOFF_MAX_MS);
        }
    }

    /// Remove the lock file when its holder is gone (older than the stale age). True when the
    /// caller should retry at once (removed, or already gone).
    async fn break_stale_lock(&self, path: &str) -> bool {
        let content = match self.fs.read_file(path).await {
            Ok(c) => c,
            Err(e) => return e.is_not_found(),
        };
        let acquired = match lock_acquired_at(&content) {
            Some(t) => t,
            // Written but not yet filled, or garbage: judge by the file's own time.
            None => match self.fs.stat(path).await {
                Ok(st) => st.mtime_ms,
                Err(e) => return e.is_not_found(),
            },
        };
        let age = self.clock.now_ms() - acquired;
        if age <= f64::from(self.config.lock_stale_ms) {
            return false;
        }
        // Re-read right before removing so a lock taken meanwhile by someone else survives.
        match self.fs.read_file(path).await {
            Ok(again) if again == content => {}
            Ok(_) => return true,
            Err(e) => return e.is_not_found(),
        }
        self.telemetry
            .emit("memdir_lock_broken", &[("age_ms", FieldValue::Num(age))]);
        match self.fs.remove(path).await {
            Ok(()) => true,
            Err(e) => e.is_not_found(),
        }
    }

    /// Release a lock taken by [`Store::lock_dir`]. Never fails: a lock file that now names
    /// another holder (ours was broken as stale) is left alone.
    pub(crate) async fn unlock_dir(&self, lock: DirLock<'_>) {
        if let Held::File(file) = &lock.held {
            let (path, holder) = &**file;
            if let Ok(content) = self.fs.read_file(path).await {
                if content.split('\n').next() == Some(holder.as_str()) {
                    let _ = self.fs.remove(path).await;
                }
            }
        }
        drop(lock);
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
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn parses_acquired_time() {
        assert_eq!(lock_acquired_at("abc\n1700000000000"), Some(1.7e12));
        assert_eq!(lock_acquired_at("abc\n"), None);
        assert_eq!(lock_acquired_at("abc"), None);
        assert_eq!(lock_acquired_at("abc\nNaN"), None);
    }
}
