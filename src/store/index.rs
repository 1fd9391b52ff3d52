//! `MEMORY.md`: reading it as the model gets it (reference §3.2), where each scope keeps it,
//! and measuring a new index against the caps before it is written.

use super::types::{IndexView, IndexWarning, Scope};
use super::Store;
use super::TEAM_DIR;
use crate::entrypoint::truncate_entrypoint;
use crate::error::{Error, Result};
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

    /// A scope's raw index text; empty when it does not exist.
    pub(crate) async fn read_raw_index(&self, scope: Scope) -> Result<String> {
        let path = self.index_path(scope);
        match self.bounded(self.fs.read_file(&path)).await {
            Ok(text) => Ok(text),
            Err(e) if is_absent(&e) => Ok(String::new()),
            Err(e) => Err(super::deadline::fs_error("read", &path, e)),
        }
    }

    /// `MEMORY.md` as the model gets it: frontmatter and block HTML comments stripped, then the
    /// line and size caps of the configuration applied (with the warning appended when cut).
    /// A missing index (or a directory in its place) gives an empty view with `exists: false`;
    /// other read failures (e.g. `EACCES`) are errors carrying the host's error as `cause`.
    pub async fn read_index(&self) -> Result<IndexView> {
        self.read_index_of(Scope::Private).await
    }

    /// [`Store::read_index`] for a scope (`team/MEMORY.md` for [`Scope::Team`]).
    pub async fn read_index_of(&self, scope: Scope) -> Result<IndexView> {
        let path = self.index_path(scope);
        let raw = match self.fs.read_file(&path).await {
            Ok(text) => text,
            Err(e) if is_absent(&e) => {
                return Ok(IndexView {
                    path,
                    exists: false,
                    content: String::new(),
                    line_count: 0,
                    byte_count: 0,
                    was_line_truncated: false,
                    was_byte_truncated: false,
                })
            }
            Err(e) => return Err(Error::fs("read", &path, e)),
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

    /// Measure a new index text against the caps; when it is over, emit
    /// `memdir_index_over_cap` (before anything is written) and return the warning.
    pub(crate) fn measure_index(&self, scope: Scope, text: &str) -> Option<IndexWarning> {
        let t = truncate_entrypoint(text, &self.config.index_caps);
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
}
