//! Team memory sync: pull the team's shared memory from a server, push local
//! edits back, and turn file-change notifications into debounced pushes.
//!
//! The network is the host's: a [`Transport`] callback takes a method, URL, headers and body and
//! answers with a status, headers and body (on the JS side, a few lines over `fetch`; the host
//! adds its own authentication headers through [`SyncConfig::headers`]). The protocol:
//!
//! * `GET <base>/api/claude_code/team_memory?repo=<owner/repo>` answers
//!   `{checksum, content: {entries: {key: text}, entryChecksums?: {key: "sha256:<hex>"}}}`;
//!   [`TeamSync::pull`] sends `If-None-Match` with the last checksum (304: nothing new; 404: the
//!   team has no memory yet), refuses a body over [`MAX_RESPONSE_BYTES`] before parsing it,
//!   writes at most [`MAX_PULL_ENTRIES`] entries, checks every key with
//!   [`crate::path_key::validate_team_key`], skips entries over 250,000 bytes, leaves identical
//!   files untouched, and skips (and reports) an entry whose write fails rather than failing the
//!   pull. A local edit the server's version replaces is kept under `team/.conflicts/`. `GET`s
//!   retry network errors, 429 and 5xx with backoff, waiting as long as a `Retry-After` (seconds
//!   or an HTTP date) asks on a 429 or 503, up to [`MAX_RETRY_AFTER_MS`].
//! * `team/MEMORY.md` is never copied as text: a pull merges the server's index with the local
//!   one entry by entry (union by file), then re-derives it from the files present (entries of
//!   missing files dropped, un-indexed memory files given an entry from their frontmatter).
//! * [`TeamSync::push`] reads the memory files of the team directory ([`is_sync_key`]: no
//!   hidden, temp or non-`.md` files), skips (and reports) files whose key or text the secret
//!   scanner fires on, re-derives the index the same way (dropping lines with secrets), and
//!   `PUT`s `{entries}` for the keys whose `sha256:` checksum differs from the server's, in
//!   batches of at most 200,000 bytes, each with `If-Match`. A 412 conflict is answered by
//!   re-reading the server's team memory, merging its index into the one pushed, keeping the
//!   server's versions of the keys this push replaces under `team/.conflicts/` (reported as
//!   `overwritten`) and retrying (two at most, local wins); a 413 teaches the server's entry
//!   cap, which later pushes respect.
//! * [`watcher::TeamWatcher`] debounces change notifications into pushes (2 s) and stops
//!   pushing after a permanent failure until a file is deleted or the watcher restarts.
//!
//! Telemetry (no secrets, no paths of secret files): `team_sync_pull`, `team_sync_push`,
//! `team_secret_skipped`, `team_entries_capped`, `team_sync_started`, `team_push_suppressed`;
//! their fields are outcomes only: success, duration, file counts, the HTTP status and an
//! error kind, never a memory's text or a secret file's path.

#![allow(async_fn_in_trait)]

mod client;
mod index_merge;
mod local;
mod locked;
mod retry_after;
mod sha256;
pub mod watcher;

pub use client::TeamSync;
pub use local::{batch_by_bytes, is_sync_key};
pub use locked::{SharedStoreSync, StoreSync};
pub use retry_after::retry_after_ms;
pub use sha256::{hash_content, sha256};
pub use watcher::{PushDebouncer, TeamWatcher};

use crate::error::Code;
use crate::host::HostResult;
use crate::str_map::StrMap;

/// Largest entry, in UTF-8 bytes, that is pulled or pushed.
pub const MAX_ENTRY_BYTES: usize = 250_000;
/// Largest `PUT` body, in bytes (estimated before sending).
pub const MAX_PUT_BODY_BYTES: usize = 200_000;
/// Retries of a `GET` after a network error, a 429 or a 5xx.
pub const MAX_GET_RETRIES: u32 = 3;
/// Retries of a push after a 412 conflict.
pub const MAX_CONFLICT_RETRIES: u32 = 2;
/// Largest response body a pull (or the re-read after a conflict) accepts, in bytes: a longer
/// body — or a `Content-Length` saying so — is refused with an `HTTP` error before it is parsed.
/// `fetchTransport()` stops reading at the same cap.
pub const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;
/// Most entries a pull writes: past it, the entries after the first this many keys (in key
/// order) are left out and counted in [`PullOutcome::entries_over_cap`].
pub const MAX_PULL_ENTRIES: usize = 2_000;
/// Longest `Retry-After` a `GET` waits for (on a 429 or 503), in milliseconds; a longer one
/// ends the call with the HTTP error instead.
pub const MAX_RETRY_AFTER_MS: u32 = 30_000;
/// Where a sync keeps the versions it replaced (`team/.conflicts/<key>.<ms timestamp>`): a
/// hidden folder that scans and pushes pass over.
pub const CONFLICTS_DIR: &str = ".conflicts";
/// Default timeout of one HTTP request, in milliseconds.
pub const HTTP_TIMEOUT_MS: u32 = 30_000;
/// Quiet time after the last change before the watcher pushes, in milliseconds.
pub const DEBOUNCE_MS: u32 = 2_000;

/// One HTTP request the library asks the host to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpRequest {
    /// `GET` or `PUT`.
    pub method: String,
    /// The absolute URL.
    pub url: String,
    /// Header names and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body (JSON text), if any.
    pub body: Option<String>,
}

/// The host's answer to an [`HttpRequest`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpResponse {
    /// The HTTP status.
    pub status: u16,
    /// Header names and values.
    pub headers: Vec<(String, String)>,
    /// The body text.
    pub body: String,
}

impl HttpResponse {
    /// The first header called `name`, compared case-insensitively.
    ///
    /// ```
    /// let r = memdir::sync::HttpResponse {
    ///     status: 200,
    ///     headers: vec![("ETag".into(), "\"x\"".into())],
    ///     body: String::new(),
    /// };
    /// assert_eq!(r.header("etag"), Some("\"x\""));
    /// ```
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The host's HTTP client. An error means the request did not complete (network, CORS, abort);
/// an HTTP error status is a normal [`HttpResponse`].
pub trait Transport {
    /// Send one request.
    async fn send(&self, request: HttpRequest) -> HostResult<HttpResponse>;
}

impl<T: Transport + ?Sized> Transport for &T {
    async fn send(&self, request: HttpRequest) -> HostResult<HttpResponse> {
        (**self).send(request).await
    }
}

/// Where the local writes of a pull run: as they come ([`Unscoped`]) or as a write of a store,
/// under its lock (what [`StoreSync`] passes). The network part of a pull runs outside, so a slow
/// server or a `Retry-After` wait never holds the directory lock.
pub trait WriteScope {
    /// Refuse before any request when writes are not allowed (`WRITE_FORBIDDEN`).
    fn check(&self) -> crate::error::Result<()> {
        Ok(())
    }
    /// Run `work`, the writes of one pull.
    async fn run<R>(&self, work: impl std::future::Future<Output = R>) -> crate::error::Result<R>;
}

/// Local writes as they come, with no lock.
///
/// ```
/// use memdir::sync::{Unscoped, WriteScope};
/// assert_eq!(memdir::future::block_on(Unscoped.run(async { 7 })).unwrap(), 7);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Unscoped;

impl WriteScope for Unscoped {
    async fn run<R>(&self, work: impl std::future::Future<Output = R>) -> crate::error::Result<R> {
        Ok(work.await)
    }
}

/// Where and how to sync.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncConfig {
    /// The API base, e.g. `https://api.example.com` (no trailing `/` needed).
    pub base_url: String,
    /// The repository the team memory belongs to, `owner/repo`.
    pub repo: String,
    /// The local team directory (absolute, e.g. `<memory>/team/`).
    pub team_dir: String,
    /// Headers added to every request (authentication, user agent).
    pub headers: Vec<(String, String)>,
    /// Timeout of one request, in milliseconds.
    pub timeout_ms: u32,
    /// Top-level folders of `team_dir` that the sync neither reads, pushes nor writes: the private
    /// scope (`team_dir` is the memory directory itself) excludes `team`, which has its own sync.
    pub excluded_dirs: Vec<String>,
    /// A pull writes only memory files ([`is_sync_key`]): other keys (a repository's
    /// `.gitattributes`, `notes.txt` …) are skipped as [`SkipReason::NotSynced`]. Off for the
    /// protocol (the server holds only what clients pushed); on for a git remote.
    pub memory_files_only: bool,
}

impl SyncConfig {
    /// A configuration with no extra headers and the default timeout.
    ///
    /// ```
    /// let c = memdir::sync::SyncConfig::new("https://h.example/", "acme/app", "/m/team/");
    /// assert_eq!(c.url(false), "https://h.example/api/claude_code/team_memory?repo=acme%2Fapp");
    /// assert!(c.url(true).ends_with("&view=hashes"));
    /// ```
    pub fn new(base_url: &str, repo: &str, team_dir: &str) -> Self {
        SyncConfig {
            base_url: base_url.to_owned(),
            repo: repo.to_owned(),
            team_dir: team_dir.to_owned(),
            headers: Vec::new(),
            timeout_ms: HTTP_TIMEOUT_MS,
            excluded_dirs: Vec::new(),
            memory_files_only: false,
        }
    }

    /// A configuration for one person's private memory directory `dir` (its `team/` folder
    /// excluded, only memory files pulled): what a sync through a private git repository uses.
    ///
    /// ```
    /// let c = memdir::sync::SyncConfig::private("https://h.example", "me/memory", "/m/");
    /// assert_eq!(c.team_dir, "/m/");
    /// assert!(c.is_excluded("team/a.md") && !c.is_excluded("a.md") && !c.is_excluded("teams.md"));
    /// ```
    pub fn private(base_url: &str, repo: &str, dir: &str) -> Self {
        let mut config = SyncConfig::new(base_url, repo, dir);
        config.excluded_dirs = vec!["team".to_owned()];
        config.memory_files_only = true;
        config
    }

    /// Whether `key` lies in one of [`Self::excluded_dirs`] (its first segment names one). The
    /// segment is compared as a case-insensitive disk (APFS, NTFS) and Windows would open it:
    /// without ASCII case and without trailing dots and spaces, so `Team/x.md` and `team./x.md`
    /// are excluded with `team/`.
    ///
    /// ```
    /// let c = memdir::sync::SyncConfig::private("https://h.example", "me/memory", "/m/");
    /// assert!(c.is_excluded("Team/a.md") && c.is_excluded("TEAM/a.md"));
    /// assert!(c.is_excluded("team./a.md") && c.is_excluded("team /a.md"));
    /// assert!(!c.is_excluded("teams/a.md") && !c.is_excluded("Team.md"));
    /// ```
    pub fn is_excluded(&self, key: &str) -> bool {
        let first = key.split('/').next().unwrap_or(key);
        key.contains('/') && names_excluded_dir(&self.excluded_dirs, first)
    }

    /// Whether a pull takes `key` at all (before the key checks): not excluded, and a memory
    /// file when [`Self::memory_files_only`] says so.
    ///
    /// ```
    /// let mut c = memdir::sync::SyncConfig::new("https://h.example", "a/b", "/m/team/");
    /// assert!(c.takes("notes.txt"));
    /// c.memory_files_only = true;
    /// assert!(!c.takes("notes.txt") && !c.takes(".gitattributes") && c.takes("a/b.md"));
    /// ```
    pub fn takes(&self, key: &str) -> bool {
        !self.is_excluded(key) && (!self.memory_files_only || is_sync_key(key))
    }

    /// The team memory URL; with `hashes`, the checksum-only view.
    pub fn url(&self, hashes: bool) -> String {
        let base = self.base_url.trim_end_matches('/');
        let repo = encode_uri_component(&self.repo);
        let view = if hashes { "&view=hashes" } else { "" };
        format!("{base}/api/claude_code/team_memory?repo={repo}{view}")
    }
}

/// Whether the directory name `name` is one of `excluded` as a case-insensitive filesystem or
/// Windows would open it: ASCII case ignored, trailing `.` and spaces dropped.
pub(crate) fn names_excluded_dir(excluded: &[String], name: &str) -> bool {
    let name = name.trim_end_matches(['.', ' ']);
    excluded.iter().any(|d| d.eq_ignore_ascii_case(name))
}

/// JavaScript's `encodeURIComponent`: everything but `A-Z a-z 0-9 - _ . ! ~ * ' ( )` is
/// percent-encoded as UTF-8.
fn encode_uri_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What one client remembers between syncs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyncState {
    /// The server's checksum of the whole team memory at the last pull or push (the ETag),
    /// sent as `If-Match`.
    pub last_checksum: Option<String>,
    /// The checksum of the server state the local directory reflects, sent as
    /// `If-None-Match`. It differs from `last_checksum` after a conflict: the reference sends
    /// the post-push checksum and so never pulls what another client wrote before the
    /// conflict; we keep them apart so the next pull brings it.
    pub pulled_checksum: Option<String>,
    /// The server's `sha256:` checksum of each key, as last seen.
    pub server_checksums: StrMap,
    /// The most entries the server accepts, once a 413 has said so.
    pub server_max_entries: Option<usize>,
}

/// Why a pulled entry was not written.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", content = "code", rename_all = "kebab-case")]
pub enum SkipReason {
    /// The key failed validation (traversal, symlink escape …); the error's code.
    InvalidKey(Code),
    /// The entry is larger than [`MAX_ENTRY_BYTES`].
    TooLarge,
    /// Writing it failed (a directory or file in the way: `EEXIST`, `ENOTDIR`, `EISDIR` …); the
    /// host's error code. The rest of the pull goes on, and the next pull tries again.
    WriteFailed(String),
    /// Not something this sync carries: a key under an excluded folder, or not a memory file
    /// when [`SyncConfig::memory_files_only`] is set.
    NotSynced,
}

/// An entry a pull did not write.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedEntry {
    /// The key as the server sent it.
    pub key: String,
    /// Why.
    pub reason: SkipReason,
}

/// What a pull did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PullOutcome {
    /// The server answered 304: nothing changed since the last pull.
    pub not_modified: bool,
    /// The server holds team memory for this repository (false after a 404).
    pub server_has_content: bool,
    /// Files created or changed on disk.
    pub files_written: usize,
    /// Entries refused, too large, or whose write failed.
    pub skipped: Vec<SkippedEntry>,
    /// Entries past [`MAX_PULL_ENTRIES`], left out.
    pub entries_over_cap: usize,
    /// Keys whose local edits (made since the last sync) the server's version replaced; each
    /// local version is kept in `team/.conflicts/` (see `saved_copies`).
    pub overwritten: Vec<String>,
    /// Where replaced versions were kept, relative to the team directory.
    pub saved_copies: Vec<String>,
}

/// A local file (or index line) a push left out because the secret scanner fired on its key or
/// its text.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretSkip {
    /// The file's key (relative path) with any secret in it redacted, for the host to show;
    /// never sent to telemetry. `MEMORY.md` when index lines were dropped.
    pub path: String,
    /// The first rule that fired.
    pub rule_id: &'static str,
    /// That rule's label.
    pub label: String,
}

/// What a push did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PushOutcome {
    /// Entries the server accepted.
    pub files_uploaded: usize,
    /// A 412 conflict happened.
    pub conflict: bool,
    /// Retries after conflicts.
    pub conflict_retries: u32,
    /// `PUT` requests that succeeded.
    pub put_batches: usize,
    /// Files left out because they contain secrets.
    pub skipped_secrets: Vec<SecretSkip>,
    /// Files left out because of the server's entry cap.
    pub dropped_by_cap: usize,
    /// After a conflict: keys another client had changed that this push replaced (local wins);
    /// each server version is kept in `team/.conflicts/` (see `saved_copies`).
    pub overwritten: Vec<String>,
    /// Where replaced versions were kept, relative to the team directory.
    pub saved_copies: Vec<String>,
}
