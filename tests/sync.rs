//! Team sync end to end against a small HTTP/1.1 server on 127.0.0.1 that implements the
//! protocol of reference §11 (GET with ETag / If-None-Match, the hashes view, PUT with
//! If-Match, 412 on a stale checksum, 413 past an entry cap).

mod common;

use common::{block_on, Recorder, TestClock};
use memdir::host::HostResult;
use memdir::json::{parse, Json};
use memdir::sync::{
    hash_content, HttpRequest, HttpResponse, SkipReason, SyncConfig, SyncState, TeamSync,
    TeamWatcher, Transport, MAX_PULL_ENTRIES, MAX_RESPONSE_BYTES, MAX_RETRY_AFTER_MS,
};
use memdir::{Clock, Code, FieldValue, FileSystem, HostError, MemFs};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

// ---------------------------------------------------------------- the server

/// Method, path and headers of one request.
type Logged = (String, String, Vec<(String, String)>);

#[derive(Default)]
struct ServerState {
    entries: BTreeMap<String, String>,
    exists: bool,
    max_entries: Option<usize>,
    /// Answer every request with this status (to test permanent failures).
    force_status: Option<u16>,
    /// Method, path and headers of every request, in order.
    log: Vec<Logged>,
}

impl ServerState {
    fn checksum(&self) -> String {
        let mut all = String::new();
        for (k, v) in &self.entries {
            all.push_str(&format!("{k}\0{}\0", hash_content(v)));
        }
        hash_content(&all)
    }

    fn body(&self, with_entries: bool) -> String {
        let checksums = Json::Object(
            self.entries
                .iter()
                .map(|(k, v)| (k.clone(), Json::String(hash_content(v))))
                .collect(),
        );
        let mut content = vec![("entryChecksums".to_owned(), checksums)];
        if with_entries {
            let entries = self
                .entries
                .iter()
                .map(|(k, v)| (k.clone(), Json::String(v.clone())))
                .collect();
            content.insert(0, ("entries".to_owned(), Json::Object(entries)));
        }
        Json::Object(vec![
            ("checksum".to_owned(), Json::String(self.checksum())),
            ("content".to_owned(), Json::Object(content)),
        ])
        .to_string()
    }
}

type Shared = Arc<Mutex<ServerState>>;

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn handle(
    state: &Shared,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &str,
) -> (u16, String) {
    let mut s = state.lock().unwrap();
    s.log
        .push((method.to_owned(), path.to_owned(), headers.to_vec()));
    if let Some(status) = s.force_status {
        return (status, r#"{"error":{"message":"forced"}}"#.to_owned());
    }
    if !path.starts_with("/api/claude_code/team_memory?repo=acme%2Fapp") {
        return (400, "{}".to_owned());
    }
    let etag = format!("\"{}\"", s.checksum());
    match method {
        "GET" if path.ends_with("&view=hashes") => {
            if !s.exists {
                return (404, "{}".to_owned());
            }
            (200, s.body(false))
        }
        "GET" => {
            if !s.exists {
                return (404, "{}".to_owned());
            }
            if header(headers, "if-none-match") == Some(etag.as_str()) {
                return (304, String::new());
            }
            (200, s.body(true))
        }
        "PUT" => {
            if s.exists && header(headers, "if-match").is_some_and(|m| m != etag) {
                return (412, r#"{"error":{"message":"stale"}}"#.to_owned());
            }
            let doc = parse(body).unwrap();
            let Some(Json::Object(pairs)) = doc.get("entries") else {
                return (400, "{}".to_owned());
            };
            let mut merged = s.entries.clone();
            for (k, v) in pairs {
                merged.insert(k.clone(), v.as_str().unwrap().to_owned());
            }
            if let Some(max) = s.max_entries {
                if merged.len() > max {
                    let body = format!(
                        r#"{{"error":{{"details":{{"error_code":"team_memory_too_many_entries","max_entries":{max},"received_entries":{}}}}}}}"#,
                        merged.len()
                    );
                    return (413, body);
                }
            }
            s.entries = merged;
            s.exists = true;
            (200, format!(r#"{{"checksum":"{}"}}"#, s.checksum()))
        }
        _ => (405, "{}".to_owned()),
    }
}

fn serve(stream: TcpStream, state: &Shared) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).unwrap();
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (n, v) = h.split_once(':').unwrap();
        headers.push((n.trim().to_owned(), v.trim().to_owned()));
    }
    let len: usize = header(&headers, "content-length").map_or(0, |v| v.parse().unwrap());
    let mut body = vec![0; len];
    reader.read_exact(&mut body).unwrap();
    let (status, text) = handle(
        state,
        &method,
        &path,
        &headers,
        &String::from_utf8(body).unwrap(),
    );
    let etag = format!("\"{}\"", state.lock().unwrap().checksum());
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nETag: {etag}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )
    .unwrap();
}

/// Start a server on 127.0.0.1 with an ephemeral port; returns its base URL and state.
fn start_server(entries: &[(&str, &str)]) -> (String, Shared) {
    let state: Shared = Arc::default();
    {
        let mut s = state.lock().unwrap();
        for (k, v) in entries {
            s.entries.insert((*k).to_owned(), (*v).to_owned());
        }
        s.exists = !entries.is_empty();
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let shared = state.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            serve(stream.unwrap(), &shared);
        }
    });
    (base, state)
}

// ---------------------------------------------------------------- the client side

/// A blocking HTTP/1.1 client over `TcpStream` (fine under `block_on`).
struct TcpTransport;

impl Transport for TcpTransport {
    async fn send(&self, r: HttpRequest) -> HostResult<HttpResponse> {
        let rest = r.url.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_at(rest.find('/').unwrap());
        let mut stream = TcpStream::connect(host)
            .map_err(|e| HostError::new(Some("ECONNREFUSED"), e.to_string()))?;
        let body = r.body.unwrap_or_default();
        let mut head = format!(
            "{} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\n",
            r.method,
            body.len()
        );
        for (n, v) in &r.headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).unwrap();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .map(|l| {
                let (n, v) = l.split_once(':').unwrap();
                (n.trim().to_owned(), v.trim().to_owned())
            })
            .collect();
        Ok(HttpResponse {
            status,
            headers,
            body: body.to_owned(),
        })
    }
}

const TEAM: &str = "/m/team/";

fn sync<'a>(
    fs: &'a MemFs,
    clock: &'a TestClock,
    tel: &'a Recorder,
    base: &str,
) -> TeamSync<&'a MemFs, &'a TcpTransport, &'a TestClock, &'a Recorder> {
    let mut config = SyncConfig::new(base, "acme/app", TEAM);
    config
        .headers
        .push(("Authorization".to_owned(), "Bearer test".to_owned()));
    TeamSync {
        fs,
        transport: &TcpTransport,
        clock,
        telemetry: tel,
        config,
    }
}

fn read(fs: &MemFs, path: &str) -> Option<String> {
    block_on(fs.read_file(path)).ok()
}

fn secret_token() -> String {
    format!("ghp_{}", "S3cr3t".repeat(6))
}

// ---------------------------------------------------------------- tests

#[test]
fn pull_push_conflict_and_secrets_end_to_end() {
    let big = "x".repeat(250_001);
    let (base, server) = start_server(&[
        (
            "MEMORY.md",
            "- [API conventions](api.md) — how we name endpoints\n",
        ),
        (
            "api.md",
            "---\nname: API conventions\n---\nUse kebab-case paths.\n",
        ),
        ("../escape.md", "outside"),
        ("%2e%2e%2fx.md", "outside"),
        ("sub/../../../etc/x", "outside"),
        ("huge.md", big.as_str()),
    ]);
    let fs = MemFs::new();
    let clock = TestClock::new(1_000.0);
    let tel = Recorder::default();
    let s = sync(&fs, &clock, &tel, &base);
    let mut state = SyncState::default();

    // First pull: two files written, traversal keys and the oversized entry refused.
    let pulled = block_on(s.pull(&mut state)).unwrap();
    assert_eq!(pulled.files_written, 2);
    assert!(pulled.server_has_content && !pulled.not_modified);
    let skipped: BTreeMap<&str, &SkipReason> = pulled
        .skipped
        .iter()
        .map(|e| (e.key.as_str(), &e.reason))
        .collect();
    assert_eq!(
        skipped["../escape.md"],
        &SkipReason::InvalidKey(Code::PathEscapes)
    );
    assert_eq!(
        skipped["%2e%2e%2fx.md"],
        &SkipReason::InvalidKey(Code::PathUrlEncodedTraversal)
    );
    assert_eq!(
        skipped["sub/../../../etc/x"],
        &SkipReason::InvalidKey(Code::PathEscapes)
    );
    assert_eq!(skipped["huge.md"], &SkipReason::TooLarge);
    let files: Vec<String> = fs.snapshot().into_iter().map(|(p, _)| p).collect();
    assert_eq!(files, ["/m/team/MEMORY.md", "/m/team/api.md"]);
    assert_eq!(
        read(&fs, "/m/team/api.md").unwrap(),
        "---\nname: API conventions\n---\nUse kebab-case paths.\n"
    );
    assert_eq!(state.server_checksums.len(), 6);
    let pull_event = tel.last("team_sync_pull");
    assert_eq!(pull_event["success"], FieldValue::Bool(true));
    assert_eq!(pull_event["files_written"], FieldValue::Num(2.0));
    {
        let s = server.lock().unwrap();
        let (_, _, headers) = s.log.last().unwrap();
        assert_eq!(header(headers, "authorization"), Some("Bearer test"));
        assert_eq!(header(headers, "if-none-match"), None);
    }

    // The server drops the bad entries: a full answer again, but identical files stay untouched.
    server
        .lock()
        .unwrap()
        .entries
        .retain(|k, _| k == "MEMORY.md" || k == "api.md");
    let mtime = block_on(fs.stat("/m/team/api.md")).unwrap().mtime_ms;
    let pulled = block_on(s.pull(&mut state)).unwrap();
    assert_eq!((pulled.files_written, pulled.not_modified), (0, false));
    assert_eq!(block_on(fs.stat("/m/team/api.md")).unwrap().mtime_ms, mtime);
    // Nothing changed since: If-None-Match gets a 304.
    let pulled = block_on(s.pull(&mut state)).unwrap();
    assert!(pulled.not_modified);
    assert_eq!(
        tel.last("team_sync_pull")["not_modified"],
        FieldValue::Bool(true)
    );

    // Local edits: one changed file, one new file in a subdirectory, one file with a secret.
    let secret = secret_token();
    fs.insert_file(
        "/m/team/api.md",
        "---\nname: API conventions\n---\nUse kebab-case, plural nouns.\n",
    );
    fs.insert_file("/m/team/notes/deploy.md", "Deploy on Tuesdays.\n");
    fs.insert_file(
        "/m/team/creds.md",
        format!("the staging token is {secret}\n"),
    );
    let pushed = block_on(s.push(&mut state)).unwrap();
    assert_eq!(pushed.files_uploaded, 2);
    assert_eq!(pushed.put_batches, 1);
    assert!(!pushed.conflict);
    assert_eq!(pushed.skipped_secrets.len(), 1);
    assert_eq!(pushed.skipped_secrets[0].path, "creds.md");
    assert_eq!(pushed.skipped_secrets[0].rule_id, "github-pat");
    {
        let sv = server.lock().unwrap();
        assert_eq!(
            sv.entries.keys().collect::<Vec<_>>(),
            ["MEMORY.md", "api.md", "notes/deploy.md"]
        );
        assert_eq!(sv.entries["notes/deploy.md"], "Deploy on Tuesdays.\n");
        let (method, _, headers) = sv.log.last().unwrap();
        assert_eq!(method, "PUT");
        assert!(header(headers, "if-match")
            .unwrap()
            .starts_with("\"sha256:"));
        assert!(!sv
            .log
            .iter()
            .any(|(_, _, h)| format!("{h:?}").contains(&secret)));
    }
    let skipped_event = tel.last("team_secret_skipped");
    assert_eq!(skipped_event["file_count"], FieldValue::Num(1.0));
    assert_eq!(
        skipped_event["rule_ids"],
        FieldValue::Str("github-pat".to_owned())
    );
    assert_eq!(
        tel.last("team_sync_push")["files_uploaded"],
        FieldValue::Num(2.0)
    );

    // Nothing changed: nothing is sent.
    let puts_before = server
        .lock()
        .unwrap()
        .log
        .iter()
        .filter(|(m, _, _)| m == "PUT")
        .count();
    let pushed = block_on(s.push(&mut state)).unwrap();
    assert_eq!(pushed.files_uploaded, 0);
    let puts_after = server
        .lock()
        .unwrap()
        .log
        .iter()
        .filter(|(m, _, _)| m == "PUT")
        .count();
    assert_eq!(puts_before, puts_after);

    // Another client writes meanwhile; our next push meets a 412, probes, retries, wins.
    {
        let mut sv = server.lock().unwrap();
        sv.entries
            .insert("from-bob.md".to_owned(), "Bob's note\n".to_owned());
        sv.entries
            .insert("api.md".to_owned(), "Bob's version\n".to_owned());
    }
    fs.insert_file(
        "/m/team/notes/deploy.md",
        "Deploy on Tuesdays and Thursdays.\n",
    );
    clock.now.set(5_000.0);
    let pushed = block_on(s.push(&mut state)).unwrap();
    assert!(pushed.conflict);
    assert_eq!(pushed.conflict_retries, 1);
    // After re-reading the server, the delta is every key whose local copy differs: deploy.md
    // and api.md (local wins over Bob's edit, which is named and kept).
    assert_eq!(pushed.files_uploaded, 2);
    assert_eq!(pushed.overwritten, ["api.md"]);
    assert_eq!(pushed.saved_copies, [".conflicts/api.md.5000"]);
    assert_eq!(
        read(&fs, "/m/team/.conflicts/api.md.5000").as_deref(),
        Some("Bob's version\n")
    );
    {
        let sv = server.lock().unwrap();
        assert_eq!(
            sv.entries["notes/deploy.md"],
            "Deploy on Tuesdays and Thursdays.\n"
        );
        assert!(sv.entries["api.md"].contains("plural nouns"));
        let gets_after_the_412 = sv
            .log
            .iter()
            .skip_while(|(m, _, _)| m != "PUT")
            .filter(|(m, _, _)| m == "GET")
            .count();
        assert!(gets_after_the_412 >= 1);
        // The conflict copy is not a memory file: never pushed.
        assert!(!sv.entries.keys().any(|k| k.contains("conflicts")));
    }
    let push_event = tel.last("team_sync_push");
    assert_eq!(push_event["conflict"], FieldValue::Bool(true));
    assert_eq!(push_event["conflict_retries"], FieldValue::Num(1.0));

    // Pull brings Bob's new file; our files are what the server has.
    let pulled = block_on(s.pull(&mut state)).unwrap();
    assert_eq!(pulled.files_written, 1);
    assert_eq!(read(&fs, "/m/team/from-bob.md").unwrap(), "Bob's note\n");

    // The secret never left: not on the server, not in telemetry, not in any message.
    let everything = format!("{:?}", server.lock().unwrap().entries);
    assert!(!everything.contains(&secret));
    assert!(!tel.dump().contains(&secret));
    assert!(!tel.dump().contains("creds.md"));
}

#[test]
fn entry_cap_is_learned_from_a_413() {
    let (base, server) = start_server(&[]);
    server.lock().unwrap().max_entries = Some(2);
    let fs = MemFs::new();
    let clock = TestClock::new(0.0);
    let tel = Recorder::default();
    let s = sync(&fs, &clock, &tel, &base);
    let mut state = SyncState::default();
    let pulled = block_on(s.pull(&mut state)).unwrap();
    assert!(!pulled.server_has_content);
    for name in ["c.md", "a.md", "b.md"] {
        fs.insert_file(&format!("/m/team/{name}"), format!("note {name}"));
    }
    let err = block_on(s.push(&mut state)).unwrap_err();
    assert_eq!(err.code, Code::Http);
    assert_eq!(err.status, Some(413));
    assert!(err.message.contains("at most 2 entries"), "{}", err.message);
    assert_eq!(state.server_max_entries, Some(2));
    let event = tel.last("team_sync_push");
    assert_eq!(event["success"], FieldValue::Bool(false));
    assert_eq!(
        event["errorType"],
        FieldValue::Str("too_many_entries".to_owned())
    );
    assert_eq!(
        event["error_code"],
        FieldValue::Str("team_memory_too_many_entries".to_owned())
    );
    assert_eq!(event["server_max_entries"], FieldValue::Num(2.0));
    assert_eq!(event["server_received_entries"], FieldValue::Num(3.0));

    // The next push sends only the first two keys in order.
    let pushed = block_on(s.push(&mut state)).unwrap();
    assert_eq!((pushed.files_uploaded, pushed.dropped_by_cap), (2, 1));
    let keys: Vec<String> = server.lock().unwrap().entries.keys().cloned().collect();
    assert_eq!(keys, ["a.md", "b.md"]);
    let capped = tel.last("team_entries_capped");
    assert_eq!(capped["total_entries"], FieldValue::Num(3.0));
    assert_eq!(capped["dropped_count"], FieldValue::Num(1.0));
}

#[test]
fn large_pushes_are_split_into_batches() {
    let (base, server) = start_server(&[]);
    let fs = MemFs::new();
    let clock = TestClock::new(0.0);
    let tel = Recorder::default();
    let s = sync(&fs, &clock, &tel, &base);
    let mut state = SyncState::default();
    for i in 0..5 {
        fs.insert_file(&format!("/m/team/f{i}.md"), "y".repeat(90_000));
    }
    let pushed = block_on(s.push(&mut state)).unwrap();
    assert_eq!(pushed.files_uploaded, 5);
    assert_eq!(pushed.put_batches, 3);
    assert_eq!(
        tel.last("team_sync_push")["put_batches"],
        FieldValue::Num(3.0)
    );
    let sv = server.lock().unwrap();
    assert_eq!(sv.entries.len(), 5);
    let bodies_ok = sv.log.iter().filter(|(m, _, _)| m == "PUT").count();
    assert_eq!(bodies_ok, 3);
}

#[test]
fn watcher_debounces_and_stops_after_a_permanent_failure() {
    let (base, server) = start_server(&[("MEMORY.md", "- [A](a.md) — a\n")]);
    let fs = MemFs::new();
    let clock = TestClock::new(10_000.0);
    let tel = Recorder::default();
    let watcher = TeamWatcher::new(sync(&fs, &clock, &tel, &base), SyncState::default());
    let pulled = block_on(watcher.start()).unwrap();
    assert_eq!(pulled.files_written, 1);
    assert_eq!(
        tel.last("team_sync_started")["initial_files_pulled"],
        FieldValue::Num(1.0)
    );

    // Three quick changes make one push, two seconds after the last one.
    fs.insert_file("/m/team/a.md", "first");
    watcher.notify(true);
    clock.now.set(11_000.0);
    fs.insert_file("/m/team/a.md", "second");
    watcher.notify(true);
    clock.now.set(12_500.0);
    assert!(block_on(watcher.tick()).is_none(), "not due yet");
    clock.now.set(13_000.0);
    let pushed = block_on(watcher.tick()).unwrap().unwrap();
    // a.md, and the index without the server's entry for a file that was not there at the pull.
    assert_eq!(pushed.files_uploaded, 2);
    assert_eq!(server.lock().unwrap().entries["a.md"], "second");
    assert!(block_on(watcher.tick()).is_none());

    // The async driver: a change, then run until the clock passes a point.
    fs.insert_file("/m/team/b.md", "bee");
    watcher.notify(true);
    block_on(watcher.run(|| clock.now_ms() > 20_000.0));
    assert_eq!(server.lock().unwrap().entries["b.md"], "bee");

    // The server starts refusing (403): pushes stop until a deletion.
    server.lock().unwrap().force_status = Some(403);
    fs.insert_file("/m/team/c.md", "sea");
    watcher.notify(true);
    clock.now.set(clock.now_ms() + 2_000.0);
    let err = block_on(watcher.tick()).unwrap().unwrap_err();
    assert_eq!(err.status, Some(403));
    assert_eq!(watcher.debouncer().suppressed(), Some("http_403"));
    let suppressed = tel.last("team_push_suppressed");
    assert_eq!(suppressed["reason"], FieldValue::Str("http_403".to_owned()));
    assert_eq!(suppressed["status"], FieldValue::Num(403.0));
    let pushes = tel.count("team_sync_push");
    watcher.notify(true);
    clock.now.set(clock.now_ms() + 5_000.0);
    assert!(block_on(watcher.tick()).is_none());
    assert!(block_on(watcher.flush()).is_none());
    assert_eq!(tel.count("team_sync_push"), pushes);
    // A deletion lifts the suppression.
    server.lock().unwrap().force_status = None;
    block_on(fs.remove("/m/team/c.md")).unwrap();
    watcher.notify(false);
    clock.now.set(clock.now_ms() + 2_000.0);
    assert!(block_on(watcher.tick()).unwrap().is_ok());
}

#[test]
fn transport_failures_and_timeouts_are_errors_with_causes() {
    let fs = MemFs::new();
    let clock = TestClock::new(0.0);
    let tel = Recorder::default();
    // Nothing listens on this port (bound then dropped): every attempt is refused, retried
    // three times with backoff, then reported.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let s = sync(&fs, &clock, &tel, &format!("http://127.0.0.1:{port}"));
    let err = block_on(s.pull(&mut SyncState::default())).unwrap_err();
    assert_eq!(err.code, Code::Http);
    assert_eq!(
        err.cause.clone().unwrap().code.as_deref(),
        Some("ECONNREFUSED")
    );
    // Backoff slept 500 + 1000 + 2000 ms plus jitter on the test clock.
    assert!(
        clock.now_ms() >= 3_500.0 && clock.now_ms() < 4_400.0,
        "{}",
        clock.now_ms()
    );
    assert_eq!(
        tel.last("team_sync_pull")["errorType"],
        FieldValue::Str("network".to_owned())
    );
}

// ---------------------------------------------------------------- in-memory server (issue 19)

/// The same protocol as the TCP server, called directly (no socket): an ETag on every answer.
struct MemServer(Shared);

impl Transport for MemServer {
    async fn send(&self, r: HttpRequest) -> HostResult<HttpResponse> {
        let path = r.url.split_once("//").map_or("", |(_, rest)| rest);
        let path = path.find('/').map_or("", |i| &path[i..]);
        let (status, body) = handle(
            &self.0,
            &r.method,
            path,
            &r.headers,
            r.body.as_deref().unwrap_or(""),
        );
        let etag = format!("\"{}\"", self.0.lock().unwrap().checksum());
        Ok(HttpResponse {
            status,
            headers: vec![("ETag".to_owned(), etag)],
            body,
        })
    }
}

fn mem_server(entries: &[(&str, &str)]) -> (MemServer, Shared) {
    let state: Shared = Arc::default();
    {
        let mut s = state.lock().unwrap();
        for (k, v) in entries {
            s.entries.insert((*k).to_owned(), (*v).to_owned());
        }
        s.exists = !entries.is_empty();
    }
    (MemServer(state.clone()), state)
}

fn mem_sync<'a, X: Transport>(
    fs: &'a MemFs,
    clock: &'a TestClock,
    tel: &'a Recorder,
    transport: X,
    team: &str,
) -> TeamSync<&'a MemFs, X, &'a TestClock, &'a Recorder> {
    TeamSync {
        fs,
        transport,
        clock,
        telemetry: tel,
        config: SyncConfig::new("https://team.example", "acme/app", team),
    }
}

/// Answers scripted in order (then 404), recording when each request came.
struct Script {
    answers: RefCell<Vec<HttpResponse>>,
    clock: Rc<TestClock>,
    at: RefCell<Vec<f64>>,
}

impl Transport for &Script {
    async fn send(&self, _r: HttpRequest) -> HostResult<HttpResponse> {
        self.at.borrow_mut().push(self.clock.now_ms());
        let mut answers = self.answers.borrow_mut();
        Ok(if answers.is_empty() {
            HttpResponse {
                status: 404,
                ..Default::default()
            }
        } else {
            answers.remove(0)
        })
    }
}

fn answer(status: u16, headers: &[(&str, &str)], body: &str) -> HttpResponse {
    HttpResponse {
        status,
        headers: headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
        body: body.to_owned(),
    }
}

fn pull_body(entries: &[(String, String)]) -> String {
    let entries = entries
        .iter()
        .map(|(k, v)| (k.clone(), Json::String(v.clone())))
        .collect();
    Json::Object(vec![
        ("checksum".to_owned(), Json::String("sha256:v1".to_owned())),
        (
            "content".to_owned(),
            Json::Object(vec![("entries".to_owned(), Json::Object(entries))]),
        ),
    ])
    .to_string()
}

#[test]
fn a_colliding_entry_is_skipped_and_reported_and_the_rest_is_written() {
    // `a.md` is a directory locally: the server's file `a.md` cannot be written there.
    let (server, _) = mem_server(&[
        ("a.md", "server a\n"),
        ("b.md", "server b\n"),
        ("z/c.md", "server c\n"),
    ]);
    let fs = MemFs::new();
    fs.insert_file("/m/team/a.md/inside.md", "local\n");
    let (clock, tel) = (TestClock::new(0.0), Recorder::default());
    let s = mem_sync(&fs, &clock, &tel, &server, TEAM);
    let mut state = SyncState::default();
    let pulled = block_on(s.pull(&mut state)).unwrap();
    assert_eq!(pulled.files_written, 2);
    assert_eq!(pulled.skipped.len(), 1);
    assert_eq!(pulled.skipped[0].key, "a.md");
    assert!(
        matches!(&pulled.skipped[0].reason, SkipReason::WriteFailed(code) if !code.is_empty()),
        "{:?}",
        pulled.skipped
    );
    assert_eq!(read(&fs, "/m/team/b.md").as_deref(), Some("server b\n"));
    assert_eq!(read(&fs, "/m/team/z/c.md").as_deref(), Some("server c\n"));
    // Not reflected in full: the next pull asks for everything again (no If-None-Match) and
    // skips the same entry, every time, without failing.
    assert_eq!(state.pulled_checksum, None);
    let again = block_on(s.pull(&mut state)).unwrap();
    assert!(!again.not_modified);
    assert_eq!(again.skipped.len(), 1);
    assert_eq!(
        tel.last("team_sync_pull")["success"],
        FieldValue::Bool(true)
    );
}

#[test]
fn pull_bodies_over_the_byte_cap_are_refused_before_parsing() {
    let clock = Rc::new(TestClock::new(0.0));
    let huge = format!(
        "{{\"checksum\":\"x\",\"content\":{{\"entries\":{{\"a.md\":\"{}\"}}}}}}",
        "y".repeat(MAX_RESPONSE_BYTES)
    );
    let script = Script {
        answers: RefCell::new(vec![
            answer(200, &[], &huge),
            // A Content-Length over the cap is refused even when the transport cut the body.
            answer(
                200,
                &[("Content-Length", &(MAX_RESPONSE_BYTES + 1).to_string())],
                "{\"checksum\":\"x\",\"content\":{\"entries\":{\"b.md\":\"b\"}}}",
            ),
        ]),
        clock: clock.clone(),
        at: RefCell::default(),
    };
    let fs = MemFs::new();
    let tel = Recorder::default();
    let s = mem_sync(&fs, &clock, &tel, &script, TEAM);
    for _ in 0..2 {
        let err = block_on(s.pull(&mut SyncState::default())).unwrap_err();
        assert_eq!(err.code, Code::Http);
        assert!(err.message.contains("cap"), "{}", err.message);
    }
    assert!(fs.snapshot().is_empty(), "nothing written");
    assert_eq!(script.at.borrow().len(), 2, "not retried");
}

#[test]
fn pulls_write_at_most_the_entry_cap() {
    let entries: Vec<(String, String)> = (0..MAX_PULL_ENTRIES + 5)
        .map(|i| (format!("n{i:05}.md"), format!("note {i}\n")))
        .collect();
    let clock = Rc::new(TestClock::new(0.0));
    let script = Script {
        answers: RefCell::new(vec![answer(200, &[], &pull_body(&entries))]),
        clock: clock.clone(),
        at: RefCell::default(),
    };
    let fs = MemFs::new();
    let tel = Recorder::default();
    let s = mem_sync(&fs, &clock, &tel, &script, TEAM);
    let pulled = block_on(s.pull(&mut SyncState::default())).unwrap();
    assert_eq!(pulled.files_written, MAX_PULL_ENTRIES);
    assert_eq!(pulled.entries_over_cap, 5);
    assert_eq!(fs.snapshot().len(), MAX_PULL_ENTRIES);
    // The first keys in key order are the ones written.
    assert!(read(&fs, &format!("/m/team/n{:05}.md", MAX_PULL_ENTRIES - 1)).is_some());
    assert!(read(&fs, &format!("/m/team/n{:05}.md", MAX_PULL_ENTRIES)).is_none());
}

#[test]
fn retry_after_is_honoured_in_seconds_and_as_a_date_and_capped() {
    let ok = pull_body(&[("a.md".to_owned(), "a\n".to_owned())]);
    // Seconds on a 429; an HTTP date on a 503 (the clock starts at 1994-11-06T08:49:30Z, the
    // date is 7 s later).
    let start = 784_111_770_000.0;
    let clock = Rc::new(TestClock::new(start));
    let script = Script {
        answers: RefCell::new(vec![
            answer(429, &[("Retry-After", "4")], ""),
            answer(503, &[("retry-after", "Sun, 06 Nov 1994 08:49:41 GMT")], ""),
            answer(200, &[], &ok),
        ]),
        clock: clock.clone(),
        at: RefCell::default(),
    };
    let fs = MemFs::new();
    let tel = Recorder::default();
    let s = mem_sync(&fs, &clock, &tel, &script, TEAM);
    let pulled = block_on(s.pull(&mut SyncState::default())).unwrap();
    assert_eq!(pulled.files_written, 1);
    let at: Vec<f64> = script.at.borrow().iter().map(|t| t - start).collect();
    assert_eq!(at, [0.0, 4_000.0, 11_000.0]);

    // A wait over the cap is not waited: one request, an error naming the wait.
    let long = (MAX_RETRY_AFTER_MS / 1000 + 1).to_string();
    let script = Script {
        answers: RefCell::new(vec![answer(429, &[("Retry-After", &long)], "")]),
        clock: clock.clone(),
        at: RefCell::default(),
    };
    let s = mem_sync(&fs, &clock, &tel, &script, TEAM);
    let before = clock.now_ms();
    let err = block_on(s.pull(&mut SyncState::default())).unwrap_err();
    assert_eq!(err.status, Some(429));
    assert!(
        err.message.contains(&format!("{long} s")),
        "{}",
        err.message
    );
    assert_eq!(script.at.borrow().len(), 1);
    assert_eq!(clock.now_ms(), before);
}

#[test]
fn pushes_send_only_memory_files_and_no_secret_in_a_key_or_an_index_line() {
    let (server, shared) = mem_server(&[]);
    let fs = MemFs::new();
    let (clock, tel) = (TestClock::new(0.0), Recorder::default());
    let token = secret_token();
    let memory = |name: &str| {
        format!("---\nname: {name}\ndescription: about {name}\ntype: project\n---\nbody\n")
    };
    fs.insert_file("/m/team/real.md", memory("Real"));
    fs.insert_file("/m/team/real.md.tmp-1a2b3c", memory("Real"));
    fs.insert_file("/m/team/.DS_Store", "binary");
    fs.insert_file("/m/team/notes.txt", "plain text");
    fs.insert_file("/m/team/.hidden/x.md", memory("Hidden"));
    fs.insert_file("/m/team/.conflicts/real.md.5", "old");
    fs.insert_file("/m/team/sub/MEMORY.md", "- [X](x.md)\n");
    fs.insert_file(&format!("/m/team/{token}.md"), memory("Leaky name"));
    fs.insert_file(
        "/m/team/MEMORY.md",
        format!(
            "# Team\n- [Real](real.md) — about Real\n- [Leaky name]({token}.md) — about it\n- [Hook](real2.md) — token {token}\n"
        ),
    );
    fs.insert_file("/m/team/real2.md", memory("Second"));
    let s = mem_sync(&fs, &clock, &tel, &server, TEAM);
    let pushed = block_on(s.push(&mut SyncState::default())).unwrap();
    let sv = shared.lock().unwrap();
    assert_eq!(
        sv.entries.keys().collect::<Vec<_>>(),
        ["MEMORY.md", "real.md", "real2.md"]
    );
    assert_eq!(pushed.files_uploaded, 3);
    // The index sent: the entry of the skipped file and the line holding a secret are gone.
    assert_eq!(
        sv.entries["MEMORY.md"],
        "# Team\n- [Real](real.md) — about Real\n"
    );
    let everything = format!("{:?} {:?} {:?}", sv.entries, sv.log, pushed);
    assert!(!everything.contains(&token), "the token travelled");
    let paths: Vec<&str> = pushed
        .skipped_secrets
        .iter()
        .map(|s| s.path.as_str())
        .collect();
    assert_eq!(paths, ["[REDACTED].md", "MEMORY.md"]);
    assert!(pushed
        .skipped_secrets
        .iter()
        .all(|s| s.rule_id == "github-pat"));
}

/// One teammate: a directory with a store and its own sync state.
struct Mate<'a> {
    store: memdir::Store<&'a MemFs, &'a TestClock>,
    sync: TeamSync<&'a MemFs, &'a MemServer, &'a TestClock, &'a Recorder>,
    state: RefCell<SyncState>,
}

impl<'a> Mate<'a> {
    fn new(
        fs: &'a MemFs,
        clock: &'a TestClock,
        tel: &'a Recorder,
        server: &'a MemServer,
        dir: &str,
    ) -> Self {
        Mate {
            store: memdir::Store::new(
                fs,
                clock,
                memdir::NoTelemetry,
                dir,
                memdir::WriteMode::Auto,
                memdir::store::StoreConfig::default(),
            ),
            sync: mem_sync(fs, clock, tel, server, &format!("{dir}team/")),
            state: RefCell::default(),
        }
    }
    fn save(&self, name: &str, body: &str) {
        let input = memdir::store::SaveInput {
            name: name.to_owned(),
            description: format!("{name} hook"),
            memory_type: "project".to_owned(),
            body: body.to_owned(),
            scope: memdir::store::Scope::Team,
            ..Default::default()
        };
        block_on(self.store.save(input)).unwrap();
    }
    fn push(&self) -> memdir::sync::PushOutcome {
        block_on(self.sync.push(&mut self.state.borrow_mut())).unwrap()
    }
    fn pull(&self) -> memdir::sync::PullOutcome {
        block_on(self.sync.pull(&mut self.state.borrow_mut())).unwrap()
    }
    fn index_files(&self, fs: &MemFs) -> Vec<String> {
        let index = read(fs, &format!("{}team/MEMORY.md", self.store.dir())).unwrap_or_default();
        let mut files: Vec<String> = memdir::index_entry::index_entries(&index)
            .into_iter()
            .map(|(_, e)| e.file)
            .collect();
        files.sort();
        files
    }
    fn team_files(&self, fs: &MemFs) -> Vec<String> {
        let prefix = format!("{}team/", self.store.dir());
        fs.snapshot()
            .into_iter()
            .filter_map(|(p, _)| p.strip_prefix(&prefix).map(str::to_owned))
            .filter(|k| k.ends_with(".md") && k != "MEMORY.md" && !k.starts_with('.'))
            .collect()
    }
}

#[test]
fn two_teammates_keep_both_index_entries_through_push_pull_and_a_412() {
    let (server, shared) = mem_server(&[]);
    let (fs_a, fs_b) = (MemFs::new(), MemFs::new());
    let (clock, tel) = (TestClock::new(1_000.0), Recorder::default());
    let a = Mate::new(&fs_a, &clock, &tel, &server, "/a/");
    let b = Mate::new(&fs_b, &clock, &tel, &server, "/b/");
    a.pull();
    b.pull();
    a.save("Alpha", "from A");
    b.save("Beta", "from B");
    let expected = ["project_alpha.md", "project_beta.md"];
    // push, pull, push, pull
    a.push();
    b.push();
    a.pull();
    b.pull();
    a.push();
    b.push();
    a.pull();
    b.pull();
    for (mate, fs) in [(&a, &fs_a), (&b, &fs_b)] {
        assert_eq!(mate.team_files(fs), expected);
        assert_eq!(mate.index_files(fs), expected, "{}", mate.store.dir());
    }

    // A third memory: A saves and pushes it; B saves a fourth and pushes on a stale ETag (412),
    // then retries. The third is in both indexes, and in the server's.
    a.save("Gamma", "from A again");
    b.save("Delta", "from B again");
    a.push();
    let pushed = b.push();
    assert!(pushed.conflict);
    assert!(
        pushed.overwritten.is_empty(),
        "different files: nothing overwritten"
    );
    let server_index = shared.lock().unwrap().entries["MEMORY.md"].clone();
    assert!(
        server_index.contains("(project_gamma.md)"),
        "{server_index}"
    );
    assert!(
        server_index.contains("(project_delta.md)"),
        "{server_index}"
    );
    a.pull();
    b.pull();
    let all = [
        "project_alpha.md",
        "project_beta.md",
        "project_delta.md",
        "project_gamma.md",
    ];
    for (mate, fs) in [(&a, &fs_a), (&b, &fs_b)] {
        assert_eq!(mate.team_files(fs), all);
        assert_eq!(mate.index_files(fs), all, "{}", mate.store.dir());
    }

    // Both edit the same memory: the later pusher's version wins on the server, the result
    // names the file, and the earlier version is kept in B's .conflicts/.
    clock.now.set(9_000.0);
    fs_a.insert_file(
        "/a/team/project_alpha.md",
        "---\nname: Alpha\ndescription: Alpha hook\ntype: project\n---\nA's edit\n",
    );
    fs_b.insert_file(
        "/b/team/project_alpha.md",
        "---\nname: Alpha\ndescription: Alpha hook\ntype: project\n---\nB's edit\n",
    );
    a.push();
    let pushed = b.push();
    assert!(pushed.conflict);
    assert_eq!(pushed.overwritten, ["project_alpha.md"]);
    assert_eq!(pushed.saved_copies, [".conflicts/project_alpha.md.9000"]);
    assert!(read(&fs_b, "/b/team/.conflicts/project_alpha.md.9000")
        .unwrap()
        .contains("A's edit"));
    assert!(shared.lock().unwrap().entries["project_alpha.md"].contains("B's edit"));
    // A pulls B's version over its own, which it had pushed: nothing of A's is lost, so no copy.
    let pulled = a.pull();
    assert!(pulled.overwritten.is_empty(), "{pulled:?}");
    assert!(read(&fs_a, "/a/team/project_alpha.md")
        .unwrap()
        .contains("B's edit"));
}

#[test]
fn a_pull_keeps_an_unpushed_local_edit_it_replaces() {
    let (server, _) = mem_server(&[("n.md", "server\n")]);
    let fs = MemFs::new();
    let (clock, tel) = (TestClock::new(42.0), Recorder::default());
    let s = mem_sync(&fs, &clock, &tel, &server, TEAM);
    let mut state = SyncState::default();
    fs.insert_file("/m/team/n.md", "mine, never pushed\n");
    let pulled = block_on(s.pull(&mut state)).unwrap();
    assert_eq!(pulled.overwritten, ["n.md"]);
    assert_eq!(pulled.saved_copies, [".conflicts/n.md.42"]);
    assert_eq!(
        read(&fs, "/m/team/.conflicts/n.md.42").as_deref(),
        Some("mine, never pushed\n")
    );
    assert_eq!(read(&fs, "/m/team/n.md").as_deref(), Some("server\n"));
}

#[test]
fn the_private_scope_syncs_the_directory_without_its_team_folder_or_other_files() {
    let (server, state) = mem_server(&[
        (
            "a.md",
            "---\nname: A\ndescription: from the other machine\ntype: user\n---\na\n",
        ),
        ("team/x.md", "a team file in a private remote\n"),
        (".gitattributes", "* text\n"),
        ("notes.txt", "not a memory\n"),
    ]);
    let fs = MemFs::new();
    let (clock, tel) = (TestClock::new(7.0), Recorder::default());
    let mut s = mem_sync(&fs, &clock, &tel, &server, "/m/");
    s.config = SyncConfig::private("https://team.example", "acme/app", "/m/");
    fs.insert_file("/m/team/t.md", "team memory: never in the private remote\n");
    fs.insert_file(
        "/m/b.md",
        "---\nname: B\ndescription: from this machine\ntype: user\n---\nb\n",
    );
    let mut sync_state = SyncState::default();
    let pulled = block_on(s.pull(&mut sync_state)).unwrap();
    let mut skipped: Vec<(&str, &SkipReason)> = pulled
        .skipped
        .iter()
        .map(|e| (e.key.as_str(), &e.reason))
        .collect();
    skipped.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(
        skipped,
        [
            (".gitattributes", &SkipReason::NotSynced),
            ("notes.txt", &SkipReason::NotSynced),
            ("team/x.md", &SkipReason::NotSynced),
        ]
    );
    assert!(read(&fs, "/m/a.md").is_some());
    assert!(read(&fs, "/m/team/x.md").is_none() && read(&fs, "/m/notes.txt").is_none());
    // The private index is re-derived from the private files only.
    let index = read(&fs, "/m/MEMORY.md").unwrap();
    assert!(
        index.contains("(a.md)") && index.contains("(b.md)"),
        "{index}"
    );
    assert!(!index.contains("t.md"), "{index}");

    block_on(s.push(&mut sync_state)).unwrap();
    let remote = state.lock().unwrap().entries.clone();
    assert!(remote.contains_key("b.md") && remote.contains_key("MEMORY.md"));
    assert!(
        !remote.contains_key("team/t.md"),
        "the team folder is not pushed"
    );
    assert!(!remote["MEMORY.md"].contains("t.md"));
}

#[test]
fn the_private_scope_refuses_keys_a_case_insensitive_or_windows_disk_reads_as_team() {
    // On APFS or NTFS `Team/` is `team/`; on Windows `team./` and `team /` are too. A private
    // pull must not write any of them, or the file would land in team memory.
    let aliases = [
        "Team/x.md",
        "TEAM/x.md",
        "team./x.md",
        "team /x.md",
        "tEaM/sub/y.md",
    ];
    let body = "---\nname: X\ndescription: aliased team key\ntype: user\n---\nx\n";
    let entries: Vec<(&str, &str)> = aliases.iter().map(|k| (*k, body)).collect();
    let (server, state) = mem_server(&entries);
    let fs = MemFs::new();
    let (clock, tel) = (TestClock::new(7.0), Recorder::default());
    let mut s = mem_sync(&fs, &clock, &tel, &server, "/m/");
    s.config = SyncConfig::private("https://team.example", "acme/app", "/m/");
    fs.insert_file("/m/team/t.md", "team memory\n");
    let mut sync_state = SyncState::default();
    let pulled = block_on(s.pull(&mut sync_state)).unwrap();
    let mut skipped: Vec<&str> = pulled.skipped.iter().map(|e| e.key.as_str()).collect();
    skipped.sort();
    let mut want = aliases.to_vec();
    want.sort();
    assert_eq!(skipped, want);
    // Nothing was written under any spelling of the team folder.
    let written: Vec<String> = fs
        .snapshot()
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.to_ascii_lowercase().starts_with("/m/team"))
        .collect();
    assert_eq!(written, vec!["/m/team/t.md".to_owned()]);
    // A push leaves out a local `Team/` folder as it leaves out `team/`.
    fs.insert_file("/m/Team/u.md", body);
    fs.insert_file("/m/p.md", body);
    block_on(s.push(&mut sync_state)).unwrap();
    let remote = state.lock().unwrap().entries.clone();
    assert!(remote.contains_key("p.md"));
    assert!(!remote.contains_key("Team/u.md") && !remote.contains_key("team/t.md"));
    // A folder whose name only starts alike is still private memory.
    let config = SyncConfig::private("https://team.example", "acme/app", "/m/");
    assert!(config.takes("teams/x.md") && config.takes("team_notes.md"));
}
