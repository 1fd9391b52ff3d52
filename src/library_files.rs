//! The files the library keeps in a memory directory for itself, next to the memories and
//! `MEMORY.md`: one list, so the memory tool refuses them, recall's change watch ignores them
//! and an export can leave the caches out, all from the same names. Claude Code ignores them
//! (none ends in `.md`). Pure: the recall index's change filter uses it below the store, which
//! re-exports it (`store::LIBRARY_FILES`).

/// What a library file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LibraryFileKind {
    /// A lock (the directory's write lock, the consolidation lock).
    Lock,
    /// A record of an operation in flight or done, kept so it can be finished or undone.
    Journal,
    /// Derived data recall rebuilds whenever it is missing or stale (vectors, the index).
    Cache,
}

/// One file the library keeps in the memory directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LibraryFile {
    /// Its name, directly in the memory directory.
    pub name: &'static str,
    /// What it is for.
    pub kind: LibraryFileKind,
}

/// Every file the library keeps in a memory directory. The features that own them name them
/// from here (`store::LOCK_FILE_NAME`, `recall::semantic::SIDECAR_NAME`, …);
/// `tests/library_files.rs` checks the two agree.
///
/// ```
/// use memdir::store::{LibraryFileKind, LIBRARY_FILES};
/// let caches: Vec<&str> = LIBRARY_FILES
///     .iter()
///     .filter(|f| f.kind == LibraryFileKind::Cache)
///     .map(|f| f.name)
///     .collect();
/// assert_eq!(caches, [".memdir-vectors", ".memdir-index"]);
/// ```
pub const LIBRARY_FILES: [LibraryFile; 6] = [
    LibraryFile {
        name: ".memdir.lock",
        kind: LibraryFileKind::Lock,
    },
    LibraryFile {
        name: ".consolidate-lock",
        kind: LibraryFileKind::Lock,
    },
    LibraryFile {
        name: ".memdir-journal",
        kind: LibraryFileKind::Journal,
    },
    LibraryFile {
        name: ".memdir-undo.json",
        kind: LibraryFileKind::Journal,
    },
    LibraryFile {
        name: ".memdir-vectors",
        kind: LibraryFileKind::Cache,
    },
    LibraryFile {
        name: ".memdir-index",
        kind: LibraryFileKind::Cache,
    },
];

/// The library file called `name` (ASCII case ignored: on a case-insensitive filesystem
/// `.MEMDIR.LOCK` is the lock), if any.
///
/// ```
/// use memdir::store::{library_file, LibraryFileKind};
/// assert_eq!(library_file(".MEMDIR.LOCK").map(|f| f.kind), Some(LibraryFileKind::Lock));
/// assert_eq!(library_file("notes.md"), None);
/// ```
pub fn library_file(name: &str) -> Option<&'static LibraryFile> {
    LIBRARY_FILES
        .iter()
        .find(|f| f.name.eq_ignore_ascii_case(name))
}

/// What marks the temp file of an atomic write (`MEMORY.md.tmp-<id>`): the store writes one
/// next to a file, then renames it over the file.
pub const TEMP_MARK: &str = ".tmp-";

/// The library file `name` is, or is an atomic write's temp file of (`.memdir-index.tmp-<id>`,
/// see [`TEMP_MARK`]), if any.
///
/// ```
/// use memdir::store::library_file_or_its_temp;
/// assert!(library_file_or_its_temp(".memdir-index.tmp-3f2a").is_some());
/// assert!(library_file_or_its_temp("MEMORY.md.tmp-3f2a").is_none());
/// ```
pub fn library_file_or_its_temp(name: &str) -> Option<&'static LibraryFile> {
    let base = name
        .find(TEMP_MARK)
        .and_then(|at| name.get(..at))
        .unwrap_or(name);
    library_file(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_files_are_told_from_their_target() {
        assert_eq!(
            library_file_or_its_temp(".memdir.lock.tmp-1").map(|f| f.name),
            Some(".memdir.lock")
        );
        assert!(library_file_or_its_temp(".memdir.lock").is_some());
        assert!(library_file_or_its_temp("notes.md").is_none());
        assert!(library_file_or_its_temp(".tmp-").is_none());
    }
}
