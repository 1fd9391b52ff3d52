//! Crash consistency between a memory file and its index entry. Before a write touches either,
//! a journal line names the memory (`<scope> <file>`), added to the journal file (one entry a
//! line; the lines already there stay); when both are done, that line alone is taken out, and
//! the file goes once no line is left. A writer killed in between leaves its line behind, and
//! the next writer — under the same directory lock — repairs that entry: the index then points
//! at the file if the file is on disk with a valid header, and at nothing otherwise.
//!
//! With a lock file (see [`super::lock`]), a save, update or delete names its memory before
//! taking the lock, and the lock file carries that intent as a line `journal <scope> <file>`
//! after its third line: the lock file is then the journal, and no journal file is written or
//! removed. A writer killed mid-write leaves its lock file behind; whoever breaks it (stale, or
//! its process gone) first writes its journal lines to the journal file (the journal file may
//! hold several entries, one a line), and only then removes it, so the record is on disk at
//! every moment; the entries are repaired under the lock as above, and the journal file goes
//! once all are. A write that fails half done and cannot undo itself writes the journal file
//! before its lock file goes, and when even that fails, leaves its lock file in place.
//!
//! A new index entry may be appended rather than written with the whole index (a host that
//! appends atomically, see `Store::appended_lines`); an append cut short leaves part of the
//! entry's line at the end, with no line end. The repair of that memory takes the part off
//! before it puts the entry in (`without_cut_append`).
//!
//! Recovery also sweeps the temp files of atomic writes a killed writer left behind
//! (`<name>.tmp-<id>`, see [`super::write`]): under the lock, at most once per `lock_stale_ms`
//! per store, a walk of the directory (no symlinks followed, at most [`SWEEP_MAX_DEPTH`] levels
//! and [`SWEEP_MAX_ENTRIES`] entries) removes every file whose name ends in `.tmp-` and an id
//! (`[0-9a-z-]`, which covers the node filesystem's own `.tmp-<pid>-<hex>` too) and whose mtime
//! is older than `lock_stale_ms`. A younger one may belong to a live writer without the lock
//! (another process's `writeFile`), so it stays.

use super::types::Scope;
use super::write::TEMP_MARK;
use super::Store;
use crate::error::Result;
use crate::frontmatter::parse_frontmatter;
use crate::host::{Clock, EntryKind, FieldValue, FileSystem, Telemetry};
use crate::index_entry::{format_index_entry, remove_index_entry, upsert_index_entry, IndexEntry};

/// What starts a journal line carried in a lock file (after its third line).
pub(crate) const JOURNAL_PREFIX: &str = "journal ";

/// The journal line a lock file carries for a write of the memory `rel` of `scope`.
pub(crate) fn journal_line(scope: Scope, rel: &str) -> String {
    let mut line = format!("{JOURNAL_PREFIX}{}", encode(scope, rel));
    line.pop();
    line
}

/// The journal's file name inside the memory directory.
pub const JOURNAL_FILE_NAME: &str = ".memdir-journal";
/// Directory levels below the memory directory the temp-file sweep looks into.
pub const SWEEP_MAX_DEPTH: usize = 8;
/// Directory entries the temp-file sweep looks at, at most.
pub const SWEEP_MAX_ENTRIES: usize = 20_000;

/// True for the name of a temp file of an atomic write: `<something>.tmp-<id>` with the id made
/// of `[0-9a-z-]` only (so never a `.md` file).
pub(crate) fn is_temp_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let mark = TEMP_MARK.as_bytes();
    match bytes.windows(mark.len()).rposition(|w| w == mark) {
        Some(i) if i > 0 => bytes.get(i + mark.len()..).is_some_and(|id| {
            !id.is_empty()
                && id
                    .iter()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase() || *b == b'-')
        }),
        _ => false,
    }
}

fn encode(scope: Scope, rel: &str) -> String {
    let tag = match scope {
        Scope::Private => "private",
        Scope::Team => "team",
    };
    format!("{tag} {rel}\n")
}

fn decode(text: &str) -> Option<(Scope, &str)> {
    let (tag, rel) = text.trim_end_matches('\n').split_once(' ')?;
    let scope = match tag {
        "private" => Scope::Private,
        "team" => Scope::Team,
        _ => return None,
    };
    super::names::check_memory_file(rel).ok()?;
    Some((scope, rel))
}

/// `text` without the first line equal to `line` (which ends with its newline).
fn without_line(text: &str, line: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut removed = false;
    for l in text.split_inclusive('\n') {
        if !removed && l == line {
            removed = true;
        } else {
            out.push_str(l);
        }
    }
    out
}

/// `index` without the part of `entry`'s line an append left when it was cut short (a crash,
/// a full disk): a last line with no line end that begins that line. The store appends an
/// entry only to an index whose last line is ended (see `Store::appended_lines`), so the
/// memory being repaired left such a line; anything else is kept.
fn without_cut_append<'a>(index: &'a str, entry: &IndexEntry) -> &'a str {
    let start = index.rfind('\n').map_or(0, |i| i + 1);
    let last = index.get(start..).unwrap_or("");
    let whole = format!("{}\r\n", format_index_entry(entry));
    // A cut inside a character reads back as U+FFFD; a size that grew before the data reached
    // the disk reads back as NUL bytes.
    let written = last.trim_end_matches(['\u{FFFD}', '\0']);
    match !last.is_empty() && whole.starts_with(written) {
        true => index.get(..start).unwrap_or(index),
        false => index,
    }
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    fn journal_path(&self) -> String {
        format!("{}{JOURNAL_FILE_NAME}", self.dir)
    }

    /// Record that the memory `rel` of `scope` is about to change. Must run under the lock.
    /// When the held lock file already carries that intent (see [`Store::lock_dir_for`]),
    /// nothing is written: the lock file is the journal until it is removed. Otherwise the
    /// line is added to the journal file, whose other lines (entries a repair could not finish
    /// yet, lines of broken locks) stay.
    pub(crate) async fn journal_begin(&self, scope: Scope, rel: &str) -> Result<()> {
        let carried = self.lock_state.intent.borrow().as_deref() == Some(&journal_line(scope, rel));
        if carried {
            self.lock_state.journal_in_lock.set(true);
            return Ok(());
        }
        self.append_journal(&[(scope, rel.to_owned())]).await?;
        *self.lock_state.journal_in_file.borrow_mut() = Some(encode(scope, rel));
        Ok(())
    }

    /// The change recorded by [`Self::journal_begin`] is complete: its line goes from the
    /// journal file (the file goes with it when no other line is left). Best effort: a line
    /// that stays only costs the next writer a repair that changes nothing.
    pub(crate) async fn journal_end(&self) {
        if self.lock_state.journal_in_lock.replace(false) {
            return;
        }
        let Some(line) = self.lock_state.journal_in_file.borrow_mut().take() else {
            return;
        };
        let path = self.journal_path();
        let Ok(Some(text)) = self.read_optional(&path).await else {
            return;
        };
        let rest = without_line(&text, &line);
        if rest.split('\n').all(str::is_empty) {
            let _ = self.bounded(self.fs.remove(&path)).await;
        } else if rest != text {
            let _ = self.write_atomic(&path, &rest).await;
        }
    }

    /// The change recorded by [`Self::journal_begin`] failed half done and could not be
    /// undone: the journal must outlive the lock. A line in the journal file simply stays. A
    /// journal carried by the lock file is written to the journal file before the lock file
    /// goes; when even that write fails (a full disk), the lock file is left in place (it
    /// carries the line; whoever breaks it as stale keeps it).
    pub(crate) async fn journal_keep(&self, scope: Scope, rel: &str) {
        self.lock_state.journal_in_file.borrow_mut().take();
        if self.lock_state.journal_in_lock.replace(false)
            && self
                .append_journal(&[(scope, rel.to_owned())])
                .await
                .is_err()
        {
            self.lock_state.keep_lock_file.set(true);
        }
    }

    /// Add `entries` to the journal file (its other lines kept), so they outlive a lock file
    /// about to be removed.
    async fn append_journal(&self, entries: &[(Scope, String)]) -> Result<()> {
        let old = self.read_optional(&self.journal_path()).await?;
        let mut text = old.unwrap_or_default();
        for (scope, rel) in entries {
            let line = encode(*scope, rel);
            if !text.split_inclusive('\n').any(|l| l == line) {
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&line);
            }
        }
        self.write_creating_parent(&self.journal_path(), &text)
            .await
    }

    /// Before a lock file is removed that is not this write's own (a stale lock broken, an
    /// orphan of a dropped write): the journal lines it carries go to the journal file, so a
    /// half-done write it records is repaired under the next lock even if this process stops
    /// first. False when they could not be written: the lock file must then stay.
    pub(crate) async fn keep_journal_of_lock(&self, lock_content: &str) -> bool {
        let entries: Vec<(Scope, String)> = lock_content
            .split('\n')
            .skip(3)
            .filter_map(|l| l.strip_prefix(JOURNAL_PREFIX))
            .filter_map(|l| decode(l).map(|(scope, rel)| (scope, rel.to_owned())))
            .collect();
        entries.is_empty() || self.append_journal(&entries).await.is_ok()
    }

    /// Finish what a killed writer left half done (see the module docs). Must run under the
    /// lock; never fails the caller's write. The journal file goes only once every entry in it
    /// is repaired.
    pub(crate) async fn journal_recover(&self) {
        if let Some(journal) = self.journal_pending().await {
            self.journal_repair(&journal).await;
        }
    }

    /// The first half of [`Store::journal_recover`], which changes nothing a write reads (a
    /// write may run its own first reads alongside): stale temp files swept, and the journal
    /// file's text when there is one to repair.
    pub(crate) async fn journal_pending(&self) -> Option<String> {
        self.sweep_temp_files().await;
        self.read_optional(&self.journal_path())
            .await
            .ok()
            .flatten()
    }

    /// The second half of [`Store::journal_recover`]: repair the entries of `journal` (the
    /// journal file's text), then remove the file.
    pub(crate) async fn journal_repair(&self, journal: &str) {
        for line in journal.split('\n').filter(|l| !l.is_empty()) {
            if let Some((scope, rel)) = decode(line) {
                if !self.repair_entry(scope, rel).await {
                    self.lock_state.journal_unrepaired.set(true);
                    return;
                }
            }
        }
        if !self.lock_state.journal_in_lock.get() {
            let _ = self.bounded(self.fs.remove(&self.journal_path())).await;
        }
    }

    /// Bring the index entry of the memory `rel` of `scope` in line with its file: pointing at
    /// it when it is on disk with a valid header, at nothing otherwise. False when it could not
    /// be done (a read or the write failed).
    async fn repair_entry(&self, scope: Scope, rel: &str) -> bool {
        let path = format!("{}{rel}", self.scope_dir(scope));
        let header = match self.read_optional(&path).await {
            Ok(Some(file)) => Some(parse_frontmatter(&file).header),
            Ok(None) => None,
            Err(_) => return false,
        };
        let Ok(old) = self.read_raw_index(scope).await else {
            return false;
        };
        let new = match header {
            Some(h) if h.name.is_some() && h.memory_type.is_some() => {
                let entry = IndexEntry {
                    title: h.name.unwrap_or_default(),
                    file: rel.to_owned(),
                    hook: h.description.unwrap_or_default(),
                };
                upsert_index_entry(without_cut_append(&old, &entry), &entry)
            }
            _ => remove_index_entry(&old, rel),
        };
        new == old
            || self
                .write_atomic(&self.index_path(scope), &new)
                .await
                .is_ok()
    }
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Remove stale temp files (see the module docs). Must run under the lock; never fails.
    pub(crate) async fn sweep_temp_files(&self) {
        let now = self.clock.now_ms();
        let stale = f64::from(self.config.lock_stale_ms);
        if let Some(last) = self.lock_state.last_sweep_ms.get() {
            if now >= last && now - last < stale {
                return;
            }
        }
        self.lock_state.last_sweep_ms.set(Some(now));
        let root = crate::paths::PathStyle::of_dir(&self.dir).trim_trailing_sep(&self.dir);
        let mut dirs = vec![(root, 0usize)];
        let (mut seen, mut removed) = (0usize, 0u32);
        while let Some((dir, depth)) = dirs.pop() {
            let Ok(entries) = self.bounded(self.fs.read_dir(&dir)).await else {
                continue;
            };
            for entry in entries {
                seen += 1;
                if seen > SWEEP_MAX_ENTRIES {
                    dirs.clear();
                    break;
                }
                let path = format!("{dir}/{}", entry.name);
                match entry.kind {
                    EntryKind::Dir if depth < SWEEP_MAX_DEPTH => dirs.push((path, depth + 1)),
                    EntryKind::File if is_temp_name(&entry.name) => {
                        let Ok(st) = self.bounded(self.fs.stat(&path)).await else {
                            continue;
                        };
                        let old = st.mtime_ms.is_finite() && now - st.mtime_ms > stale;
                        if st.kind == EntryKind::File
                            && old
                            && self.bounded(self.fs.remove(&path)).await.is_ok()
                        {
                            removed += 1;
                        }
                    }
                    _ => {}
                }
            }
        }
        if removed > 0 {
            self.telemetry.emit(
                "memdir_temp_swept",
                &[("removed", FieldValue::Num(f64::from(removed)))],
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_journal_is_a_listed_library_file() {
        let file = crate::library_files::library_file(JOURNAL_FILE_NAME);
        assert_eq!(
            file.map(|f| f.kind),
            Some(crate::library_files::LibraryFileKind::Journal)
        );
    }

    #[test]
    fn a_cut_append_is_taken_off_and_nothing_else() {
        let entry = IndexEntry {
            title: "A".into(),
            file: "a.md".into(),
            hook: "h".into(),
        };
        let line = format_index_entry(&entry);
        let before = "# Index\n- [B](b.md) — x\n";
        // Every cut: part of the line, all of it without its end, with half a CRLF end.
        for cut in (1..=line.len()).filter(|&n| line.is_char_boundary(n)) {
            let torn = format!("{before}{}", &line[..cut]);
            assert_eq!(without_cut_append(&torn, &entry), before, "{torn:?}");
        }
        assert_eq!(
            without_cut_append(&format!("{before}{line}\r"), &entry),
            before
        );
        // Ended lines, another entry's last line, a user's text: kept.
        for kept in [
            before.to_owned(),
            format!("{before}{line}\n"),
            format!("{before}- [B](b.md)"),
            format!("{before}notes"),
            String::new(),
        ] {
            assert_eq!(without_cut_append(&kept, &entry), kept);
        }
        // A cut at the very start of the file.
        assert_eq!(without_cut_append(&line[..3], &entry), "");
    }

    #[test]
    fn temp_names() {
        for yes in [
            "MEMORY.md.tmp-lx2a1b3",
            "a.md.tmp-123-ff09",
            "a.md.tmp-x.tmp-9-ab",
        ] {
            assert!(is_temp_name(yes), "{yes}");
        }
        for no in [
            "a.md",
            "a.tmp-1.md",
            ".tmp-1",
            "a.md.tmp-",
            "a.md.tmp-ABC",
            "notes.txt",
        ] {
            assert!(!is_temp_name(no), "{no}");
        }
    }

    #[test]
    fn journal_lines_round_trip_and_reject_junk() {
        assert_eq!(
            decode(&encode(Scope::Team, "a/b.md")),
            Some((Scope::Team, "a/b.md"))
        );
        assert_eq!(decode("private ../x.md\n"), None);
        assert_eq!(decode("nobody x.md"), None);
        assert_eq!(decode(""), None);
    }
}
