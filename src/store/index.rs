//! `MEMORY.md`: reading it as the model gets it, where each scope keeps it,
//! and measuring a new index against the caps before it is written.

use super::contain::{read_escape, ReadRoot, ReadTarget};
use super::types::{IndexView, IndexWarning, Scope};
use super::Store;
use super::TEAM_DIR;
use crate::entrypoint::{load_index_for_model, truncate_entrypoint};
use crate::error::{Code, Error, Result};
use crate::host::{Clock, FieldValue, FileSystem, Telemetry};
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

/// True when a host read error means "there is no index file" (missing, a directory, or a
/// parent that is not a directory), which the reference treats silently.
fn is_absent(e: &crate::error::HostError) -> bool {
    e.is_not_found() || e.has_code("EISDIR") || e.has_code("ENOTDIR")
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
        let root = self.read_root().await?;
        self.read_index_in(&root, scope).await
    }

    /// [`Store::read_index_optional`] with the operation's [`ReadRoot`].
    pub(super) async fn read_index_in(
        &self,
        root: &ReadRoot,
        scope: Scope,
    ) -> Result<Option<String>> {
        let path = self.index_path(scope);
        let real = match self.resolve_read(root, &path).await? {
            ReadTarget::Inside(real) => real,
            ReadTarget::Missing => return Ok(None),
            ReadTarget::Outside => {
                self.note_outside("read", 1);
                return Err(read_escape(&path));
            }
        };
        match self.bounded(self.fs.read_file(&real)).await {
            Ok(text) => Ok(Some(text)),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(super::deadline::fs_error("read", &path, e)),
        }
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
            Err(e) => Err(Error::new(
                Code::InvalidMemory,
                format!(
                    "{path} is not valid UTF-8 (at byte {}): rewriting it would replace bytes \
                     this write was not asked to change; fix the file or replace it whole",
                    e.valid_up_to()
                ),
            )),
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

    /// [`Store::read_index`] for a scope (`team/MEMORY.md` for [`Scope::Team`]).
    pub async fn read_index_of(&self, scope: Scope) -> Result<IndexView> {
        let path = self.index_path(scope);
        let Some(raw) = self.read_index_optional(scope).await? else {
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
        let prepared = crate::entrypoint::prepare_index_for_model(&raw);
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
        let t = load_index_for_model(text, &self.config.index_caps);
        if !t.was_line_truncated && !t.was_byte_truncated {
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
                ("byte_count", FieldValue::Num(t.byte_count as f64)),
                ("was_line_truncated", FieldValue::Bool(t.was_line_truncated)),
                ("was_byte_truncated", FieldValue::Bool(t.was_byte_truncated)),
            ],
        );
        Some(IndexWarning {
            line_count: t.line_count,
            byte_count: t.byte_count,
            was_line_truncated: t.was_line_truncated,
            was_byte_truncated: t.was_byte_truncated,
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
        let before = load_index_for_model(old, &self.config.index_caps);
        if warning.line_count <= before.line_count && warning.byte_count <= before.byte_count {
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
