//! The consolidation lock `.consolidate-lock`: who is consolidating now, and
//! when the last consolidation ran.
//!
//! The reference keeps the last-consolidated time in the file's mtime and the holder's process
//! id in its body, and rolls back by setting the mtime again. Hosts can neither set mtimes nor
//! check process ids, so the body here is `<holder id>\n<time in ms>`: while a run holds the
//! lock the time is its acquisition time; after it the holder line is empty and the time is the
//! last consolidation. A file without a readable time (one written by the reference, whose body
//! is only a pid) is read by its mtime instead, and a holder is considered alive until the lock
//! is [`HOLDER_STALE_MS`] old, since liveness cannot be checked.

use super::Consolidator;
use crate::error::{Error, Result};
use crate::host::{Clock, FileSystem, Llm, Telemetry};

/// The lock file's name inside the memory directory.
pub const CONSOLIDATE_LOCK_NAME: &str = ".consolidate-lock";
/// A holder older than this (1 h) is presumed dead.
pub const HOLDER_STALE_MS: f64 = 60.0 * 60.0 * 1000.0;

/// The lock file's body.
#[derive(Clone, Debug, PartialEq)]
pub struct LockBody {
    /// The holder id; empty when nobody holds the lock.
    pub holder: String,
    /// The time on the second line, when it is a finite number.
    pub time_ms: Option<f64>,
}

/// Read a lock body: first line the holder, second the time.
///
/// ```
/// use memdir::consolidate::parse_lock_body;
/// let body = parse_lock_body("abc\n1700000000000");
/// assert_eq!((body.holder.as_str(), body.time_ms), ("abc", Some(1.7e12)));
/// assert_eq!(parse_lock_body("4242").time_ms, None);
/// ```
pub fn parse_lock_body(text: &str) -> LockBody {
    let mut lines = text.split('\n');
    let holder = lines.next().unwrap_or("").trim().to_owned();
    let time_ms = lines
        .next()
        .and_then(|t| t.trim().parse::<f64>().ok())
        .filter(|t| t.is_finite());
    LockBody { holder, time_ms }
}

/// A lock body: `holder\ntime` (time in whole ms).
///
/// ```
/// assert_eq!(memdir::consolidate::format_lock_body("", 5.7), "\n5");
/// ```
pub fn format_lock_body(holder: &str, time_ms: f64) -> String {
    format!("{holder}\n{}", time_ms.floor())
}

/// What is on disk: the body and the file's mtime, `None` when there is no lock file.
#[derive(Clone, Debug, PartialEq)]
pub struct LockFile {
    /// The parsed body.
    pub body: LockBody,
    /// The file's modification time.
    pub mtime_ms: f64,
}

impl LockFile {
    /// When the last consolidation ran (or the current one started): the body's time, else the
    /// mtime.
    pub fn time_ms(&self) -> f64 {
        self.body.time_ms.unwrap_or(self.mtime_ms)
    }

    /// True when someone other than `own_holder` holds it and is not yet stale at `now_ms`.
    ///
    /// ```
    /// use memdir::consolidate::{parse_lock_body, LockFile};
    /// let lock = LockFile { body: parse_lock_body("other\n1000"), mtime_ms: 0.0 };
    /// assert!(lock.is_held_by_other("me", 1000.0 + 59.0 * 60_000.0));
    /// assert!(!lock.is_held_by_other("me", 1000.0 + 61.0 * 60_000.0));
    /// assert!(!lock.is_held_by_other("other", 1000.0));
    /// ```
    pub fn is_held_by_other(&self, own_holder: &str, now_ms: f64) -> bool {
        !self.body.holder.is_empty()
            && self.body.holder != own_holder
            && now_ms - self.time_ms() < HOLDER_STALE_MS
    }
}

/// A held consolidation lock.
#[derive(Clone, Debug, PartialEq)]
pub struct ConsolidationLease {
    /// Our holder id.
    pub holder: String,
    /// When we took it.
    pub acquired_at: f64,
    /// The last consolidation before ours (0 when none).
    pub prior: f64,
}

impl<F: FileSystem, C: Clock, T: Telemetry, L: Llm> Consolidator<'_, F, C, T, L> {
    fn consolidate_lock_path(&self) -> String {
        format!("{}{CONSOLIDATE_LOCK_NAME}", self.store.dir())
    }

    /// The lock file, `None` when there is none.
    pub async fn read_consolidation_lock(&self) -> Result<Option<LockFile>> {
        let path = self.consolidate_lock_path();
        let Some(text) = self.store.read_optional(&path).await? else {
            return Ok(None);
        };
        let mtime_ms = match self.store.fs().stat(&path).await {
            Ok(st) => st.mtime_ms,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(Error::fs("stat", &path, e)),
        };
        Ok(Some(LockFile {
            body: parse_lock_body(&text),
            mtime_ms,
        }))
    }

    /// When the last consolidation ran, in ms; 0 when never.
    pub async fn last_consolidated_at(&self) -> Result<f64> {
        Ok(self
            .read_consolidation_lock()
            .await?
            .map_or(0.0, |lock| lock.time_ms()))
    }

    /// Take the lock for `holder`: `None` when another live holder has it or a concurrent
    /// writer won the race (checked by reading the body back). Needs a writable mode.
    pub async fn try_acquire_consolidation_lock(
        &self,
        holder: &str,
    ) -> Result<Option<ConsolidationLease>> {
        self.store.check_writable()?;
        let now = self.store.clock().now_ms();
        let existing = self.read_consolidation_lock().await?;
        if existing
            .as_ref()
            .is_some_and(|lock| lock.is_held_by_other(holder, now))
        {
            return Ok(None);
        }
        let prior = existing.map_or(0.0, |lock| lock.time_ms());
        self.store.mkdir_all(self.store.dir()).await?;
        let path = self.consolidate_lock_path();
        self.store
            .write_atomic(&path, &format_lock_body(holder, now))
            .await?;
        let again = self.read_consolidation_lock().await?;
        if again.map(|lock| lock.body.holder).as_deref() != Some(holder) {
            return Ok(None);
        }
        Ok(Some(ConsolidationLease {
            holder: holder.to_owned(),
            acquired_at: now,
            prior,
        }))
    }

    /// After a successful run: clear the holder and keep the acquisition time as the last
    /// consolidation.
    pub async fn release_consolidation_lock(&self, lease: &ConsolidationLease) -> Result<()> {
        self.store
            .write_atomic(
                &self.consolidate_lock_path(),
                &format_lock_body("", lease.acquired_at),
            )
            .await
    }

    /// After a failed (or discarded) run: put the last-consolidated time back to `prior`,
    /// removing the lock file when there was none before.
    pub async fn rollback_consolidation_lock(&self, prior: f64) -> Result<()> {
        let path = self.consolidate_lock_path();
        if prior <= 0.0 {
            return match self.store.fs().remove(&path).await {
                Ok(()) => Ok(()),
                Err(e) if e.is_not_found() => Ok(()),
                Err(e) => Err(Error::fs("remove", &path, e)),
            };
        }
        self.store
            .write_atomic(&path, &format_lock_body("", prior))
            .await
    }

    /// Stamp "consolidated now" without a run (a manual consolidation the host did itself).
    pub async fn record_consolidation(&self) -> Result<()> {
        self.store.check_writable()?;
        self.store.mkdir_all(self.store.dir()).await?;
        let now = self.store.clock().now_ms();
        self.store
            .write_atomic(&self.consolidate_lock_path(), &format_lock_body("", now))
            .await
    }
}
