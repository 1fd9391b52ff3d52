//! `MEMORY.md`: reading it as the model gets it, where each scope keeps it,
//! and measuring a new index against the caps before it is written.

use super::contain::{read_escape, ReadRoot, ReadTarget};
use super::types::{IndexView, IndexWarning, Scope};
use super::Store;
use super::TEAM_DIR;
use crate::entrypoint::{loaded_index_size, truncate_entrypoint};
use crate::error::{Code, Error, Result};
use crate::host::{Clock, FieldValue, FileSystem, HostResult, Telemetry};
use crate::types::ENTRYPOINT_NAME;

/// Split a path relative to the memory directory into its scope and the path relative to that
/// scope's directory: `team/x.md` → (Team, `x.md`); `x.md` → (Private, `x.md`).
pub(crate) fn split_scope(file: &str) -> (Scope, &str) {
    match file.strip_prefix(TEAM_DIR) {
        Some(rest) => (Scope::Team, rest),
        None => (Scope::Private, file),
    }
}

/// The path relative to the memory directory of `rel` in `scope`.
pub(crate) fn root_relative(scope: Scope, rel: &str) -> String {
    match scope {
        Scope::Private => rel.to_owned(),
        Scope::Team => format!("{TEAM_DIR}{rel}"),
    }
}

/// How much of an index [`Store::read_index_text`] asks `readHead` for: 2.6 times the default
/// cap of what the model loads (25,000 UTF-16 units), so an index within its caps is read in one
/// read, and one past them costs a second read.
const INDEX_HEAD_BYTES: usize = 64 * 1024;

/// True when a host read error means "there is no index file" (missing, a directory, or a
/// parent that is not a directory), which the reference treats silently.
fn is_absent(e: &crate::error::HostError) -> bool {
    e.is_not_found() || e.has_code("EISDIR") || e.has_code("ENOTDIR")
}

/// The refusal of a write that would rewrite `path`, whose bytes are not valid UTF-8 from
/// byte `at` (see [`Store::check_bytes_intact`]).
pub(crate) fn not_utf8(path: &str, at: usize) -> Error {
    Error::new(
        Code::InvalidMemory,
        format!(
            "{path} is not valid UTF-8 (at byte {at}): rewriting it would replace bytes this \
             write was not asked to change; fix the file or replace it whole"
        ),
    )
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// The directory of a scope (ends with `/`).
    pub(crate) fn scope_dir(&self, scope: Scope) -> String {
        match scope {
            Scope::Private => self.dir.clone(),
            Scope::Team => format!("{}{TEAM_DIR}", self.dir),
        }
    }

    /// The index file of a scope.
    pub(crate) fn index_path(&self, scope: Scope) -> String {
        format!("{}{ENTRYPOINT_NAME}", self.scope_dir(scope))
    }

    /// A scope's raw index text; empty when it does not exist. An index that leads outside
    /// the memory directory through a symlink is `PATH_SYMLINK_ESCAPE` (see [`super::contain`]).
    pub(crate) async fn read_raw_index(&self, scope: Scope) -> Result<String> {
        Ok(self.read_index_optional(scope).await?.unwrap_or_default())
    }

    /// A scope's raw index text, `None` when it does not exist (missing, a directory, or a
    /// parent that is not one); contained like [`Store::read_raw_index`].
    pub(crate) async fn read_index_optional(&self, scope: Scope) -> Result<Option<String>> {
        self.read_index_resolved(&self.index_path(scope), false)
            .await
    }

    /// The index at `path` (a scope's [`Store::index_path`]), its real path and the
    /// directory's resolved together; `by_head`: read through [`Store::read_index_text`] (the
    /// reads for the model; a write reads with `readFile`, whose text it checks and rewrites).
    async fn read_index_resolved(&self, path: &str, by_head: bool) -> Result<Option<String>> {
        let (_, target) = self.read_root_and_target(path).await?;
        self.read_index_target(path, target, by_head).await
    }

    /// [`Store::read_index_optional`] with the operation's [`ReadRoot`].
    pub(super) async fn read_index_in(
        &self,
        root: &ReadRoot,
        scope: Scope,
    ) -> Result<Option<String>> {
        let path = self.index_path(scope);
        let target = self.resolve_read(root, &path).await?;
        self.read_index_target(&path, target, false).await
    }

    /// The read of an index once `path` is resolved to `target`.
    async fn read_index_target(
        &self,
        path: &str,
        target: ReadTarget,
        by_head: bool,
    ) -> Result<Option<String>> {
        let real = match target {
            ReadTarget::Inside(real) => real,
            ReadTarget::Missing => return Ok(None),
            ReadTarget::Outside => {
                self.note_outside("read", 1);
                return Err(read_escape(path));
            }
        };
        let read = match by_head {
            true => self.read_index_text(&real).await,
            false => self.bounded(self.fs.read_file(&real)).await,
        };
        match read {
            Ok(text) => Ok(Some(text)),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(super::deadline::fs_error("read", path, e)),
        }
    }

    /// The text of the index file at `real` (its resolved path). With the host's `readHead`, an
    /// index shorter than [`INDEX_HEAD_BYTES`] is read whole in one read (open, read, close) and
    /// crosses as bytes, decoded here as `readFile` decodes (invalid UTF-8 as U+FFFD), rather
    /// than decoded to a string by the host and encoded back on the way in; a longer one, or a
    /// host without `readHead`, is read with `readFile`.
    async fn read_index_text(&self, real: &str) -> HostResult<String> {
        if self.fs.capabilities().read_head {
            let bytes = self
                .bounded(self.fs.read_head(real, INDEX_HEAD_BYTES))
                .await?;
            // Fewer bytes than asked for: the whole file (`FileSystem::read_head`).
            if bytes.len() < INDEX_HEAD_BYTES {
                return Ok(String::from_utf8(bytes)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()));
            }
        }
        self.bounded(self.fs.read_file(real)).await
    }

    /// [`Store::read_raw_index`] for a write that rewrites the index: refused (see
    /// [`Store::check_bytes_intact`]) when the file is not valid UTF-8, since writing the decoded
    /// text back would replace bytes of entries the write was not asked to change.
    pub(crate) async fn read_index_for_write(&self, scope: Scope) -> Result<String> {
        let text = self.read_raw_index(scope).await?;
        self.check_bytes_intact(&self.index_path(scope), &text)
            .await?;
        Ok(text)
    }

    /// Before a write replaces a file with an edit of `text` (the file as `read_file` decoded
    /// it): when `text` holds U+FFFD and the host can read bytes (`readHead`), the file's bytes
    /// must be valid UTF-8; otherwise the decoder replaced some, and the write would destroy
    /// them, so it is refused with `INVALID_MEMORY`. Reads for the model stay lossy. A host
    /// without `readHead` cannot tell a replaced byte from a real U+FFFD, and is not checked.
    pub(crate) async fn check_bytes_intact(&self, path: &str, text: &str) -> Result<()> {
        if !text.contains('\u{FFFD}') || !self.fs.capabilities().read_head {
            return Ok(());
        }
        // The decoded text is at least as long as the bytes (each replaced run of 1–3 bytes
        // becomes 3), give or take a byte-order mark the host's decoder dropped.
        let want = text.len() + 8;
        let bytes = self
            .fs
            .read_head(path, want)
            .await
            .map_err(|e| Error::fs("read", path, e))?;
        match std::str::from_utf8(&bytes) {
            Ok(_) => Ok(()),
            // Cut inside a character by the length limit: nothing invalid was seen.
            Err(e) if e.error_len().is_none() && bytes.len() >= want => Ok(()),
            Err(e) => Err(not_utf8(path, e.valid_up_to())),
        }
    }

    /// `MEMORY.md` as the model gets it: frontmatter and block HTML comments stripped, then the
    /// line and size caps of the configuration applied (with the warning appended when cut).
    /// A missing index (or a directory in its place) gives an empty view with `exists: false`;
    /// an index that is a symlink leading outside the memory directory is refused with
    /// `PATH_SYMLINK_ESCAPE`; other read failures (e.g. `EACCES`) are errors carrying the
    /// host's error as `cause`.
    pub async fn read_index(&self) -> Result<IndexView> {
        self.read_index_of(Scope::Private).await
    }

    /// The raw text of a scope's index for a read that serves the model (the memory prompt):
    /// contained as [`Store::read_index`] reads it, through one `readHead` when the host has
    /// it; `None` when there is none.
    pub(crate) async fn read_index_raw_for_model(&self, scope: Scope) -> Result<Option<String>> {
        self.read_index_resolved(&self.index_path(scope), true)
            .await
    }

    /// [`Store::read_index`] for a scope (`team/MEMORY.md` for [`Scope::Team`]).
    pub async fn read_index_of(&self, scope: Scope) -> Result<IndexView> {
        let path = self.index_path(scope);
        let Some(raw) = self.read_index_resolved(&path, true).await? else {
            return Ok(IndexView {
                path,
                exists: false,
                content: String::new(),
                line_count: 0,
                byte_count: 0,
                was_line_truncated: false,
                was_byte_truncated: false,
            });
        };
        let prepared = crate::entrypoint::index_for_model(&raw);
        let t = truncate_entrypoint(&prepared, &self.config.index_caps);
        Ok(IndexView {
            path,
            exists: true,
            content: t.content,
            line_count: t.line_count,
            byte_count: t.byte_count,
            was_line_truncated: t.was_line_truncated,
            was_byte_truncated: t.was_byte_truncated,
        })
    }

    /// Measure a new index text against the caps, counting only what the model loads
    /// (frontmatter and block HTML comments left out, as the reference counts since 2.1.211);
    /// when it is over, emit `memdir_index_over_cap` (before anything is written) and return the
    /// warning.
    pub(crate) fn measure_index(&self, scope: Scope, text: &str) -> Option<IndexWarning> {
        let t = loaded_index_size(text, &self.config.index_caps);
        if !t.was_line_truncated && !t.was_unit_truncated {
            return None;
        }
        let scope_name = match scope {
            Scope::Private => "private",
            Scope::Team => "team",
        };
        self.telemetry.emit(
            "memdir_index_over_cap",
            &[
                ("scope", FieldValue::Str(scope_name.to_owned())),
                ("line_count", FieldValue::Num(t.line_count as f64)),
                ("byte_count", FieldValue::Num(t.unit_count as f64)),
                ("was_line_truncated", FieldValue::Bool(t.was_line_truncated)),
                ("was_byte_truncated", FieldValue::Bool(t.was_unit_truncated)),
            ],
        );
        Some(IndexWarning {
            line_count: t.line_count,
            byte_count: t.unit_count,
            was_line_truncated: t.was_line_truncated,
            was_byte_truncated: t.was_unit_truncated,
        })
    }

    /// The refusal of a write that leaves the index (measured in `warning`, replacing `old`)
    /// over its caps,
    /// unless the store is set to warn ([`super::IndexOverCap::Warn`]) or the write does not
    /// make the loaded index any longer (so an index that is already over its caps can still
    /// be shortened entry by entry).
    pub(crate) fn over_cap_refusal(&self, old: &str, warning: &IndexWarning) -> Option<Error> {
        if self.config.index_over_cap == super::IndexOverCap::Warn {
            return None;
        }
        let before = loaded_index_size(old, &self.config.index_caps);
        if warning.line_count <= before.line_count && warning.byte_count <= before.unit_count {
            return None;
        }
        let caps = &self.config.index_caps;
        Some(Error::new(
            Code::IndexOverCap,
            format!(
                "MEMORY.md would be {} lines and {} (limits: {} lines, {}): the model would \
                 not see its end. Nothing was written. Shorten index entries or consolidate \
                 memories first (or set store.indexOverCap to \"warn\").",
                warning.line_count,
                crate::format_file_size(warning.byte_count as f64),
                caps.max_lines,
                crate::format_file_size(caps.max_units as f64),
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::INDEX_HEAD_BYTES;
    use crate::future::block_on;
    use crate::host::FsCapabilities;
    use crate::store::{Store, StoreConfig, WriteMode};
    use crate::test_host::{FixedClock, FsOp, HookedFs};
    use crate::{Code, FileSystem, HostError, MemFs, NoTelemetry};

    type TestStore = Store<HookedFs, FixedClock, NoTelemetry>;

    /// A `MemFs` holding `files`, with or without the host's `readHead`.
    fn host(files: &[(&str, &[u8])], read_head: bool) -> HookedFs {
        let inner = MemFs::new();
        for (path, data) in files {
            inner.insert_file(path, data);
        }
        let caps = FsCapabilities {
            read_head,
            ..FsCapabilities::default()
        };
        HookedFs::new(inner, caps)
    }

    /// A store of `/m/` over `fs`.
    fn store_over(fs: HookedFs) -> TestStore {
        Store::new(
            fs,
            FixedClock(1.7e12),
            NoTelemetry,
            "/m/",
            WriteMode::Auto,
            StoreConfig::default(),
        )
    }

    /// A store over a `MemFs` holding `files`, with or without the host's `readHead`.
    fn store(files: &[(&str, &[u8])], read_head: bool) -> TestStore {
        store_over(host(files, read_head))
    }

    fn reads(s: &TestStore) -> Vec<FsOp> {
        let calls = s.fs().calls_of(&[FsOp::ReadFile, FsOp::ReadHead]);
        calls.into_iter().map(|(op, _)| op).collect()
    }

    /// An index of about `bytes` bytes: frontmatter, a comment, entries with non-ASCII hooks.
    fn index_of(bytes: usize) -> Vec<u8> {
        let mut text = b"\xEF\xBB\xBF---\ntitle: x\n---\n<!-- note -->\n".to_vec();
        let mut i = 0;
        while text.len() < bytes {
            text.extend(format!("- [T{i}](t{i}.md) \u{2014} hook {i} \u{1F980}\n").bytes());
            i += 1;
        }
        text.truncate(bytes);
        text
    }

    #[test]
    fn read_index_reads_once_through_read_head_and_answers_as_read_file_does() {
        let invalid =
            b"- [A](a.md) \xFF\xC3 broken \xE2\x82 bytes\n- [B](b.md) \xF0\x9F\xA6 cut".to_vec();
        let cases = [
            ("short, invalid UTF-8", invalid, vec![FsOp::ReadHead]),
            ("25 KB", index_of(25_000), vec![FsOp::ReadHead]),
            (
                "one byte under",
                index_of(INDEX_HEAD_BYTES - 1),
                vec![FsOp::ReadHead],
            ),
            // As long as the head read, or longer: read again whole.
            (
                "exactly the head",
                index_of(INDEX_HEAD_BYTES),
                vec![FsOp::ReadHead, FsOp::ReadFile],
            ),
            (
                "1 MiB",
                index_of(1 << 20),
                vec![FsOp::ReadHead, FsOp::ReadFile],
            ),
            ("empty", vec![], vec![FsOp::ReadHead]),
        ];
        for (label, bytes, expected_reads) in cases {
            let files: [(&str, &[u8]); 1] = [("/m/MEMORY.md", &bytes)];
            let (with, without) = (store(&files, true), store(&files, false));
            let view = block_on(with.read_index()).unwrap();
            assert_eq!(view, block_on(without.read_index()).unwrap(), "{label}");
            assert!(view.exists, "{label}");
            assert_eq!(reads(&with), expected_reads, "{label}");
            assert_eq!(reads(&without), [FsOp::ReadFile], "{label}");
            // The text the model gets is what `readFile` gives, prepared and cut.
            let text = block_on(without.fs().inner.read_file("/m/MEMORY.md")).unwrap();
            let prepared = crate::entrypoint::prepare_index_for_model(&text);
            let cut = crate::truncate_entrypoint(&prepared, &Default::default());
            assert_eq!(view.content, cut.content, "{label}");
            assert_eq!(view.line_count, cut.line_count, "{label}");
        }
    }

    /// A host with `readHead` and `realpath` over `inner`.
    fn resolving(inner: MemFs) -> HookedFs {
        let caps = FsCapabilities {
            read_head: true,
            realpath: true,
            ..FsCapabilities::default()
        };
        HookedFs::new(inner, caps)
    }

    #[test]
    fn read_index_asks_both_real_paths_at_once_and_stays_contained() {
        let inner = MemFs::new();
        inner.insert_file("/m/MEMORY.md", "- [A](a.md) \u{2014} x\n");
        let s = store_over(resolving(inner));
        let view = block_on(s.read_index()).unwrap();
        assert!(view.exists && view.content.starts_with("- [A]"), "{view:?}");
        // Both asked before either answered, the directory's first; then the file by its real path.
        let ops = [FsOp::Realpath, FsOp::RealpathDone, FsOp::ReadHead];
        let calls = s.fs().calls_of(&ops);
        assert_eq!(
            calls,
            [
                (FsOp::Realpath, "/m".to_owned()),
                (FsOp::Realpath, "/m/MEMORY.md".to_owned()),
                (FsOp::RealpathDone, "/m".to_owned()),
                (FsOp::RealpathDone, "/m/MEMORY.md".to_owned()),
                (FsOp::ReadHead, "/m/MEMORY.md".to_owned()),
            ]
        );

        // A MEMORY.md that is a link out is refused, and the file it leads to is not read.
        let inner = MemFs::new();
        inner.insert_file("/m/a.md", "a");
        inner.insert_file("/home/u/secret", "token");
        inner.symlink("/home/u/secret", "/m/MEMORY.md");
        let s = store_over(resolving(inner));
        let err = block_on(s.read_index()).unwrap_err();
        assert_eq!(err.code, Code::PathSymlinkEscape, "{err:?}");
        assert_eq!(s.fs().count(&[FsOp::ReadHead, FsOp::ReadFile]), 0);
        // The same for the index read before a write.
        let err = block_on(s.read_raw_index(super::Scope::Private)).unwrap_err();
        assert_eq!(err.code, Code::PathSymlinkEscape, "{err:?}");

        // A link that stays inside is read at its real path.
        let inner = MemFs::new();
        inner.insert_file("/m/sub/real.md", "- [B](b.md) \u{2014} y\n");
        inner.symlink("/m/sub/real.md", "/m/MEMORY.md");
        let s = store_over(resolving(inner));
        assert!(block_on(s.read_index())
            .unwrap()
            .content
            .starts_with("- [B]"));
        assert_eq!(
            s.fs().calls_of(&[FsOp::ReadHead]),
            [(FsOp::ReadHead, "/m/sub/real.md".to_owned())]
        );

        // No directory: no index (whatever the file's real path said).
        let s = store_over(resolving(MemFs::new()));
        assert!(!block_on(s.read_index()).unwrap().exists);

        // The directory's real path cannot be told: refused as unverifiable, before the file's
        // own answer (here a refusal too) is looked at.
        let inner = MemFs::new();
        inner.insert_file("/m/MEMORY.md", "x\n");
        let s = store_over(resolving(inner).refusing(|op, path| match (op, path) {
            (FsOp::Realpath, "/m") => Err(HostError::new(Some("EACCES"), "denied")),
            (FsOp::Realpath, _) => Err(HostError::new(Some("ELOOP"), "loop")),
            _ => Ok(()),
        }));
        assert_eq!(
            block_on(s.read_index()).unwrap_err().code,
            Code::PathUnverifiable
        );
        // The file's real path in a loop: its own code.
        let inner = MemFs::new();
        inner.insert_file("/m/MEMORY.md", "x\n");
        let s = store_over(resolving(inner).refusing(|op, path| match (op, path) {
            (FsOp::Realpath, "/m/MEMORY.md") => Err(HostError::new(Some("ELOOP"), "loop")),
            _ => Ok(()),
        }));
        assert_eq!(
            block_on(s.read_index()).unwrap_err().code,
            Code::PathSymlinkLoop
        );
    }

    #[test]
    fn read_index_through_read_head_keeps_absence_and_errors() {
        // Missing, or a directory in its place: no index, on both routes.
        for files in [vec![], vec![("/m/MEMORY.md/x.md", b"x".as_slice())]] {
            for read_head in [true, false] {
                let view = block_on(store(&files, read_head).read_index()).unwrap();
                assert!(
                    !view.exists && view.content.is_empty(),
                    "{files:?} {read_head}"
                );
            }
        }
        // A refused read is an error carrying the host's, whichever method was refused.
        let fs = host(
            &[("/m/MEMORY.md", "- [A](a.md) \u{2014} x\n".as_bytes())],
            true,
        )
        .refusing(|op, _| match op {
            FsOp::ReadHead => Err(HostError::new(Some("EACCES"), "denied")),
            _ => Ok(()),
        });
        let refused = store_over(fs);
        let err = block_on(refused.read_index()).unwrap_err();
        assert_eq!(err.code, Code::HostFs, "{err:?}");
        assert!(err.message.contains("MEMORY.md"), "{err:?}");
    }
}
