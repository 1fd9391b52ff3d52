//! Extraction with scripted LLM replies: valid, malformed and hostile; the cursor, throttle,
//! direct-write skip and coalescing; write modes.

mod common;

use common::{block_on, Recorder, Script, ScriptedLlm, TestClock};
use memdir::extract::{
    ConversationMessage, ExtractOptions, ExtractStatus, Extractor, SkipReason, MAX_OPERATIONS,
};
use memdir::future::join_all;
use memdir::host::LlmPurpose;
use memdir::store::Proposal;
use memdir::{Code, MemFs, Memdir, MemdirConfig, WriteMode};
use std::future::Future;
use std::pin::Pin;

const T0: f64 = 1_700_000_000_000.0;
const DIR: &str = "/m/";

fn config(mode: WriteMode) -> MemdirConfig {
    let mut c = MemdirConfig::new(DIR);
    c.write_mode = mode;
    c
}

fn seeded_fs() -> MemFs {
    let fs = MemFs::new();
    fs.insert_file(
        "/m/user_role.md",
        "---\nname: Role\ndescription: Backend developer\ntype: user\n---\n\nWrites Go.\n",
    );
    fs.insert_file(
        "/m/project_freeze.md",
        "---\nname: Freeze\ndescription: Merge freeze in March\ntype: project\n---\n\nOld.\n",
    );
    fs.insert_file(
        "/m/MEMORY.md",
        "- [Role](user_role.md) — Backend developer\n- [Freeze](project_freeze.md) — Merge freeze in March\n",
    );
    fs
}

fn read(fs: &MemFs, path: &str) -> Option<String> {
    fs.snapshot()
        .into_iter()
        .find(|(p, _)| p == path)
        .map(|(_, d)| String::from_utf8(d).unwrap())
}

fn conversation() -> Vec<ConversationMessage> {
    vec![
        ConversationMessage::user("Please always use tabs in Go code.").with_id("u1"),
        ConversationMessage::assistant("Noted, tabs it is.").with_id("a1"),
    ]
}

const VALID_REPLY: &str = r#"{"operations":[
  {"op":"create","file":"feedback_tabs.md","type":"feedback","name":"Tabs in Go",
   "description":"Use tabs for indentation in Go code","body":"Use tabs.\n**Why:** user asked.\n"},
  {"op":"update","file":"user_role.md","description":"Backend developer, Go and Rust"},
  {"op":"delete","file":"project_freeze.md"}
]}"#;

#[test]
fn valid_reply_creates_updates_and_deletes_through_the_store() {
    let llm = ScriptedLlm::new(&[VALID_REPLY]);
    let rec = Recorder::default();
    let m = Memdir::new(
        seeded_fs(),
        TestClock::new(T0),
        Some(&llm),
        &rec,
        config(WriteMode::Auto),
    );
    let outcome = block_on(m.extract(&conversation(), &ExtractOptions::default())).unwrap();
    assert_eq!(outcome.status, ExtractStatus::Extracted);
    assert_eq!(outcome.message_count, 2);
    assert_eq!(outcome.created, ["feedback_tabs.md"]);
    assert_eq!(outcome.updated, ["user_role.md"]);
    assert_eq!(outcome.deleted, ["project_freeze.md"]);
    assert!(outcome.rejected.is_empty());
    assert_eq!(
        read(m.fs(), "/m/feedback_tabs.md").unwrap(),
        // `modified` (reference 2.1.214) is the time of the write.
        "---\nname: Tabs in Go\ndescription: Use tabs for indentation in Go code\ntype: feedback\nmodified: \"2023-11-14T22:13:20.000Z\"\n---\n\nUse tabs.\n**Why:** user asked.\n"
    );
    assert!(read(m.fs(), "/m/project_freeze.md").is_none());
    assert_eq!(
        read(m.fs(), "/m/MEMORY.md").unwrap(),
        "- [Role](user_role.md) — Backend developer, Go and Rust\n- [Tabs in Go](feedback_tabs.md) — Use tabs for indentation in Go code\n"
    );
    // The request: purpose, the manifest of existing memories, the conversation, the schema.
    let requests = llm.requests.borrow();
    let request = &requests[0];
    assert_eq!(request.purpose, LlmPurpose::Extract);
    assert!(request.system.contains("## Existing memory files"));
    assert!(request.system.contains("[user] user_role.md"));
    assert!(request.system.contains("~2 messages"));
    assert_eq!(
        request.messages[0].content,
        "Please always use tabs in Go code."
    );
    assert_eq!(request.messages.len(), 3);
    assert!(request
        .response_schema
        .as_deref()
        .unwrap()
        .contains("\"operations\""));
    let events = rec.names();
    assert!(events.contains(&"memdir_extract".to_owned()), "{events:?}");
}

#[test]
fn malformed_replies_fail_without_writing_or_moving_the_cursor() {
    for reply in [
        "Sure! I saved the memory.",
        "{\"operations\": [",
        "{\"operations\": {}}",
        "[]",
    ] {
        let llm = ScriptedLlm::new(&[reply, r#"{"operations":[]}"#]);
        let m = Memdir::new(
            seeded_fs(),
            TestClock::new(T0),
            Some(&llm),
            memdir::NoTelemetry,
            config(WriteMode::Auto),
        );
        let before = m.fs().snapshot();
        let x = Extractor::new(1);
        // A reply the library cannot use is a failed model: a typed `failed` outcome.
        let out = block_on(x.run(&m, &conversation(), &ExtractOptions::default())).unwrap();
        assert!(
            matches!(&out.status, ExtractStatus::Failed { code, .. } if code == "HOST_LLM"),
            "{reply}: {out:?}"
        );
        assert_eq!(m.fs().snapshot(), before);
        assert!(x.cursor().is_none());
        assert!(!x.in_flight());
        // The same messages are offered again next time.
        let again = block_on(x.run(&m, &conversation(), &ExtractOptions::default())).unwrap();
        assert_eq!(again.message_count, 2);
        assert_eq!(x.cursor().unwrap().id.as_deref(), Some("a1"));
    }
    // Malformed items inside a good reply are rejected one by one.
    let llm = ScriptedLlm::new(&[r#"{"operations":[{"op":"create","file":"x.md"},7,
        {"op":"create","file":"y.md","type":"User","name":"Y","description":"y","body":""}]}"#]);
    let m = Memdir::new(
        seeded_fs(),
        TestClock::new(T0),
        Some(&llm),
        memdir::NoTelemetry,
        config(WriteMode::Auto),
    );
    let outcome = block_on(m.extract(&conversation(), &ExtractOptions::default())).unwrap();
    let codes: Vec<&str> = outcome.rejected.iter().map(|r| r.code.as_str()).collect();
    assert_eq!(
        codes,
        ["INVALID_MEMORY", "MALFORMED_OPERATION", "INVALID_MEMORY"]
    );
    assert!(outcome.created.is_empty());
}

#[test]
fn hostile_replies_never_write_outside_or_leak_secrets() {
    let secret = format!("ghp_{}", "Zq9x".repeat(9));
    let mut ops = vec![
        r#"{"op":"create","file":"../../etc/cron.md","type":"user","name":"a","description":"b","body":"c"}"#.to_owned(),
        r#"{"op":"create","file":"/etc/passwd.md","type":"user","name":"a","description":"b","body":"c"}"#.to_owned(),
        r#"{"op":"delete","file":"%2e%2e%2fsecrets.md"}"#.to_owned(),
        r#"{"op":"delete","file":"MEMORY.md"}"#.to_owned(),
        r#"{"op":"create","file":"team/x.md","type":"user","name":"a","description":"b","body":"c"}"#.to_owned(),
        format!(r#"{{"op":"create","file":"tokens.md","type":"reference","name":"Token","description":"the token","body":"use {secret}"}}"#),
    ];
    for i in 0..1000 {
        ops.push(format!(
            r#"{{"op":"create","file":"bulk_{i}.md","type":"project","name":"Bulk {i}","description":"item {i}","body":"x"}}"#
        ));
    }
    let reply = format!("{{\"operations\":[{}]}}", ops.join(","));
    let llm = ScriptedLlm::new(&[&reply]);
    let rec = Recorder::default();
    let m = Memdir::new(
        seeded_fs(),
        TestClock::new(T0),
        Some(&llm),
        &rec,
        config(WriteMode::Auto),
    );
    let outcome = block_on(m.extract(&conversation(), &ExtractOptions::default())).unwrap();
    let first: Vec<&str> = outcome
        .rejected
        .iter()
        .take(6)
        .map(|r| r.code.as_str())
        .collect();
    assert_eq!(
        first,
        [
            "PATH_ESCAPES",
            "PATH_ABSOLUTE",
            "PATH_URL_ENCODED_TRAVERSAL",
            "INVALID_MEMORY",
            "INVALID_MEMORY",
            "SECRET_DETECTED"
        ]
    );
    // 6 hostile + 44 bulk fill the first 50; the other 956 are over the cap.
    assert_eq!(outcome.created.len(), MAX_OPERATIONS - 6);
    let over = outcome
        .rejected
        .iter()
        .filter(|r| r.code == "TOO_MANY_OPERATIONS")
        .count();
    assert_eq!(over, 1006 - MAX_OPERATIONS);
    for (path, data) in m.fs().snapshot() {
        assert!(path.starts_with(DIR), "{path}");
        assert!(!String::from_utf8_lossy(&data).contains(&secret), "{path}");
    }
    assert!(!format!("{outcome:?}").contains(&secret));
    assert!(!rec.dump().contains(&secret));
    assert!(read(m.fs(), "/m/tokens.md").is_none());
}

#[test]
fn cursor_throttle_and_direct_write_skip() {
    let llm = ScriptedLlm::new(&[r#"{"operations":[]}"#, r#"{"operations":[]}"#]);
    let rec = Recorder::default();
    let m = Memdir::new(
        seeded_fs(),
        TestClock::new(T0),
        Some(&llm),
        &rec,
        config(WriteMode::Auto),
    );
    let x = Extractor::new(2);
    let opts = ExtractOptions::default();
    let mut convo = conversation();
    let first = block_on(x.run(&m, &convo, &opts)).unwrap();
    assert_eq!(
        first.status,
        ExtractStatus::Skipped {
            reason: SkipReason::Throttled
        }
    );
    let second = block_on(x.run(&m, &convo, &opts)).unwrap();
    assert_eq!(second.status, ExtractStatus::Extracted);
    assert_eq!(second.message_count, 2);
    let third = block_on(x.run(&m, &convo, &opts)).unwrap();
    assert_eq!(
        third.status,
        ExtractStatus::Skipped {
            reason: SkipReason::NoNewMessages
        }
    );
    // The conversation saved a memory itself: skipped, cursor moved past it.
    convo.push(ConversationMessage::user("remember I use vim").with_id("u2"));
    convo.push(
        ConversationMessage::assistant("Saved.")
            .with_id("a2")
            .with_tool_use("Write", "/m/user_editor.md"),
    );
    let fourth = block_on(x.run(&m, &convo, &opts)).unwrap();
    assert_eq!(
        fourth.status,
        ExtractStatus::Skipped {
            reason: SkipReason::DirectWrite
        }
    );
    assert_eq!(x.cursor().unwrap().id.as_deref(), Some("a2"));
    assert!(rec
        .names()
        .contains(&"memdir_extract_skipped_direct_write".to_owned()));
    // Only the one run reached the model; each message was offered once.
    assert_eq!(llm.requests.borrow().len(), 1);
    // A Write outside the memory directory does not count.
    convo.push(
        ConversationMessage::user("x")
            .with_id("u3")
            .with_tool_use("Write", "/m-other/a.md"),
    );
    convo.push(ConversationMessage::assistant("y").with_id("a3"));
    let _ = block_on(x.run(&m, &convo, &opts)).unwrap();
    let fifth = block_on(x.run(&m, &convo, &opts)).unwrap();
    assert_eq!(fifth.status, ExtractStatus::Extracted);
    assert_eq!(fifth.message_count, 2);
}

#[test]
fn overlapping_calls_coalesce_into_one_trailing_run() {
    let llm = ScriptedLlm {
        yields: true,
        ..ScriptedLlm::new(&[r#"{"operations":[]}"#, r#"{"operations":[]}"#])
    };
    let rec = Recorder::default();
    let m = Memdir::new(
        seeded_fs(),
        TestClock::frozen(T0),
        Some(&llm),
        &rec,
        config(WriteMode::Auto),
    );
    let x = Extractor::new(1);
    let opts = ExtractOptions::default();
    let turn1 = conversation();
    let mut turn2 = conversation();
    turn2.push(ConversationMessage::user("and use gofmt").with_id("u2"));
    let mut turn3 = turn2.clone();
    turn3.push(ConversationMessage::assistant("sure").with_id("a3"));
    let outcomes = block_on(join_all(vec![
        Box::pin(x.run(&m, &turn1, &opts)) as Pin<Box<dyn Future<Output = _>>>,
        Box::pin(x.run(&m, &turn2, &opts)),
        Box::pin(x.run(&m, &turn3, &opts)),
    ]));
    let first = outcomes[0].as_ref().unwrap();
    assert_eq!(first.status, ExtractStatus::Extracted);
    assert_eq!(
        outcomes[1].as_ref().unwrap().status,
        ExtractStatus::Coalesced
    );
    assert_eq!(
        outcomes[2].as_ref().unwrap().status,
        ExtractStatus::Coalesced
    );
    // One trailing run over the latest stash, starting after the first run's cursor.
    assert_eq!(first.trailing.len(), 1);
    assert_eq!(first.trailing[0].message_count, 2);
    assert_eq!(llm.requests.borrow().len(), 2);
    assert_eq!(
        llm.requests.borrow()[1].messages[0].content,
        "and use gofmt"
    );
    assert_eq!(x.cursor().unwrap().id.as_deref(), Some("a3"));
    assert!(!x.in_flight());
    let coalesced = rec
        .names()
        .iter()
        .filter(|e| *e == "memdir_extract_coalesced")
        .count();
    assert_eq!(coalesced, 2);
}

#[test]
fn timeouts_and_llm_errors_are_reported() {
    let m = Memdir::new(
        seeded_fs(),
        TestClock::new(T0),
        Some(ScriptedLlm::always(Script::Hang)),
        memdir::NoTelemetry,
        config(WriteMode::Auto),
    );
    // A failed model resolves with the typed `failed` outcome (the caller's mistakes reject).
    let failed = |out: memdir::extract::ExtractOutcome| match out.status {
        ExtractStatus::Failed { code, message } => (code, message),
        other => panic!("not failed: {other:?}"),
    };
    let (code, _) =
        failed(block_on(m.extract(&conversation(), &ExtractOptions::default())).unwrap());
    assert_eq!(code, "TIMEOUT");
    let llm = ScriptedLlm::new(&[]);
    let m = Memdir::new(
        seeded_fs(),
        TestClock::new(T0),
        Some(&llm),
        memdir::NoTelemetry,
        config(WriteMode::Auto),
    );
    let (code, message) =
        failed(block_on(m.extract(&conversation(), &ExtractOptions::default())).unwrap());
    assert_eq!(code, "HOST_LLM");
    assert!(message.contains("script exhausted"), "{message}");
    let m: Memdir<MemFs, TestClock> = Memdir::new(
        seeded_fs(),
        TestClock::new(T0),
        None,
        memdir::NoTelemetry,
        config(WriteMode::Auto),
    );
    let err = block_on(m.extract(&conversation(), &ExtractOptions::default())).unwrap_err();
    assert_eq!(err.code, Code::Unsupported);
}

#[test]
fn modes_refuse_or_propose() {
    for mode in [WriteMode::Off, WriteMode::ReadOnly] {
        let llm = ScriptedLlm::new(&[VALID_REPLY]);
        let m = Memdir::new(
            seeded_fs(),
            TestClock::new(T0),
            Some(&llm),
            memdir::NoTelemetry,
            config(mode),
        );
        let err = block_on(m.extract(&conversation(), &ExtractOptions::default())).unwrap_err();
        assert_eq!(err.code, Code::WriteForbidden);
        assert!(llm.requests.borrow().is_empty());
    }
    let llm = ScriptedLlm::new(&[VALID_REPLY]);
    let m = Memdir::new(
        seeded_fs(),
        TestClock::new(T0),
        Some(&llm),
        memdir::NoTelemetry,
        config(WriteMode::Confirm),
    );
    let before = m.fs().snapshot();
    let outcome = block_on(m.extract(&conversation(), &ExtractOptions::default())).unwrap();
    assert_eq!(m.fs().snapshot(), before);
    assert!(outcome.created.is_empty() && outcome.deleted.is_empty());
    assert_eq!(outcome.proposals.len(), 3);
    assert!(
        matches!(&outcome.proposals[0], Proposal::Save(s) if s.file.as_deref() == Some("feedback_tabs.md"))
    );
    assert!(
        matches!(&outcome.proposals[2], Proposal::Delete { file } if file == "project_freeze.md")
    );
    // The host approves the first one only.
    let first = outcome.proposals.into_iter().next().unwrap();
    block_on(m.apply_proposal(first)).unwrap();
    assert!(read(m.fs(), "/m/feedback_tabs.md").is_some());
    assert!(read(m.fs(), "/m/project_freeze.md").is_some());
}
