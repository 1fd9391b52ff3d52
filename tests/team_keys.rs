//! Team keys and symlink containment (reference §9, §17), over `MemFs` and over a real
//! temporary directory through a `std::fs`-backed `FileSystem`.

mod common;

use common::block_on;
use memdir::host::HostResult;
use memdir::path_key::{is_team_path, validate_team_key, validate_team_write_path};
use memdir::{Code, DirEntry, EntryKind, FileStat, FileSystem, FsCapabilities, HostError, MemFs};
use std::io;
use std::path::PathBuf;

/// A `FileSystem` over the real disk, with Linux error codes.
struct StdFs;

fn host_err(e: io::Error) -> HostError {
    let code = match e.raw_os_error() {
        Some(2) => "ENOENT",
        Some(13) => "EACCES",
        Some(20) => "ENOTDIR",
        Some(21) => "EISDIR",
        Some(36) => "ENAMETOOLONG",
        Some(40) => "ELOOP",
        _ if e.kind() == io::ErrorKind::NotFound => "ENOENT",
        _ => "EIO",
    };
    HostError::new(Some(code), e.to_string())
}

fn kind_of(ft: std::fs::FileType) -> EntryKind {
    if ft.is_symlink() {
        EntryKind::Symlink
    } else if ft.is_dir() {
        EntryKind::Dir
    } else {
        EntryKind::File
    }
}

fn stat_of(m: std::fs::Metadata) -> FileStat {
    FileStat {
        kind: kind_of(m.file_type()),
        size: m.len() as f64,
        mtime_ms: 0.0,
    }
}

impl FileSystem for StdFs {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        std::fs::read_to_string(path).map_err(host_err)
    }
    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        std::fs::write(path, data).map_err(host_err)
    }
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(path).map_err(host_err)? {
            let entry = entry.map_err(host_err)?;
            out.push(DirEntry {
                name: entry.file_name().to_string_lossy().into_owned(),
                kind: kind_of(entry.file_type().map_err(host_err)?),
            });
        }
        Ok(out)
    }
    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        std::fs::metadata(path).map(stat_of).map_err(host_err)
    }
    async fn mkdir(&self, path: &str) -> HostResult<()> {
        std::fs::create_dir_all(path).map_err(host_err)
    }
    async fn remove(&self, path: &str) -> HostResult<()> {
        std::fs::remove_file(path).map_err(host_err)
    }
    fn capabilities(&self) -> FsCapabilities {
        FsCapabilities {
            realpath: true,
            lstat: true,
            ..FsCapabilities::default()
        }
    }
    async fn realpath(&self, path: &str) -> HostResult<String> {
        std::fs::canonicalize(path)
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(host_err)
    }
    async fn lstat(&self, path: &str) -> HostResult<FileStat> {
        std::fs::symlink_metadata(path)
            .map(stat_of)
            .map_err(host_err)
    }
}

/// A fresh temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("memdir-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Canonical, so comparisons with realpath results hold (e.g. /tmp behind a symlink).
        TempDir(std::fs::canonicalize(&dir).unwrap())
    }
    fn path(&self, rel: &str) -> String {
        format!("{}/{rel}", self.0.display())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

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

/// Every realpath fails with a code the check does not know: it must refuse, not guess.
struct Unreadable(MemFs);

impl FileSystem for Unreadable {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        self.0.read_file(path).await
    }
    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.0.write_file(path, data).await
    }
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        self.0.read_dir(path).await
    }
    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        self.0.stat(path).await
    }
    async fn mkdir(&self, path: &str) -> HostResult<()> {
        self.0.mkdir(path).await
    }
    async fn remove(&self, path: &str) -> HostResult<()> {
        self.0.remove(path).await
    }
    fn capabilities(&self) -> FsCapabilities {
        self.0.capabilities()
    }
    async fn realpath(&self, _path: &str) -> HostResult<String> {
        Err(HostError::new(Some("EACCES"), "permission denied"))
    }
}

#[test]
fn unknown_host_errors_fail_closed() {
    let fs = Unreadable(MemFs::new());
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
    let team = tmp.path("memory/team/");
    std::fs::create_dir_all(tmp.path("memory/team/sub")).unwrap();
    std::fs::create_dir_all(tmp.path("elsewhere")).unwrap();
    std::fs::write(tmp.path("elsewhere/secret.md"), "x").unwrap();
    std::os::unix::fs::symlink(tmp.path("elsewhere"), tmp.path("memory/team/out")).unwrap();
    std::os::unix::fs::symlink(tmp.path("memory/team/sub"), tmp.path("memory/team/in")).unwrap();
    std::os::unix::fs::symlink(tmp.path("gone"), tmp.path("memory/team/dangling")).unwrap();
    std::os::unix::fs::symlink(tmp.path("memory/team/l2"), tmp.path("memory/team/l1")).unwrap();
    std::os::unix::fs::symlink(tmp.path("memory/team/l1"), tmp.path("memory/team/l2")).unwrap();
    let fs = StdFs;

    assert_eq!(
        code_of(&fs, &team, "a/b.md").unwrap(),
        tmp.path("memory/team/a/b.md")
    );
    assert_eq!(
        code_of(&fs, &team, "in/new.md").unwrap(),
        tmp.path("memory/team/in/new.md")
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
