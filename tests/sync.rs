//! Team sync end to end against a small HTTP/1.1 server on 127.0.0.1 that implements the
//! protocol of reference §11 (GET with ETag / If-None-Match, the hashes view, PUT with
//! If-Match, 412 on a stale checksum, 413 past an entry cap).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{block_on, TestClock};
use memdir::host::HostResult;
use memdir::json::{parse, Json};
use memdir::sync::{
    hash_content, HttpRequest, HttpResponse, SkipReason, SyncConfig, SyncState, TeamSync,
    TeamWatcher, Transport,
};
use memdir::{Clock, Code, FieldValue, FileSystem, HostError, MemFs, Telemetry};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
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

/// One telemetry event: its name and fields.
type Event = (String, Vec<(String, FieldValue)>);

#[derive(Default)]
struct Recorder(RefCell<Vec<Event>>);

impl Telemetry for Recorder {
    fn emit(&self, event: &str, fields: &[(&str, FieldValue)]) {
        self.0.borrow_mut().push((
            event.to_owned(),
            fields
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        ));
    }
}

impl Recorder {
    fn last(&self, event: &str) -> BTreeMap<String, FieldValue> {
        self.0
            .borrow()
            .iter()
            .rev()
            .find(|(e, _)| e == event)
            .map(|(_, f)| f.iter().cloned().collect())
            .unwrap_or_else(|| panic!("no {event} event"))
    }
    fn count(&self, event: &str) -> usize {
        self.0.borrow().iter().filter(|(e, _)| e == event).count()
    }
    fn all_text(&self) -> String {
        format!("{:?}", self.0.borrow())
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
    assert!(!tel.all_text().contains(&secret));
    assert!(!tel.all_text().contains("creds.md"));
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
