//! The files the library keeps in a memory directory for itself, next to the memories and
//! `MEMORY.md`: one list, so the memory tool refuses them, recall's change watch ignores them
//! and an export can leave the caches out, all from the same names. Claude Code ignores them
//! (none ends in `.md`).

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
/// from here (`store::LOCK_FILE_NAME`, `recall::semantic::SIDECAR_NAME`, …); a test checks the
/// two agree.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stores_own_files_are_listed() {
        for name in [
            super::super::LOCK_FILE_NAME,
            super::super::journal::JOURNAL_FILE_NAME,
        ] {
            assert!(library_file(name).is_some(), "{name}");
        }
    }
}
