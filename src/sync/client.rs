//! Pull and push over the host's [`Transport`].

use super::index_merge::{
    add_keys, drop_secret_lines, entries_of, entry_from_frontmatter, indexed_keys, merge_index,
    KeySet,
};
use super::local::{batch_by_bytes, is_sync_key, list_team_keys, read_team_files};
use super::retry_after::{decimal, retry_after_ms};
use super::{
    hash_content, HttpRequest, HttpResponse, PullOutcome, PushOutcome, SecretSkip, SkipReason,
    SkippedEntry, SyncConfig, SyncState, Transport, Unscoped, WriteScope, CONFLICTS_DIR,
    MAX_CONFLICT_RETRIES, MAX_ENTRY_BYTES, MAX_GET_RETRIES, MAX_PULL_ENTRIES, MAX_RESPONSE_BYTES,
    MAX_RETRY_AFTER_MS,
};
use crate::error::{Code, Error, Result};
use crate::future::{race, Either};
use crate::host::{Clock, FieldValue, FileSystem, Telemetry};
use crate::index_entry::IndexEntry;
use crate::json::{parse, Json};
use crate::path_key::validate_team_key;
use crate::paths::dirname;
use crate::secrets::{redact_secrets, scan_for_secrets};
use crate::str_map::StrMap;
use crate::types::ENTRYPOINT_NAME;

/// Team sync over a filesystem, a transport, a clock and a telemetry sink.
///
/// ```
/// use memdir::future::block_on;
/// use memdir::host::{Clock, HostResult};
/// use memdir::sync::{HttpRequest, HttpResponse, SyncConfig, SyncState, TeamSync, Transport};
/// use memdir::{MemFs, NoTelemetry};
///
/// struct Empty; // a server that has no team memory yet
/// impl Transport for Empty {
///     async fn send(&self, _r: HttpRequest) -> HostResult<HttpResponse> {
///         Ok(HttpResponse { status: 404, ..Default::default() })
///     }
/// }
/// struct Now;
/// impl Clock for Now {
///     fn now_ms(&self) -> f64 { 0.0 }
///     async fn sleep(&self, _ms: u32) {}
/// }
/// let fs = MemFs::new();
/// let sync = TeamSync {
///     fs: &fs, transport: &Empty, clock: &Now, telemetry: &NoTelemetry,
///     config: SyncConfig::new("https://h.example", "acme/app", "/m/team/"),
/// };
/// let mut state = SyncState::default();
/// let pulled = block_on(sync.pull(&mut state)).unwrap();
/// assert!(!pulled.server_has_content);
/// ```
pub struct TeamSync<F, T, C, M> {
    /// Where the team directory lives.
    pub fs: F,
    /// The host's HTTP client.
    pub transport: T,
    /// Timeouts and retry backoff.
    pub clock: C,
    /// Where events go.
    pub telemetry: M,
    /// Server, repository, directory, headers.
    pub config: SyncConfig,
}

/// Server body fields a pull or a hashes probe reads.
struct ServerView {
    checksum: Option<String>,
    entries: Vec<(String, String)>,
    entry_checksums: Option<StrMap>,
}

/// `x.rem_euclid(1000.0)`, bit for bit, without the float `fmod` (whose 128-bit integer
/// arithmetic would link `u128_div_rem` into the wasm module).
///
/// Every step is exact: below 2^53, `q · 1000` is an integer multiple of 8 and the remainder a
/// multiple of `x`'s unit in the last place smaller than `x` (or than 1000), so representable;
/// `q` can only be one too large (the division rounds up to an integer), which the correction
/// undoes. From 2^53 up, `x = m · 2^e` is an integer and the remainder is taken in u64.
fn rem_euclid_1000(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let a = x.abs();
    let mut r = if a < 9_007_199_254_740_992.0 {
        let q = (a / 1000.0).floor();
        let r = a - q * 1000.0;
        if r < 0.0 {
            r + 1000.0
        } else {
            r
        }
    } else {
        let bits = a.to_bits();
        let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
        let mut rest = mantissa % 1000;
        for _ in 0..((bits >> 52) - 1075) {
            rest = rest * 2 % 1000;
        }
        rest as f64
    };
    // `%` keeps the sign of `x`; `rem_euclid` then adds the divisor to a negative result.
    if x.is_sign_negative() {
        r = -r;
    }
    if r < 0.0 {
        r + 1000.0
    } else {
        r
    }
}

fn http_error(status: u16, what: &str) -> Error {
    Error::new(
        Code::Http,
        format!("Team memory {what} failed: the server answered HTTP {status}"),
    )
    .with_status(status)
}

fn invalid_response(status: u16, what: &str) -> Error {
    Error::new(
        Code::Http,
        format!("Team memory {what} failed: the server's answer does not have the expected shape"),
    )
    .with_status(status)
}

/// Refuse a body over [`MAX_RESPONSE_BYTES`] (or one whose `Content-Length` says it is) before
/// anything parses it.
fn check_response_size(response: &HttpResponse, what: &str) -> Result<()> {
    let declared = response
        .header("content-length")
        .and_then(|v| decimal(v.trim()))
        .unwrap_or(0);
    let size = (response.body.len() as u64).max(declared);
    if size > MAX_RESPONSE_BYTES as u64 {
        return Err(Error::new(
            Code::Http,
            format!(
                "Team memory {what} failed: the server's answer ({size} bytes) is over the \
                 {MAX_RESPONSE_BYTES}-byte cap"
            ),
        )
        .with_status(response.status));
    }
    Ok(())
}

/// The host's error code behind a failure (`EEXIST` …), else the library's.
fn error_code(e: &Error) -> String {
    e.cause
        .as_ref()
        .and_then(|c| c.code.clone())
        .unwrap_or_else(|| e.code.as_str().to_owned())
}

/// A host error's code, `UNKNOWN` without one.
fn host_code(e: &crate::error::HostError) -> String {
    e.code.clone().unwrap_or_else(|| "UNKNOWN".to_owned())
}

/// The telemetry `errorType` for a failure.
fn error_type(e: &Error) -> &'static str {
    match (e.code, e.status) {
        (Code::Timeout, _) => "timeout",
        (Code::Http, Some(412)) => "conflict",
        (Code::Http, Some(413)) => "too_many_entries",
        (Code::Http, Some(_)) => "http",
        (Code::Http, None) => "network",
        (Code::HostFs, _) => "filesystem",
        _ => "other",
    }
}

fn string_map(value: Option<&Json>) -> Option<Vec<(String, String)>> {
    let Json::Object(pairs) = value? else {
        return None;
    };
    let mut out = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        out.push((k.clone(), v.as_str()?.to_owned()));
    }
    Some(out)
}

fn etag_checksum(response: &HttpResponse) -> Option<String> {
    let tag = response.header("etag")?.trim();
    let tag = tag.strip_prefix("W/").unwrap_or(tag);
    Some(tag.trim_matches('"').to_owned()).filter(|t| !t.is_empty())
}

/// Read `{checksum, content: {entries, entryChecksums?}}` (a hashes probe may carry
/// `entryChecksums` at the top level or under `content`, and no entries).
fn read_server_view(response: &HttpResponse, what: &str, need_entries: bool) -> Result<ServerView> {
    let status = response.status;
    let doc = parse(&response.body).map_err(|_| invalid_response(status, what))?;
    let content = doc.get("content");
    let entries = match string_map(content.and_then(|c| c.get("entries"))) {
        Some(entries) => entries,
        None if need_entries => return Err(invalid_response(status, what)),
        None => Vec::new(),
    };
    let checksums_value = content
        .and_then(|c| c.get("entryChecksums"))
        .or_else(|| doc.get("entryChecksums"));
    let entry_checksums = match checksums_value {
        None | Some(Json::Null) => None,
        Some(value) => Some(
            string_map(Some(value))
                .ok_or_else(|| invalid_response(status, what))?
                .into_iter()
                .collect(),
        ),
    };
    let checksum = doc
        .get("checksum")
        .and_then(Json::as_str)
        .map(str::to_owned)
        .or_else(|| etag_checksum(response));
    Ok(ServerView {
        checksum,
        entries,
        entry_checksums,
    })
}

impl<F: FileSystem, T: Transport, C: Clock, M: Telemetry> TeamSync<F, T, C, M> {
    fn request(&self, method: &str, url: String, body: Option<String>) -> HttpRequest {
        let mut headers = self.config.headers.clone();
        headers.push(("Accept".to_owned(), "application/json".to_owned()));
        if body.is_some() {
            headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
        }
        HttpRequest {
            method: method.to_owned(),
            url,
            headers,
            body,
        }
    }

    /// Send once, with the configured timeout.
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse> {
        let timeout = self.config.timeout_ms;
        match race(self.transport.send(request), self.clock.sleep(timeout)).await {
            Either::Left(Ok(response)) => Ok(response),
            Either::Left(Err(cause)) => Err(Error::host(
                Code::Http,
                "Team memory sync request did not complete",
                cause,
            )),
            Either::Right(()) => Err(Error::new(
                Code::Timeout,
                format!("Team memory sync request timed out after {timeout} ms"),
            )),
        }
    }

    /// Send a `GET`, retrying network failures, 429 and 5xx with exponential backoff; on a 429
    /// or 503 with a `Retry-After`, waiting what it asks instead (a wait over
    /// [`MAX_RETRY_AFTER_MS`] ends the call with the HTTP error).
    async fn get_with_retry(&self, request: HttpRequest) -> Result<HttpResponse> {
        let mut attempt = 0;
        loop {
            let result = self.send(request.clone()).await;
            let (retryable, asked) = match &result {
                Ok(r) => (
                    r.status == 429 || r.status >= 500,
                    (r.status == 429 || r.status == 503)
                        .then(|| r.header("retry-after"))
                        .flatten()
                        .and_then(|v| retry_after_ms(v, self.clock.now_ms())),
                ),
                Err(_) => (true, None),
            };
            if !retryable || attempt >= MAX_GET_RETRIES {
                return result;
            }
            attempt += 1;
            let wait = match asked {
                Some(ms) if ms > f64::from(MAX_RETRY_AFTER_MS) => {
                    let status = result.as_ref().map_or(0, |r| r.status);
                    return Err(Error::new(
                        Code::Http,
                        format!(
                            "Team memory request failed: the server answered HTTP {status} and \
                             asked to retry after {} s, longer than the {} s a call waits",
                            (ms / 1000.0).ceil() as u64,
                            MAX_RETRY_AFTER_MS / 1000
                        ),
                    )
                    .with_status(status));
                }
                Some(ms) => ms as u32,
                None => {
                    let base = (500u32 << (attempt - 1)).min(32_000);
                    // Up to 25% jitter, taken from the clock's sub-second part (no RNG in the
                    // core).
                    let fraction = rem_euclid_1000(self.clock.now_ms()) / 1000.0;
                    base + (f64::from(base) * 0.25 * fraction) as u32
                }
            };
            self.clock.sleep(wait).await;
        }
    }

    /// `GET` the whole team memory (with `If-None-Match` when given): `None` on a 404, the
    /// response on a 2xx or 304 after the size check, an error otherwise.
    async fn fetch(&self, if_none_match: Option<&str>, what: &str) -> Result<Option<HttpResponse>> {
        let mut request = self.request("GET", self.config.url(false), None);
        if let Some(checksum) = if_none_match {
            request
                .headers
                .push(("If-None-Match".to_owned(), format!("\"{checksum}\"")));
        }
        let response = self.get_with_retry(request).await?;
        match response.status {
            404 => Ok(None),
            200..=299 | 304 => {
                check_response_size(&response, what)?;
                Ok(Some(response))
            }
            status => Err(http_error(status, what)),
        }
    }

    /// Pull the server's team memory into the team directory (server wins per key; local files
    /// the server does not have are left alone). Emits `team_sync_pull`.
    pub async fn pull(&self, state: &mut SyncState) -> Result<PullOutcome> {
        self.pull_in(state, &Unscoped).await
    }

    /// [`Self::pull`] with its local writes run in `scope` (under a store's lock, say); the
    /// request and its retries run outside it.
    pub async fn pull_in<W: WriteScope>(
        &self,
        state: &mut SyncState,
        scope: &W,
    ) -> Result<PullOutcome> {
        let started = self.clock.now_ms();
        let result = self.pull_inner(state, scope).await;
        let mut fields = vec![
            ("success", FieldValue::Bool(result.is_ok())),
            (
                "duration_ms",
                FieldValue::Num(self.clock.now_ms() - started),
            ),
        ];
        match &result {
            Ok(outcome) => {
                fields.push((
                    "files_written",
                    FieldValue::Num(outcome.files_written as f64),
                ));
                fields.push(("not_modified", FieldValue::Bool(outcome.not_modified)));
            }
            Err(e) => {
                fields.push(("files_written", FieldValue::Num(0.0)));
                fields.push(("not_modified", FieldValue::Bool(false)));
                fields.push(("errorType", FieldValue::Str(error_type(e).to_owned())));
                if let Some(status) = e.status {
                    fields.push(("status", FieldValue::Num(f64::from(status))));
                }
            }
        }
        self.telemetry.emit("team_sync_pull", &fields);
        result
    }

    async fn pull_inner<W: WriteScope>(
        &self,
        state: &mut SyncState,
        scope: &W,
    ) -> Result<PullOutcome> {
        scope.check()?;
        let if_none_match = state.pulled_checksum.clone();
        let Some(response) = self.fetch(if_none_match.as_deref(), "pull").await? else {
            state.server_checksums.clear();
            state.last_checksum = None;
            state.pulled_checksum = None;
            return Ok(PullOutcome::default());
        };
        if response.status == 304 {
            return Ok(PullOutcome {
                not_modified: true,
                server_has_content: true,
                ..PullOutcome::default()
            });
        }
        let view = read_server_view(&response, "pull", true)?;
        drop(response);
        scope.run(self.apply_pull(state, view)).await?
    }

    /// Write what a pull brought (see [`Self::pull`]).
    async fn apply_pull(&self, state: &mut SyncState, view: ServerView) -> Result<PullOutcome> {
        let known = std::mem::take(&mut state.server_checksums);
        state.last_checksum = view.checksum.clone();
        state.server_checksums = match view.entry_checksums {
            Some(checksums) => checksums,
            None => view
                .entries
                .iter()
                .map(|(k, v)| (k.clone(), hash_content(v)))
                .collect(),
        };
        let mut outcome = PullOutcome {
            server_has_content: true,
            ..PullOutcome::default()
        };
        // Key order, one entry per key (the last of repeated keys), then the entry cap.
        let mut entries: StrMap = view.entries.into_iter().collect();
        if entries.len() > MAX_PULL_ENTRIES {
            outcome.entries_over_cap = entries.len() - MAX_PULL_ENTRIES;
            entries.truncate(MAX_PULL_ENTRIES);
        }
        let mut server_index = None;
        for (key, text) in entries {
            // The key checks first: a traversal is reported as one even when the key would
            // not be taken anyway.
            let path = match validate_team_key(&self.fs, &self.config.team_dir, &key).await {
                Ok(path) => path,
                Err(e) => {
                    outcome.skipped.push(SkippedEntry {
                        key,
                        reason: SkipReason::InvalidKey(e.code),
                    });
                    continue;
                }
            };
            if !self.config.takes(&key) {
                outcome.skipped.push(SkippedEntry {
                    key,
                    reason: SkipReason::NotSynced,
                });
                continue;
            }
            if text.len() > MAX_ENTRY_BYTES {
                outcome.skipped.push(SkippedEntry {
                    key,
                    reason: SkipReason::TooLarge,
                });
                continue;
            }
            if key == ENTRYPOINT_NAME {
                // Merged by entries below, never written as the server's text.
                server_index = Some(text);
                continue;
            }
            if let Err(code) = self
                .write_entry(&key, &path, &text, &known, &mut outcome)
                .await
            {
                outcome.skipped.push(SkippedEntry {
                    key,
                    reason: SkipReason::WriteFailed(code),
                });
            }
        }
        match self.merge_local_index(server_index.as_deref()).await {
            Ok(true) => outcome.files_written += 1,
            Ok(false) => {}
            Err(code) => outcome.skipped.push(SkippedEntry {
                key: ENTRYPOINT_NAME.to_owned(),
                reason: SkipReason::WriteFailed(code),
            }),
        }
        // The directory reflects the server's state only when every write went through;
        // otherwise the next pull asks again.
        let complete = !outcome
            .skipped
            .iter()
            .any(|s| matches!(s.reason, SkipReason::WriteFailed(_)));
        state.pulled_checksum = view.checksum.filter(|_| complete);
        Ok(outcome)
    }

    /// Write one pulled entry unless identical on disk. A local version edited since the last
    /// sync (its checksum is not the one the server last had) is first kept under
    /// `.conflicts/`. `Err` holds the host's error code.
    async fn write_entry(
        &self,
        key: &str,
        path: &str,
        text: &str,
        known: &StrMap,
        outcome: &mut PullOutcome,
    ) -> std::result::Result<(), String> {
        match self.fs.read_file(path).await {
            Ok(existing) if existing == text => return Ok(()),
            Ok(existing) if known.get(key) != Some(&hash_content(&existing)) => {
                let copy = self.save_conflict_copy(key, &existing).await?;
                outcome.overwritten.push(key.to_owned());
                outcome.saved_copies.push(copy);
            }
            _ => {}
        }
        mkdir_all(&self.fs, &dirname(path))
            .await
            .map_err(|e| error_code(&e))?;
        self.fs
            .write_file(path, text)
            .await
            .map_err(|e| host_code(&e))?;
        outcome.files_written += 1;
        Ok(())
    }

    /// Keep `text`, the losing version of `key`, as `.conflicts/<key>.<now ms>`; its key.
    async fn save_conflict_copy(
        &self,
        key: &str,
        text: &str,
    ) -> std::result::Result<String, String> {
        let stamp = self.clock.now_ms().max(0.0).floor() as u64;
        let copy = format!("{CONFLICTS_DIR}/{key}.{stamp}");
        let path = format!("{}{copy}", self.config.team_dir);
        mkdir_all(&self.fs, &dirname(&path))
            .await
            .map_err(|e| error_code(&e))?;
        self.fs
            .write_file(&path, text)
            .await
            .map_err(|e| host_code(&e))?;
        Ok(copy)
    }

    /// After a pull: the local `MEMORY.md` becomes the server's index (or the local one when
    /// the server has none) plus the other side's entries for other files, re-derived from the
    /// memory files present. Written only when it changed (`Ok(true)`).
    async fn merge_local_index(
        &self,
        server_index: Option<&str>,
    ) -> std::result::Result<bool, String> {
        let index_path = format!("{}{ENTRYPOINT_NAME}", self.config.team_dir);
        let local_index = match self.fs.read_file(&index_path).await {
            Ok(text) => Some(text),
            Err(e) if e.is_not_found() => None,
            Err(e) => return Err(host_code(&e)),
        };
        let keys = list_team_keys(&self.fs, &self.config.team_dir, &self.config.excluded_dirs)
            .await
            .map_err(|e| error_code(&e))?;
        let mut paths: StrMap = keys.into_iter().collect();
        paths.remove(ENTRYPOINT_NAME);
        let mut present = KeySet::new();
        add_keys(&mut present, &mut paths.keys());
        let (base, others) = match (server_index, local_index.as_deref()) {
            (Some(server), local) => (Some(server), local.map(entries_of).unwrap_or_default()),
            (None, local) => (local, Vec::new()),
        };
        let indexed = indexed_keys(base, &others);
        // In key order (as `paths`), so a binary search finds them.
        let mut derived: Vec<IndexEntry> = Vec::new();
        for (key, path) in paths.iter() {
            if indexed.contains_key(key) {
                continue;
            }
            if let Ok(text) = self.fs.read_file(path).await {
                derived.extend(entry_from_frontmatter(key, &text));
            }
        }
        let found = |k: &str| {
            let i = derived.binary_search_by(|e| e.file.as_str().cmp(k)).ok()?;
            derived.get(i).cloned()
        };
        let Some(merged) = merge_index(base, &others, &present, found) else {
            return Ok(false);
        };
        if local_index.as_deref() == Some(merged.as_str()) {
            return Ok(false);
        }
        mkdir_all(&self.fs, &self.config.team_dir)
            .await
            .map_err(|e| error_code(&e))?;
        self.fs
            .write_file(&index_path, &merged)
            .await
            .map_err(|e| host_code(&e))?;
        Ok(true)
    }

    /// Push local changes: every team file whose checksum differs from the server's, minus
    /// files with secrets (reported in the outcome and as `team_secret_skipped`, without paths)
    /// and files beyond a learned entry cap. Emits `team_sync_push`.
    pub async fn push(&self, state: &mut SyncState) -> Result<PushOutcome> {
        let started = self.clock.now_ms();
        let mut outcome = PushOutcome::default();
        let mut too_many: Option<(usize, Option<f64>)> = None;
        let result = self.push_inner(state, &mut outcome, &mut too_many).await;
        let mut fields = vec![
            ("success", FieldValue::Bool(result.is_ok())),
            (
                "files_uploaded",
                FieldValue::Num(outcome.files_uploaded as f64),
            ),
            ("conflict", FieldValue::Bool(outcome.conflict)),
            (
                "conflict_retries",
                FieldValue::Num(f64::from(outcome.conflict_retries)),
            ),
            (
                "duration_ms",
                FieldValue::Num(self.clock.now_ms() - started),
            ),
        ];
        if outcome.put_batches > 1 {
            fields.push(("put_batches", FieldValue::Num(outcome.put_batches as f64)));
        }
        if let Err(e) = &result {
            fields.push(("errorType", FieldValue::Str(error_type(e).to_owned())));
            if let Some(status) = e.status {
                fields.push(("status", FieldValue::Num(f64::from(status))));
            }
        }
        if let Some((max, received)) = too_many {
            fields.push(("error_code", FieldValue::Str(TOO_MANY_ENTRIES.to_owned())));
            fields.push(("server_max_entries", FieldValue::Num(max as f64)));
            if let Some(received) = received {
                fields.push(("server_received_entries", FieldValue::Num(received)));
            }
        }
        self.telemetry.emit("team_sync_push", &fields);
        result.map(|()| outcome)
    }

    async fn push_inner(
        &self,
        state: &mut SyncState,
        outcome: &mut PushOutcome,
        too_many: &mut Option<(usize, Option<f64>)>,
    ) -> Result<()> {
        let mut files =
            read_team_files(&self.fs, &self.config.team_dir, &self.config.excluded_dirs).await?;
        let local_index = files.remove(ENTRYPOINT_NAME);
        // The key travels too: a secret in a file name is a secret sent.
        files.retain(|key, text| {
            let (path, finding) = match scan_for_secrets(key).into_iter().next() {
                Some(finding) => (redact_secrets(key), finding),
                None => match scan_for_secrets(text).into_iter().next() {
                    Some(finding) => (key.clone(), finding),
                    None => return true,
                },
            };
            outcome.skipped_secrets.push(SecretSkip {
                path,
                rule_id: finding.rule_id,
                label: finding.label,
            });
            false
        });
        if let Some(index) = self.pushed_index(local_index.as_deref(), &files, None, outcome) {
            files.insert(ENTRYPOINT_NAME.to_owned(), index);
        }
        if !outcome.skipped_secrets.is_empty() {
            let mut rule_ids: Vec<&str> =
                outcome.skipped_secrets.iter().map(|s| s.rule_id).collect();
            crate::sort::sort(&mut rule_ids);
            rule_ids.dedup();
            self.telemetry.emit(
                "team_secret_skipped",
                &[
                    (
                        "file_count",
                        FieldValue::Num(outcome.skipped_secrets.len() as f64),
                    ),
                    (
                        "rule_ids",
                        FieldValue::Str(crate::jsstr::join(&rule_ids, ",")),
                    ),
                ],
            );
        }
        if let Some(max) = state.server_max_entries {
            if files.len() > max {
                let total = files.len();
                // StrMap order is key order: keep the first `max` keys.
                files.truncate(max);
                outcome.dropped_by_cap = total - max;
                self.telemetry.emit(
                    "team_entries_capped",
                    &[
                        ("total_entries", FieldValue::Num(total as f64)),
                        (
                            "dropped_count",
                            FieldValue::Num(outcome.dropped_by_cap as f64),
                        ),
                        ("max_entries", FieldValue::Num(max as f64)),
                    ],
                );
            }
        }
        loop {
            let hashes: StrMap = files
                .iter()
                .map(|(k, v)| (k.clone(), hash_content(v)))
                .collect();
            let delta: Vec<(&str, &str)> = files
                .iter()
                .filter(|(k, _)| state.server_checksums.get(k) != hashes.get(k))
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            if delta.is_empty() {
                return Ok(());
            }
            if !self
                .put_batches(state, outcome, too_many, &files, &hashes, delta)
                .await?
            {
                return Ok(());
            }
            outcome.conflict = true;
            if outcome.conflict_retries >= MAX_CONFLICT_RETRIES {
                return Err(Error::new(
                    Code::Http,
                    format!(
                        "Team memory push failed: the server's copy kept changing \
                             ({MAX_CONFLICT_RETRIES} retries after conflicts)"
                    ),
                )
                .with_status(412));
            }
            outcome.conflict_retries += 1;
            self.after_conflict(state, outcome, &mut files, &hashes, local_index.as_deref())
                .await?;
        }
    }

    /// The `MEMORY.md` a push sends: the local index (it wins) plus, after a conflict, the
    /// server's entries for other files, re-derived from the files being pushed and those the
    /// server holds, minus lines with secrets (reported). `None` when there is nothing to index
    /// or the text as a whole still holds a secret.
    fn pushed_index(
        &self,
        local_index: Option<&str>,
        files: &StrMap,
        server: Option<&StrMap>,
        outcome: &mut PushOutcome,
    ) -> Option<String> {
        let mut present = KeySet::new();
        add_keys(&mut present, &mut files.keys());
        let others = server
            .and_then(|s| s.get(ENTRYPOINT_NAME))
            .map(|text| entries_of(text))
            .unwrap_or_default();
        if let Some(server) = server {
            add_keys(
                &mut present,
                &mut server
                    .keys()
                    .filter(|k| is_sync_key(k) && !self.config.is_excluded(k)),
            );
        }
        present.remove(ENTRYPOINT_NAME);
        let merged = merge_index(local_index, &others, &present, |key| {
            let text = files.get(key).or_else(|| server?.get(key))?;
            entry_from_frontmatter(key, text)
        })?;
        let (clean, finding) = drop_secret_lines(&merged);
        let finding = finding.or_else(|| scan_for_secrets(&clean).into_iter().next());
        if let Some(finding) = finding {
            if !outcome
                .skipped_secrets
                .iter()
                .any(|s| s.path == ENTRYPOINT_NAME)
            {
                outcome.skipped_secrets.push(SecretSkip {
                    path: ENTRYPOINT_NAME.to_owned(),
                    rule_id: finding.rule_id,
                    label: finding.label,
                });
            }
            if !scan_for_secrets(&clean).is_empty() {
                return None;
            }
        }
        Some(clean)
    }

    /// After a 412: read the server's team memory again, keep the server's versions of the keys
    /// another client changed that this push will replace (under `.conflicts/`, reported as
    /// `overwritten`), and merge the server's index into the one pushed.
    async fn after_conflict(
        &self,
        state: &mut SyncState,
        outcome: &mut PushOutcome,
        files: &mut StrMap,
        hashes: &StrMap,
        local_index: Option<&str>,
    ) -> Result<()> {
        let Some(response) = self.fetch(None, "conflict check").await? else {
            state.server_checksums.clear();
            state.last_checksum = None;
            return Ok(());
        };
        let view = read_server_view(&response, "conflict check", true)?;
        drop(response);
        let known = std::mem::take(&mut state.server_checksums);
        let server: StrMap = view.entries.into_iter().collect();
        state.last_checksum = view.checksum;
        state.server_checksums = view.entry_checksums.unwrap_or_else(|| {
            server
                .iter()
                .map(|(k, v)| (k.clone(), hash_content(v)))
                .collect()
        });
        for (key, theirs) in server.iter() {
            let Some(now) = state.server_checksums.get(key) else {
                continue;
            };
            let ours = hashes.get(key);
            if key == ENTRYPOINT_NAME
                || ours.is_none()
                || ours == Some(now)
                || known.get(key) == Some(now)
                || outcome.overwritten.contains(key)
            {
                continue;
            }
            match self.save_conflict_copy(key, theirs).await {
                Ok(copy) => outcome.saved_copies.push(copy),
                Err(code) => {
                    return Err(Error::new(
                        Code::HostFs,
                        format!(
                            "Team memory push stopped: keeping the server's version of a file \
                             it would replace failed ({code})"
                        ),
                    ))
                }
            }
            outcome.overwritten.push(key.clone());
        }
        files.remove(ENTRYPOINT_NAME);
        if let Some(index) = self.pushed_index(local_index, files, Some(&server), outcome) {
            files.insert(ENTRYPOINT_NAME.to_owned(), index);
        }
        Ok(())
    }

    /// Send the delta in batches; `Ok(true)` when a batch hit a 412 conflict.
    #[allow(clippy::too_many_arguments)]
    async fn put_batches(
        &self,
        state: &mut SyncState,
        outcome: &mut PushOutcome,
        too_many: &mut Option<(usize, Option<f64>)>,
        files: &StrMap,
        hashes: &StrMap,
        delta: Vec<(&str, &str)>,
    ) -> Result<bool> {
        for batch in batch_by_bytes(delta) {
            let entries = batch
                .iter()
                .filter_map(|k| {
                    files
                        .get(k)
                        .map(|v| ((*k).to_owned(), Json::String(v.clone())))
                })
                .collect();
            let body = Json::Object(vec![("entries".to_owned(), Json::Object(entries))]);
            let mut request = self.request("PUT", self.config.url(false), Some(body.to_string()));
            if let Some(checksum) = &state.last_checksum {
                request
                    .headers
                    .push(("If-Match".to_owned(), format!("\"{checksum}\"")));
            }
            let response = self.send(request).await?;
            match response.status {
                200..=299 => {
                    let view = read_server_view(&response, "push", false).ok();
                    if let Some(checksum) = view
                        .and_then(|v| v.checksum)
                        .or_else(|| etag_checksum(&response))
                    {
                        // With no one else's write in between, the server now holds what we
                        // pulled plus what we sent: the directory reflects the new state.
                        if state.pulled_checksum == state.last_checksum {
                            state.pulled_checksum = Some(checksum.clone());
                        }
                        state.last_checksum = Some(checksum);
                    }
                    let sent = batch
                        .iter()
                        .filter_map(|key| Some(((*key).to_owned(), hashes.get(key)?.clone())));
                    state.server_checksums.extend(sent);
                    outcome.files_uploaded += batch.len();
                    outcome.put_batches += 1;
                }
                412 => return Ok(true),
                413 => return Err(self.learn_entry_cap(state, &response, too_many)),
                status => return Err(http_error(status, "push")),
            }
        }
        Ok(false)
    }

    /// Read a 413's `error.details`; remember the cap when it is the entry-count error.
    fn learn_entry_cap(
        &self,
        state: &mut SyncState,
        response: &HttpResponse,
        too_many: &mut Option<(usize, Option<f64>)>,
    ) -> Error {
        let details = parse(&response.body)
            .ok()
            .and_then(|doc| doc.get("error")?.get("details").cloned());
        let code = details
            .as_ref()
            .and_then(|d| d.get("error_code")?.as_str().map(str::to_owned));
        let max = details
            .as_ref()
            .and_then(|d| d.get("max_entries")?.as_f64())
            // A cap below one entry would stop every later push: not a cap to learn.
            .filter(|n| n.is_finite() && *n >= 1.0);
        match (code.as_deref(), max) {
            (Some(TOO_MANY_ENTRIES), Some(max)) => {
                let max = max as usize;
                state.server_max_entries = Some(max);
                let received = details
                    .as_ref()
                    .and_then(|d| d.get("received_entries")?.as_f64());
                *too_many = Some((max, received));
                Error::new(
                    Code::Http,
                    format!(
                        "Team memory push refused: the server keeps at most {max} entries \
                             per repository; later pushes send only the first {max} files in \
                             key order"
                    ),
                )
                .with_status(413)
            }
            _ => http_error(413, "push"),
        }
    }
}

/// Create `dir` and its parents. `mkdir` is recursive by contract, but a host that only
/// creates one level gets its missing ancestors created top-down.
async fn mkdir_all<F: FileSystem>(fs: &F, dir: &str) -> Result<()> {
    match fs.mkdir(dir).await {
        Ok(()) => return Ok(()),
        Err(e) if !e.is_not_found() => return Err(Error::fs("create directory", dir, e)),
        Err(_) => {}
    }
    let mut chain = vec![dir.to_owned()];
    while let Some(last) = chain.last() {
        let parent = dirname(last);
        if parent == *last {
            break;
        }
        chain.push(parent);
    }
    for level in chain.iter().rev() {
        if let Err(e) = fs.mkdir(level).await {
            if !e.has_code("EEXIST") {
                return Err(Error::fs("create directory", level, e));
            }
        }
    }
    Ok(())
}

/// The 413 `error_code` that carries the server's entry cap.
const TOO_MANY_ENTRIES: &str = "team_memory_too_many_entries";

#[cfg(test)]
mod tests {
    use super::rem_euclid_1000;

    #[test]
    fn rem_euclid_matches_std_bit_for_bit() {
        let mut samples = vec![
            0.0,
            -0.0,
            999.9999999999999,
            1000.0,
            -1000.0,
            1e-300,
            -1e-300,
            5e-324,
            1_700_000_000_123.5,
            9_007_199_254_740_991.5,
            9_007_199_254_740_992.0,
            9_007_199_254_740_994.0,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
        ];
        let mut rng = crate::test_rng::XorShift(0x9E37_79B9_7F4A_7C15);
        for i in 0..300_000 {
            let state = rng.next();
            samples.push(match i % 3 {
                0 => f64::from_bits(state),
                // Binary exponents from 2^-20 to 2^80, either sign.
                1 => f64::from_bits((state >> 12) | ((state % 101 + 1003) << 52) | (state << 63)),
                _ => (state % 10_000_000_000_000) as f64 / [1.0, 8.0, 1000.0][i % 9 / 3],
            });
        }
        for x in samples {
            let (ours, std) = (rem_euclid_1000(x), x.rem_euclid(1000.0));
            assert!(
                ours.to_bits() == std.to_bits() || (ours.is_nan() && std.is_nan()),
                "{x:e}: {ours:e} vs {std:e}"
            );
        }
    }
}
