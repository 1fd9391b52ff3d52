//! Team keys and symlink containment (reference §9, §17), over `MemFs` and over a real
//! temporary directory through a `std::fs`-backed `FileSystem`.

mod common;

use common::std_fs::{StdFs, TempDir};
use common::{block_on, Op, Tap};
use memdir::path_key::{is_team_path, validate_team_key, validate_team_write_path};
use memdir::{Code, FileSystem, FsCapabilities, MemFs};

fn code_of<F: FileSystem>(fs: &F, team: &str, key: &str) -> Result<String, (Code, String)> {
    block_on(validate_team_key(fs, team, key)).map_err(|e| (e.code, e.message.clone()))
}

#[test]
fn reference_vectors_over_memfs() {
    let fs = MemFs::new();
    fs.insert_file("/m/team/MEMORY.md", "");
    let team = "/m/team/";
    assert_eq!(code_of(&fs, team, "a/b.md").unwrap(), "/m/team/a/b.md");
    let cases = [
        (
            "../x",
            Code::PathEscapes,
            "Key escapes team memory directory: \"../x\"",
        ),
        (
            "",
            Code::PathEscapes,
            "Key escapes team memory directory: \"\"",
        ),
        (
            ".",
            Code::PathEscapes,
            "Key escapes team memory directory: \".\"",
        ),
        (
            "a/../../x",
            Code::PathEscapes,
            "Key escapes team memory directory: \"a/../../x\"",
        ),
        (
            "%2e%2e%2fx",
            Code::PathUrlEncodedTraversal,
            "URL-encoded traversal in path key: \"%2e%2e%2fx\"",
        ),
        (
            "a\\b",
            Code::PathBackslash,
            "Backslash in path key: \"a\\b\"",
        ),
        ("/abs", Code::PathAbsolute, "Absolute path key: \"/abs\""),
        (
            "．．／x",
            Code::PathUnicodeTraversal,
            "Unicode-normalized traversal in path key: \"．．／x\"",
        ),
        ("a\0", Code::PathNullByte, "Null byte in path key: \"a\0\""),
    ];
    for (key, code, message) in cases {
        assert_eq!(
            code_of(&fs, team, key),
            Err((code, message.to_owned())),
            "{key:?}"
        );
    }
    // A team directory given without its trailing separator behaves the same.
    assert_eq!(code_of(&fs, "/m/team", "x.md").unwrap(), "/m/team/x.md");
    assert_eq!(
        code_of(&fs, "/m/team", "../team2/x").unwrap_err().0,
        Code::PathEscapes
    );
}

#[test]
fn symlinks_over_memfs() {
    let fs = MemFs::new();
    fs.insert_file("/m/team/MEMORY.md", "");
    fs.insert_file("/secret/passwd", "root");
    fs.insert_file("/m/team/sub/a.md", "");
    fs.symlink("/secret", "/m/team/out");
    fs.symlink("../../secret/passwd", "/m/team/rel-out.md");
    fs.symlink("/m/team/sub", "/m/team/alias");
    fs.symlink("/nowhere/at/all", "/m/team/dangling");
    fs.symlink("/m/team/loop-b", "/m/team/loop-a");
    fs.symlink("/m/team/loop-a", "/m/team/loop-b");
    let team = "/m/team/";

    let escape = code_of(&fs, team, "out/passwd").unwrap_err();
    assert_eq!(escape.0, Code::PathSymlinkEscape);
    assert_eq!(
        escape.1,
        "Key escapes team memory directory via symlink: \"out/passwd\""
    );
    assert_eq!(
        code_of(&fs, team, "out/new.md").unwrap_err().0,
        Code::PathSymlinkEscape
    );
    assert_eq!(
        code_of(&fs, team, "rel-out.md").unwrap_err().0,
        Code::PathSymlinkEscape
    );
    // A symlink that stays inside is fine, and the lexical path is what comes back.
    assert_eq!(
        code_of(&fs, team, "alias/b.md").unwrap(),
        "/m/team/alias/b.md"
    );

    let dangling = code_of(&fs, team, "dangling").unwrap_err();
    assert_eq!(dangling.0, Code::PathDanglingSymlink);
    assert_eq!(
        dangling.1,
        "Dangling symlink detected (target does not exist): \"/m/team/dangling\""
    );
    assert_eq!(
        code_of(&fs, team, "dangling/x.md").unwrap_err().0,
        Code::PathDanglingSymlink
    );

    let looped = code_of(&fs, team, "loop-a/x.md").unwrap_err();
    assert_eq!(looped.0, Code::PathSymlinkLoop);
    assert!(looped
        .1
        .starts_with("Symlink loop detected in path: \"/m/team/loop-a"));

    // A team directory that is itself a symlink: its real location is the reference point.
    fs.insert_file("/data/team/MEMORY.md", "");
    fs.symlink("/data/team", "/n/team");
    assert_eq!(code_of(&fs, "/n/team/", "k.md").unwrap(), "/n/team/k.md");
    // A team directory that does not exist yet cannot be escaped through.
    assert_eq!(
        code_of(&fs, "/fresh/team/", "k.md").unwrap(),
        "/fresh/team/k.md"
    );
}

#[test]
fn unknown_host_errors_fail_closed() {
    // Every realpath fails with a code the check does not know: it must refuse, not guess.
    let mut fs = Tap::new(Box::new(MemFs::new()));
    fs.denied = vec![Op::Realpath];
    let err = block_on(validate_team_key(&fs, "/m/team/", "a.md")).unwrap_err();
    assert_eq!(err.code, Code::PathUnverifiable);
    assert_eq!(
        err.message,
        "Cannot verify path containment (EACCES): \"/m/team/a.md\""
    );
    assert_eq!(err.cause.clone().unwrap().code.as_deref(), Some("EACCES"));
}

#[test]
fn write_paths_and_lexical_membership() {
    let fs = MemFs::new();
    fs.insert_file("/outside/x", "");
    fs.symlink("/outside", "/m/team/link");
    let ok = block_on(validate_team_write_path(&fs, "/m/team/", "/m/team/a/b.md")).unwrap();
    assert_eq!(ok, "/m/team/a/b.md");
    let err = block_on(validate_team_write_path(&fs, "/m/team/", "/m/team/link/y")).unwrap_err();
    assert_eq!(err.code, Code::PathSymlinkEscape);
    assert_eq!(
        err.message,
        "Path escapes team memory directory via symlink: \"/m/team/link/y\""
    );
    let err = block_on(validate_team_write_path(&fs, "/m/team/", "/m/team/\0")).unwrap_err();
    assert_eq!(err.code, Code::PathNullByte);
    assert!(is_team_path("/m/team/", "/m/team/x/../y.md"));
    assert!(!is_team_path("/m/team/", "/m/team"));
}

#[test]
fn real_directory_through_std_fs() {
    let tmp = TempDir::new("team-keys");
    let team = tmp.abs("memory/team/");
    std::fs::create_dir_all(tmp.abs("memory/team/sub")).unwrap();
    std::fs::create_dir_all(tmp.abs("elsewhere")).unwrap();
    std::fs::write(tmp.abs("elsewhere/secret.md"), "x").unwrap();
    std::os::unix::fs::symlink(tmp.abs("elsewhere"), tmp.abs("memory/team/out")).unwrap();
    std::os::unix::fs::symlink(tmp.abs("memory/team/sub"), tmp.abs("memory/team/in")).unwrap();
    std::os::unix::fs::symlink(tmp.abs("gone"), tmp.abs("memory/team/dangling")).unwrap();
    std::os::unix::fs::symlink(tmp.abs("memory/team/l2"), tmp.abs("memory/team/l1")).unwrap();
    std::os::unix::fs::symlink(tmp.abs("memory/team/l1"), tmp.abs("memory/team/l2")).unwrap();
    let fs = StdFs::with_caps(FsCapabilities {
        realpath: true,
        lstat: true,
        ..FsCapabilities::default()
    });

    assert_eq!(
        code_of(&fs, &team, "a/b.md").unwrap(),
        tmp.abs("memory/team/a/b.md")
    );
    assert_eq!(
        code_of(&fs, &team, "in/new.md").unwrap(),
        tmp.abs("memory/team/in/new.md")
    );
    assert_eq!(
        code_of(&fs, &team, "../x").unwrap_err().0,
        Code::PathEscapes
    );
    assert_eq!(
        code_of(&fs, &team, "out/secret.md").unwrap_err().0,
        Code::PathSymlinkEscape
    );
    assert_eq!(
        code_of(&fs, &team, "out/new.md").unwrap_err().0,
        Code::PathSymlinkEscape
    );
    let dangling = code_of(&fs, &team, "dangling/x.md").unwrap_err();
    assert_eq!(dangling.0, Code::PathDanglingSymlink);
    assert!(
        dangling.1.ends_with("/memory/team/dangling\""),
        "{}",
        dangling.1
    );
    assert_eq!(
        code_of(&fs, &team, "l1/x.md").unwrap_err().0,
        Code::PathSymlinkLoop
    );
    assert_eq!(
        code_of(&fs, &team, "l1").unwrap_err().0,
        Code::PathSymlinkLoop
    );
}

#[test]
fn vertical_presentation_dots_are_traversal_too() {
    for key in ["a\u{FE30}/x.md", "\u{FE30}\u{FF0F}x", "\u{FE19}/x"] {
        let err = memdir::path_key::sanitize_path_key(key).unwrap_err();
        assert_eq!(err.code, memdir::Code::PathUnicodeTraversal, "{key}");
    }
}
