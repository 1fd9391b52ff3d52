//! The daily log: `logs/YYYY/MM/YYYY-MM-DD.md`, append-only.

use super::types::{LocalDate, Scope};
use super::Store;
use super::LOGS_DIR;
use crate::error::{Code, Error, Result};
use crate::host::{Clock, FileSystem, Telemetry};

/// The daily log's path relative to the memory directory, or `None` for an impossible date.
///
/// ```
/// use memdir::store::{log_file_name, LocalDate};
/// let d = LocalDate { year: 2026, month: 3, day: 5 };
/// assert_eq!(log_file_name(d).unwrap(), "logs/2026/03/2026-03-05.md");
/// assert!(log_file_name(LocalDate { year: 2026, month: 13, day: 1 }).is_none());
/// ```
pub fn log_file_name(date: LocalDate) -> Option<String> {
    let LocalDate { year, month, day } = date;
    let valid = year <= 9999 && (1..=12).contains(&month) && (1..=31).contains(&day);
    valid.then(|| format!("{LOGS_DIR}{year:04}/{month:02}/{year:04}-{month:02}-{day:02}.md"))
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Append `text` to the daily log of `date` (a newline is added when `text` does not end
    /// with one), creating the file and its parents. Uses the host's `appendFile` when present;
    /// otherwise read + atomic write under the directory lock. Returns the log's absolute path.
    /// Refused (`WRITE_FORBIDDEN`) in `off`, `read-only` and `confirm` mode: a log line is not
    /// a reviewable proposal.
    pub async fn append_log(&self, text: &str, date: LocalDate) -> Result<String> {
        self.check_writable()?;
        self.check_dir()?;
        if self.confirms_writes() {
            return Err(Error::new(
                Code::WriteForbidden,
                "the daily log is not written in confirm mode",
            ));
        }
        let rel = log_file_name(date).ok_or_else(|| {
            // The text of `{date:?}`, written out: the derived `Debug` would link core's
            // struct-formatting builders into the wasm module for this one message.
            let LocalDate { year, month, day } = date;
            Error::new(
                Code::InvalidInput,
                format!(
                    "not a calendar date: LocalDate {{ year: {year}, month: {month}, day: {day} }}"
                ),
            )
        })?;
        let path = format!("{}{rel}", self.dir);
        self.guard_secrets(Scope::Private, text)?;
        let line = if text.ends_with('\n') {
            text.to_owned()
        } else {
            format!("{text}\n")
        };
        // No symlinked `logs/` may lead the append (or the directories it creates) outside.
        self.check_containment(Scope::Private, &rel, &path).await?;
        self.ensure_parent(&path).await?;
        if self.fs.capabilities().append_file {
            self.fs
                .append_file(&path, &line)
                .await
                .map_err(|e| Error::fs("append", &path, e))?;
            return Ok(path);
        }
        let lock = self.lock_dir().await?;
        let result = self.append_locked(&path, &line).await;
        self.unlock_dir(lock).await;
        result.map(|()| path)
    }

    async fn append_locked(&self, path: &str, line: &str) -> Result<()> {
        let old = self.read_optional(path).await?.unwrap_or_default();
        self.write_atomic(path, &format!("{old}{line}")).await
    }
}
