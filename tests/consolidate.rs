//! Consolidation: gates, the `.consolidate-lock`, changesets from scripted replies (valid,
//! malformed, hostile), apply with its journal and a byte-for-byte undo.

mod common;

use common::std_fs::{StdFs, TempDir};
use common::{block_on, ScriptedLlm, TestClock};
use memdir::consolidate::{
    parse_lock_body, Changeset, ConsolidateOptions, ConsolidateOutcome, ConsolidateSkip,
    ConsolidationGates, FileCreate, SessionInfo, CONSOLIDATE_LOCK_NAME, UNDO_JOURNAL_NAME,
};
use memdir::host::LlmPurpose;
use memdir::{Code, MemFs, Memdir, MemdirConfig, NoTelemetry, WriteMode};
use std::collections::BTreeMap;
use std::path::Path;

const T0: f64 = 1_700_000_000_000.0;
const HOUR: f64 = 3_600_000.0;
const DIR: &str = "/m/";

const ROLE: &str =
    "---\nname: Role\ndescription: Backend developer\ntype: user\n---\n\nWrites Go.\n";
const ROLE_DUP: &str =
    "---\nname: Role again\ndescription: Backend dev\ntype: user\n---\n\nWrites Go daily.\r\n";
const DEADLINE: &str =
    "---\nname: Deadline\ndescription: Ship by Friday\ntype: project\n---\n\nShip the beta Friday.\n";
const INDEX: &str = "# Memory\n\n- [Role](user_role.md) — Backend developer\n- [Role again](user_role_2.md) — Backend dev\n- [Deadline](project_deadline.md) — Ship by Friday\n";

fn seeded_fs() -> MemFs {
    let fs = MemFs::new();
    fs.insert_file("/m/user_role.md", ROLE);
    fs.insert_file("/m/user_role_2.md", ROLE_DUP);
    fs.insert_file("/m/project_deadline.md", DEADLINE);
    fs.insert_file(
        "/m/logs/2023/11/2023-11-13.md",
        "- decided: beta ships 2023-11-17\n",
    );
    fs.insert_file(
        "/m/team/shared.md",
        "---\nname: S\ndescription: s\ntype: reference\n---\n",
    );
    fs.insert_file("/m/MEMORY.md", INDEX);
    fs
}

fn config(mode: WriteMode) -> MemdirConfig {
    let mut c = MemdirConfig::new(DIR);
    c.write_mode = mode;
    c
}

fn forced() -> ConsolidateOptions {
    ConsolidateOptions {
        force: true,
        holder: Some("me".into()),
        ..ConsolidateOptions::default()
    }
}

const MERGE_REPLY: &str = r#"{"operations":[
  {"op":"update","file":"user_role.md","description":"Backend developer, writes Go daily","body":"Writes Go daily.\n"},
  {"op":"delete","file":"user_role_2.md"},
  {"op":"update","file":"project_deadline.md","body":"Ship the beta on 2023-11-17.\n"},
  {"op":"create","file":"feedback_reviews.md","type":"feedback","name":"Small PRs","description":"Keep PRs small","body":"Keep PRs under 300 lines.\n"}
],"summary":"Merged the two role memories; absolutised the deadline."}"#;

fn ready(outcome: ConsolidateOutcome) -> Changeset {
    match outcome {
        ConsolidateOutcome::Ready { changeset, .. } => *changeset,
        other => panic!("{other:?}"),
    }
}

fn file(fs: &MemFs, path: &str) -> Option<String> {
    fs.snapshot()
        .into_iter()
        .find(|(p, _)| p == path)
        .map(|(_, d)| String::from_utf8(d).unwrap())
}

/// A memdir over the seeded directory at T0 with `llm` and the write mode.
fn seeded(llm: &ScriptedLlm, mode: WriteMode) -> Memdir<MemFs, TestClock, &ScriptedLlm> {
    Memdir::new(
        seeded_fs(),
        TestClock::new(T0),
        Some(llm),
        NoTelemetry,
        config(mode),
    )
}

#[test]
fn gates_skip_until_due() {
    let llm = ScriptedLlm::new(&[]);
    let m = seeded(&llm, WriteMode::Auto);
    m.fs()
        .insert_file("/m/.consolidate-lock", format!("\n{}", T0 - 2.0 * HOUR));
    let s = |id: &str, t: f64| SessionInfo {
        id: id.into(),
        mtime_ms: t,
    };
    let mut options = ConsolidateOptions {
        sessions: vec![s("a", T0 - HOUR)],
        ..ConsolidateOptions::default()
    };
    match block_on(m.consolidate(&options)).unwrap() {
        ConsolidateOutcome::Skipped {
            skip: ConsolidateSkip::TooSoon { hours_since },
        } => {
            assert!((hours_since - 2.0).abs() < 1e-9)
        }
        other => panic!("{other:?}"),
    }
    options.gates = ConsolidationGates {
        min_hours: 1.0,
        min_sessions: 2,
    };
    assert_eq!(
        block_on(m.consolidate(&options)).unwrap(),
        ConsolidateOutcome::Skipped {
            skip: ConsolidateSkip::TooFewSessions {
                count: 1,
                needed: 2
            }
        }
    );
    assert!(llm.requests.borrow().is_empty());
    assert_eq!(block_on(m.last_consolidated_at()).unwrap(), T0 - 2.0 * HOUR);
}

#[test]
fn a_changeset_is_proposed_then_applied_then_undone_exactly() {
    let llm = ScriptedLlm::new(&[MERGE_REPLY]);
    let m = seeded(&llm, WriteMode::Auto);
    let s = |id: &str| SessionInfo {
        id: id.into(),
        mtime_ms: T0 - HOUR,
    };
    let options = ConsolidateOptions {
        sessions: ["s1", "s2", "s3", "s4", "s5", "current"].map(s).to_vec(),
        current_session: Some("current".into()),
        holder: Some("me".into()),
        ..ConsolidateOptions::default()
    };
    let original = m.fs().snapshot();
    let outcome = block_on(m.consolidate(&options)).unwrap();
    let ConsolidateOutcome::Ready {
        changeset: cs,
        previous_consolidated_at,
        sessions_reviewed,
        applied,
    } = outcome
    else {
        panic!()
    };
    assert_eq!(
        (previous_consolidated_at, sessions_reviewed, applied),
        (0.0, 5, None)
    );
    // The request shows the index and the files (the log too, team/ not at all).
    let request = llm.requests.borrow()[0].clone();
    assert_eq!(request.purpose, LlmPurpose::Consolidate);
    assert!(request.system.starts_with("# Dream: Memory Consolidation"));
    assert!(request
        .system
        .contains("Sessions since the last consolidation (5):\n- s1"));
    let shown = &request.messages[0].content;
    assert!(shown.contains("## MEMORY.md") && shown.contains("- [Role](user_role.md)"));
    assert!(shown.contains("### logs/2023/11/2023-11-13.md"));
    assert!(!shown.contains("team/shared.md"));
    // Nothing written but the lock, whose time is now the last consolidation.
    let lock = file(m.fs(), "/m/.consolidate-lock").unwrap();
    assert_eq!(parse_lock_body(&lock).holder, "");
    assert_eq!(block_on(m.last_consolidated_at()).unwrap(), T0);
    let mut proposed = m.fs().snapshot();
    proposed.retain(|(p, _)| !p.ends_with(CONSOLIDATE_LOCK_NAME));
    assert_eq!(proposed, original);
    // The changeset.
    assert_eq!(cs.create, [FileCreate {
        file: "feedback_reviews.md".into(),
        content: "---\nname: Small PRs\ndescription: Keep PRs small\ntype: feedback\n---\n\nKeep PRs under 300 lines.\n".into(),
    }]);
    assert_eq!(cs.update.len(), 2);
    assert_eq!(cs.update[0].before, ROLE);
    assert_eq!(cs.delete[0].before, ROLE_DUP);
    assert_eq!(
        cs.index.as_ref().unwrap().after,
        "# Memory\n\n- [Role](user_role.md) — Backend developer, writes Go daily\n- [Deadline](project_deadline.md) — Ship by Friday\n- [Small PRs](feedback_reviews.md) — Keep PRs small\n"
    );
    assert_eq!(
        cs.summary,
        "Merged the two role memories; absolutised the deadline."
    );
    // Apply.
    let before_apply = m.fs().snapshot();
    let report = block_on(m.apply_changeset(&cs)).unwrap();
    assert_eq!(
        (
            report.created,
            report.updated,
            report.deleted,
            report.index_changed
        ),
        (1, 2, 1, true)
    );
    assert!(file(m.fs(), "/m/user_role_2.md").is_none());
    assert!(file(m.fs(), "/m/feedback_reviews.md").is_some());
    assert!(file(m.fs(), &format!("/m/{UNDO_JOURNAL_NAME}")).is_some());
    // Undo restores every byte, and the journal is gone.
    assert_eq!(block_on(m.undo_changeset()).unwrap(), 5);
    assert_eq!(m.fs().snapshot(), before_apply);
    assert_eq!(
        block_on(m.undo_changeset()).unwrap_err().code,
        Code::NotFound
    );
}

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn apply_then_undo_on_a_real_directory_is_byte_for_byte() {
    let tmp = TempDir::new("consolidate");
    tmp.write("user_role.md", ROLE);
    tmp.write("user_role_2.md", ROLE_DUP);
    tmp.write("project_deadline.md", DEADLINE);
    tmp.write("MEMORY.md", INDEX);
    let llm = ScriptedLlm::new(&[MERGE_REPLY]);
    let mut c = MemdirConfig::new(tmp.dir());
    c.write_mode = WriteMode::Auto;
    let m = Memdir::new(StdFs::new(), TestClock::new(T0), Some(&llm), NoTelemetry, c);
    let cs = ready(block_on(m.consolidate(&forced())).unwrap());
    let before = tree(&tmp.path);
    block_on(m.apply_changeset(&cs)).unwrap();
    let after = tree(&tmp.path);
    assert_ne!(after, before);
    assert_eq!(
        after.get("feedback_reviews.md").map(Vec::len),
        Some(cs.create[0].content.len())
    );
    block_on(m.undo_changeset()).unwrap();
    assert_eq!(tree(&tmp.path), before);
}

#[test]
fn stale_changesets_conflict_and_write_nothing() {
    let llm = ScriptedLlm::new(&[MERGE_REPLY]);
    let m = seeded(&llm, WriteMode::Auto);
    let cs = ready(block_on(m.consolidate(&forced())).unwrap());
    m.fs()
        .insert_file("/m/user_role_2.md", "edited by the user meanwhile\n");
    let before = m.fs().snapshot();
    let err = block_on(m.apply_changeset(&cs)).unwrap_err();
    assert_eq!(err.code, Code::AlreadyExists);
    assert_eq!(m.fs().snapshot(), before);
    // A file created meanwhile where the changeset creates one.
    let llm = ScriptedLlm::new(&[MERGE_REPLY]);
    let m = seeded(&llm, WriteMode::Auto);
    let cs = ready(block_on(m.consolidate(&forced())).unwrap());
    m.fs().insert_file("/m/feedback_reviews.md", "mine\n");
    assert_eq!(
        block_on(m.apply_changeset(&cs)).unwrap_err().code,
        Code::AlreadyExists
    );
    assert_eq!(file(m.fs(), "/m/feedback_reviews.md").unwrap(), "mine\n");
    // Undo refuses when a file changed after the apply.
    let llm = ScriptedLlm::new(&[MERGE_REPLY]);
    let m = seeded(&llm, WriteMode::Auto);
    let cs = ready(block_on(m.consolidate(&forced())).unwrap());
    block_on(m.apply_changeset(&cs)).unwrap();
    m.fs().insert_file("/m/user_role.md", "hand edit\n");
    let before = m.fs().snapshot();
    assert_eq!(
        block_on(m.undo_changeset()).unwrap_err().code,
        Code::AlreadyExists
    );
    assert_eq!(m.fs().snapshot(), before);
}

#[test]
fn malformed_replies_fail_and_roll_the_lock_back() {
    for reply in [
        "I consolidated everything!",
        "{\"operations\":null}",
        "```json\n{\"operations\":[\n```",
    ] {
        let llm = ScriptedLlm::new(&[reply]);
        let m = seeded(&llm, WriteMode::Auto);
        let before = m.fs().snapshot();
        let err = block_on(m.consolidate(&forced())).unwrap_err();
        assert_eq!(err.code, Code::HostLlm, "{reply}");
        // No lock before → none after.
        assert_eq!(m.fs().snapshot(), before);
    }
    // With a previous consolidation, its time comes back.
    let llm = ScriptedLlm::new(&["nope"]);
    let m = seeded(&llm, WriteMode::Auto);
    m.fs()
        .insert_file("/m/.consolidate-lock", format!("\n{}", T0 - 48.0 * HOUR));
    assert!(block_on(m.consolidate(&forced())).is_err());
    assert_eq!(
        block_on(m.last_consolidated_at()).unwrap(),
        T0 - 48.0 * HOUR
    );
}

#[test]
fn hostile_replies_become_rejections() {
    let secret = format!(
        "xoxb-{}-{}-{}",
        "1234567890",
        "1234567890123",
        "a".repeat(24)
    );
    let mut ops = vec![
        r#"{"op":"delete","file":"../../etc/passwd.md"}"#.to_owned(),
        r#"{"op":"delete","file":"team/shared.md"}"#.to_owned(),
        r#"{"op":"delete","file":"logs/2023/11/2023-11-13.md"}"#.to_owned(),
        r#"{"op":"delete","file":"/m/user_role.md"}"#.to_owned(),
        format!(r#"{{"op":"update","file":"user_role.md","body":"{secret}"}}"#),
    ];
    for i in 0..1000 {
        ops.push(format!(r#"{{"op":"delete","file":"gone_{i}.md"}}"#));
    }
    let reply = format!(
        "{{\"operations\":[{}],\"index\":\"- [X](x.md) — {secret}\\n\"}}",
        ops.join(",")
    );
    let llm = ScriptedLlm::new(&[&reply]);
    let m = seeded(&llm, WriteMode::Auto);
    let cs = ready(block_on(m.consolidate(&forced())).unwrap());
    assert!(cs.is_empty(), "{cs:?}");
    let codes: Vec<&str> = cs
        .rejected
        .iter()
        .take(5)
        .map(|r| r.code.as_str())
        .collect();
    assert_eq!(
        codes,
        [
            "PATH_ESCAPES",
            "INVALID_MEMORY",
            "INVALID_MEMORY",
            "PATH_ABSOLUTE",
            "SECRET_DETECTED"
        ]
    );
    assert_eq!(
        cs.rejected
            .iter()
            .filter(|r| r.code == "TOO_MANY_OPERATIONS")
            .count(),
        955
    );
    assert_eq!(
        cs.rejected.iter().filter(|r| r.code == "NOT_FOUND").count(),
        45
    );
    assert_eq!(cs.rejected.last().unwrap().code, "SECRET_DETECTED");
    assert!(!format!("{cs:?}").contains(&secret));
    // A hand-made hostile changeset is refused before anything is written.
    let bad = Changeset {
        delete: vec![memdir::consolidate::FileDelete {
            file: "../outside.md".into(),
            before: String::new(),
        }],
        ..Changeset::default()
    };
    let before = m.fs().snapshot();
    assert_eq!(
        block_on(m.apply_changeset(&bad)).unwrap_err().code,
        Code::PathEscapes
    );
    let twice = Changeset {
        create: vec![FileCreate {
            file: "a.md".into(),
            content: "x".into(),
        }],
        delete: vec![memdir::consolidate::FileDelete {
            file: "a.md".into(),
            before: String::new(),
        }],
        ..Changeset::default()
    };
    assert_eq!(
        block_on(m.apply_changeset(&twice)).unwrap_err().code,
        Code::InvalidInput
    );
    assert_eq!(m.fs().snapshot(), before);
}

#[test]
fn the_lock_blocks_a_live_holder_and_breaks_a_stale_one() {
    let llm = ScriptedLlm::new(&[r#"{"operations":[]}"#, r#"{"operations":[]}"#]);
    let m = seeded(&llm, WriteMode::Auto);
    m.fs().insert_file(
        "/m/.consolidate-lock",
        format!("other\n{}", T0 - 10.0 * 60_000.0),
    );
    assert_eq!(
        block_on(m.consolidate(&forced())).unwrap(),
        ConsolidateOutcome::Skipped {
            skip: ConsolidateSkip::Locked
        }
    );
    let skipped = block_on(m.consolidate(&forced())).unwrap();
    let yaml = serde_yaml::to_string(&skipped).unwrap();
    assert_eq!(yaml, "status: skipped\nreason: locked\n");
    m.fs().insert_file(
        "/m/.consolidate-lock",
        format!("other\n{}", T0 - 2.0 * HOUR),
    );
    let cs = ready(block_on(m.consolidate(&forced())).unwrap());
    assert!(cs.is_empty());
    // A reference-style lock (a pid, no time) is judged by its mtime.
    m.fs().insert_file("/m/.consolidate-lock", "4242");
    m.fs().set_mtime("/m/.consolidate-lock", T0 - 60_000.0);
    assert_eq!(
        block_on(m.consolidate(&forced())).unwrap(),
        ConsolidateOutcome::Skipped {
            skip: ConsolidateSkip::Locked
        }
    );
    assert_eq!(block_on(m.last_consolidated_at()).unwrap(), T0 - 60_000.0);
}

#[test]
fn auto_apply_and_modes() {
    let llm = ScriptedLlm::new(&[MERGE_REPLY]);
    let m = seeded(&llm, WriteMode::Auto);
    let options = ConsolidateOptions {
        auto_apply: true,
        ..forced()
    };
    match block_on(m.consolidate(&options)).unwrap() {
        ConsolidateOutcome::Ready {
            applied: Some(report),
            ..
        } => assert_eq!(report.deleted, 1),
        other => panic!("{other:?}"),
    }
    assert!(file(m.fs(), "/m/user_role_2.md").is_none());
    block_on(m.undo_changeset()).unwrap();
    assert_eq!(file(m.fs(), "/m/user_role_2.md").unwrap(), ROLE_DUP);
    // Confirm: the changeset is the proposal; auto_apply is ignored; apply is the approval.
    let llm = ScriptedLlm::new(&[MERGE_REPLY]);
    let m = seeded(&llm, WriteMode::Confirm);
    let cs = match block_on(m.consolidate(&options)).unwrap() {
        ConsolidateOutcome::Ready {
            applied: None,
            changeset,
            ..
        } => *changeset,
        other => panic!("{other:?}"),
    };
    assert!(file(m.fs(), "/m/user_role_2.md").is_some());
    block_on(m.apply_changeset(&cs)).unwrap();
    assert!(file(m.fs(), "/m/user_role_2.md").is_none());
    for mode in [WriteMode::Off, WriteMode::ReadOnly] {
        let llm = ScriptedLlm::new(&[MERGE_REPLY]);
        let m = Memdir::new(
            seeded_fs(),
            TestClock::new(T0),
            Some(&llm),
            NoTelemetry,
            config(mode),
        );
        let before = m.fs().snapshot();
        assert_eq!(
            block_on(m.consolidate(&forced())).unwrap_err().code,
            Code::WriteForbidden
        );
        assert_eq!(
            block_on(m.apply_changeset(&cs)).unwrap_err().code,
            Code::WriteForbidden
        );
        assert_eq!(
            block_on(m.undo_changeset()).unwrap_err().code,
            Code::WriteForbidden
        );
        assert_eq!(
            block_on(m.record_consolidation()).unwrap_err().code,
            Code::WriteForbidden
        );
        assert_eq!(m.fs().snapshot(), before);
        assert!(llm.requests.borrow().is_empty());
    }
}

#[test]
fn a_changeset_cannot_delete_or_undo_through_a_symlink() {
    let fs = MemFs::new();
    fs.insert_file("/outside/victim.md", "precious");
    fs.symlink("/outside", "/m/sub");
    let m = memdir::Memdir::new(
        &fs,
        common::TestClock::new(1_700_000_000_000.0),
        None::<memdir::NoLlm>,
        memdir::NoTelemetry,
        memdir::MemdirConfig::new("/m/"),
    );
    let cs = memdir::consolidate::Changeset {
        delete: vec![memdir::consolidate::FileDelete {
            file: "sub/victim.md".into(),
            before: "precious".into(),
        }],
        ..Default::default()
    };
    let err = common::block_on(m.apply_changeset(&cs)).unwrap_err();
    assert_eq!(err.code, memdir::Code::PathSymlinkEscape);
    // A planted journal pointing through the link is refused too.
    fs.insert_file(
        "/m/.memdir-undo.json",
        r#"{"version":1,"entries":[{"file":"sub/victim.md","before":null,"after":"precious"}]}"#,
    );
    let err = common::block_on(m.undo_changeset()).unwrap_err();
    assert_eq!(err.code, memdir::Code::PathSymlinkEscape);
    let outside: Vec<_> = fs
        .snapshot()
        .into_iter()
        .filter(|(p, _)| p == "/outside/victim.md")
        .collect();
    assert_eq!(outside[0].1, b"precious");
}
