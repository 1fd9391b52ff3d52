//! `store::LIBRARY_FILES` names every file the library keeps in a memory directory: the names
//! the features write under are all in it, with the kind the consumers of the list rely on
//! (an export leaves out exactly the caches).

use memdir::consolidate::{CONSOLIDATE_LOCK_NAME, UNDO_JOURNAL_NAME};
use memdir::recall::index_cache::INDEX_CACHE_NAME;
use memdir::recall::semantic::SIDECAR_NAME;
use memdir::store::{library_file, LibraryFileKind, LIBRARY_FILES, LOCK_FILE_NAME};

#[test]
fn every_feature_file_is_in_the_list_with_its_kind() {
    let expected = [
        (LOCK_FILE_NAME, LibraryFileKind::Lock),
        (CONSOLIDATE_LOCK_NAME, LibraryFileKind::Lock),
        (UNDO_JOURNAL_NAME, LibraryFileKind::Journal),
        (SIDECAR_NAME, LibraryFileKind::Cache),
        (INDEX_CACHE_NAME, LibraryFileKind::Cache),
    ];
    for (name, kind) in expected {
        assert_eq!(library_file(name).map(|f| f.kind), Some(kind), "{name}");
    }
}

#[test]
fn names_are_distinct_hidden_and_never_markdown() {
    for (i, file) in LIBRARY_FILES.iter().enumerate() {
        assert!(file.name.starts_with('.'), "{}", file.name);
        assert!(
            !file.name.to_ascii_lowercase().ends_with(".md"),
            "{}",
            file.name
        );
        assert!(
            LIBRARY_FILES[i + 1..]
                .iter()
                .all(|other| !other.name.eq_ignore_ascii_case(file.name)),
            "{}",
            file.name
        );
    }
}
