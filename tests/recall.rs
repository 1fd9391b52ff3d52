//! Recall: the ranker measured on a fixture, the selector against hostile replies, timeouts,
//! aborts and fallbacks, surfacing and the session helpers.

mod common;

use common::{block_on, Event, Recorder, Script, ScriptedLlm, TestClock};
use memdir::host::{Clock, FieldValue};
use memdir::recall::{
    render_surfaced, should_recall, surface_text, AbortFlag, AnsweredBy, FindOptions, RankerIndex,
    Recall, RecallOutcome, SessionBudget,
};
use memdir::{MemFs, Memdir, MemdirConfig, MemoryHeader, MemoryType};
use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

const NOW: f64 = 1_700_000_000_000.0;
const DAY: f64 = 86_400_000.0;

// ---------------------------------------------------------------------------------------------
// Fixture

/// A memory file's header, read the way a scan reads it: the frontmatter's `name`,
/// `description`, `type`, and the body within the first 30 lines.
fn header_from_file(rel: &str, text: &str, mtime_ms: f64) -> MemoryHeader {
    let lines: Vec<&str> = text.split('\n').take(30).collect();
    assert_eq!(lines[0], "---", "{rel}");
    let close = lines.iter().skip(1).position(|l| *l == "---").unwrap() + 1;
    let mut header = MemoryHeader {
        filename: rel.to_owned(),
        file_path: format!("/mem/{rel}"),
        mtime_ms,
        description: None,
        memory_type: None,
        name: None,
        body_head: lines[close + 1..].join("\n"),
    };
    for line in &lines[1..close] {
        let (key, value) = line.split_once(": ").unwrap();
        let value = match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            Some(quoted) => quoted.replace("\\\"", "\"").replace("\\\\", "\\"),
            None => value.to_owned(),
        };
        match key {
            "name" => header.name = Some(value),
            "description" => header.description = Some(value),
            "type" => header.memory_type = MemoryType::parse(&value),
            _ => {}
        }
    }
    header
}

fn fixture_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall")
}

/// The fixture's memories, newest first (file names sorted, a day apart).
fn fixture_headers() -> Vec<MemoryHeader> {
    let root = fixture_dir().join("memories");
    let mut rels = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                rels.push(
                    path.strip_prefix(&root)
                        .unwrap()
                        .to_str()
                        .unwrap()
                        .to_owned(),
                );
            }
        }
    }
    rels.sort();
    rels.iter()
        .enumerate()
        .map(|(i, rel)| {
            let text = std::fs::read_to_string(root.join(rel)).unwrap();
            header_from_file(rel, &text, NOW - DAY * i as f64)
        })
        .collect()
}

struct Query {
    held_out: bool,
    text: String,
    expected: Vec<String>,
}

fn fixture_queries() -> Vec<Query> {
    let text = std::fs::read_to_string(fixture_dir().join("queries.txt")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let parts: Vec<&str> = line.split(" | ").collect();
            assert_eq!(parts.len(), 3, "{line}");
            let expected = match parts[2].trim() {
                "-" => Vec::new(),
                list => list.split(", ").map(str::to_owned).collect(),
            };
            Query {
                held_out: parts[0] == "held",
                text: parts[1].to_owned(),
                expected,
            }
        })
        .collect()
}

#[derive(Default, Debug)]
struct Tally {
    true_pos: usize,
    false_pos: usize,
    expected: usize,
    nothing_queries: usize,
    nothing_clean: usize,
}

impl Tally {
    fn precision(&self) -> f64 {
        let returned = self.true_pos + self.false_pos;
        if returned == 0 {
            1.0
        } else {
            self.true_pos as f64 / returned as f64
        }
    }
    fn recall(&self) -> f64 {
        self.true_pos as f64 / self.expected as f64
    }
}

#[test]
fn fixture_is_big_enough() {
    let headers = fixture_headers();
    assert!(headers.len() >= 40, "{}", headers.len());
    for t in MemoryType::ALL {
        assert!(headers.iter().any(|h| h.memory_type == Some(t)), "{t:?}");
    }
    assert!(headers
        .iter()
        .all(|h| h.name.is_some() && h.description.is_some()));
    let queries = fixture_queries();
    assert!(queries.len() >= 30);
    assert!(queries.iter().filter(|q| q.expected.is_empty()).count() >= 5);
    assert!(queries.iter().filter(|q| q.held_out).count() >= 10);
    // Every expected file exists.
    for q in &queries {
        for e in &q.expected {
            assert!(headers.iter().any(|h| &h.filename == e), "{e}");
        }
    }
}

#[test]
fn ranker_precision_and_recall_on_fixture() {
    let headers = fixture_headers();
    let index = RankerIndex::build(&headers);
    let (mut dev, mut held) = (Tally::default(), Tally::default());
    for q in fixture_queries() {
        let got: Vec<String> = index
            .rank(&q.text, 5)
            .into_iter()
            .map(|r| r.filename)
            .collect();
        let tally = if q.held_out { &mut held } else { &mut dev };
        let hits = got.iter().filter(|g| q.expected.contains(g)).count();
        tally.true_pos += hits;
        tally.false_pos += got.len() - hits;
        tally.expected += q.expected.len();
        if q.expected.is_empty() {
            tally.nothing_queries += 1;
            tally.nothing_clean += usize::from(got.is_empty());
        }
        if std::env::var_os("RECALL_VERBOSE").is_some() {
            let split = if q.held_out { "held" } else { "dev " };
            println!(
                "{split} {:?}\n     want {:?}\n     got  {got:?}",
                q.text, q.expected
            );
        }
    }
    for (label, t) in [("dev", &dev), ("held-out", &held)] {
        println!(
            "ranker {label}: precision={:.3} recall={:.3} (tp={} fp={} expected={}; \
             expect-nothing queries answered with nothing: {}/{})",
            t.precision(),
            t.recall(),
            t.true_pos,
            t.false_pos,
            t.expected,
            t.nothing_clean,
            t.nothing_queries
        );
    }
    let all = Tally {
        true_pos: dev.true_pos + held.true_pos,
        false_pos: dev.false_pos + held.false_pos,
        expected: dev.expected + held.expected,
        nothing_queries: dev.nothing_queries + held.nothing_queries,
        nothing_clean: dev.nothing_clean + held.nothing_clean,
    };
    println!(
        "ranker precision={:.3} recall={:.3}",
        all.precision(),
        all.recall()
    );
    // Floors a little under the measured values, so a regression fails the test. The ranker is
    // no longer tuned on this fixture (issue #13: it is tuned on the dev half of
    // tests/fixtures/recall_eval), so both halves here are unseen data for it.
    // Measured: old ranker (tuned here) dev 0.842 / 0.727, held-out 0.818 / 0.750;
    // BM25F ranker dev 0.773 / 0.773, held-out 0.909 / 0.833.
    assert!(dev.precision() >= 0.7 && dev.recall() >= 0.7, "{dev:?}");
    assert!(held.precision() >= 0.8 && held.recall() >= 0.75, "{held:?}");
    // Unrelated queries get nothing (held-out: all but one of them).
    assert_eq!(dev.nothing_clean, dev.nothing_queries);
    assert!(held.nothing_clean + 1 >= held.nothing_queries);
}

// ---------------------------------------------------------------------------------------------
// Scripted hosts

/// The recorder's shared event list.
type Events = Rc<RefCell<Vec<Event>>>;

fn memdir_with<C: Clock>(
    clock: C,
    llm: Option<ScriptedLlm>,
    fallback: bool,
) -> (Memdir<MemFs, C, ScriptedLlm, Recorder>, Events) {
    let recorder = Recorder::default();
    let events = Rc::clone(&recorder.log);
    let mut config = MemdirConfig::new("/mem/");
    config.recall.fallback_to_lexical = fallback;
    (
        Memdir::new(MemFs::new(), clock, llm, recorder, config),
        events,
    )
}

fn small_headers() -> Vec<MemoryHeader> {
    let h = |f: &str, d: &str, t: MemoryType| MemoryHeader {
        filename: f.into(),
        file_path: format!("/mem/{f}"),
        mtime_ms: NOW - DAY,
        description: Some(d.into()),
        memory_type: Some(t),
        name: None,
        body_head: String::new(),
    };
    vec![
        h(
            "a.md",
            "Deploy checklist for production",
            MemoryType::Project,
        ),
        h("b.md", "User prefers terse answers", MemoryType::User),
        h(
            "team/c.md",
            "Grafana dashboards for billing",
            MemoryType::Reference,
        ),
    ]
}

fn recall_with(llm: ScriptedLlm, query: &str) -> (Recall, Events) {
    let (memdir, events) = memdir_with(TestClock::new(NOW), Some(llm), true);
    let r = block_on(memdir.find_relevant_in(small_headers(), query, &FindOptions::default()));
    (r, events)
}

fn paths(r: &Recall) -> Vec<&str> {
    r.memories.iter().map(|m| m.path.as_str()).collect()
}

fn field(events: &Events, name: &str) -> Option<FieldValue> {
    let events = events.borrow();
    let (_, fields) = events.last()?;
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

// ---------------------------------------------------------------------------------------------
// Selector through find_relevant_in

#[test]
fn request_is_built_from_candidates_and_tools() {
    let llm = ScriptedLlm::reply(r#"{"selected_memories":["team/c.md"]}"#);
    let requests = Rc::clone(&llm.requests);
    let (memdir, _) = memdir_with(TestClock::new(NOW), Some(llm), true);
    let options = FindOptions {
        recent_tools: vec!["Bash".into(), "Read".into()],
        already_surfaced: vec!["/mem/b.md".into()],
        ..FindOptions::default()
    };
    let r =
        block_on(memdir.find_relevant_in(small_headers(), "where are the dashboards", &options));
    assert_eq!(paths(&r), ["/mem/team/c.md"]);
    assert_eq!(r.memories[0].mtime_ms, NOW - DAY);
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::Llm, RecallOutcome::Ok)
    );
    let requests = requests.borrow();
    assert_eq!(requests.len(), 1);
    let content = &requests[0].messages[0].content;
    let manifest = memdir::format_manifest(
        &small_headers()
            .into_iter()
            .filter(|h| h.filename != "b.md")
            .collect::<Vec<_>>(),
    );
    assert_eq!(
        content,
        &format!(
            "Query: where are the dashboards\n\nAvailable memories:\n{manifest}\n\nRecently used tools: Bash, Read"
        )
    );
    assert_eq!(requests[0].max_tokens, 256);
}

#[test]
fn hostile_names_are_dropped() {
    let reply = r#"{"selected_memories":["../../etc/passwd","/mem/a.md","/etc/passwd","MEMORY.md",
        "A.md","a.md "," a.md","a.md\u0000","team/../a.md","./b.md","team\\c.md","b.md"]}"#;
    let (r, _) = recall_with(ScriptedLlm::reply(reply), "anything goes here");
    assert_eq!(paths(&r), ["/mem/b.md"]);
    assert_eq!(r.outcome, RecallOutcome::Ok);
}

#[test]
fn ten_thousand_names_are_capped_and_deduplicated() {
    let mut names: Vec<String> = (0..10_000).map(|i| format!("\"n{i}.md\"")).collect();
    names[5000] = "\"b.md\"".into();
    names[6000] = "\"b.md\"".into();
    names[9999] = "\"a.md\"".into();
    let reply = format!("{{\"selected_memories\":[{}]}}", names.join(","));
    let (r, _) = recall_with(ScriptedLlm::reply(&reply), "what do we know");
    assert_eq!(paths(&r), ["/mem/b.md", "/mem/a.md"]);

    let every: Vec<String> = (0..10_000)
        .map(|i| ["\"a.md\"", "\"b.md\"", "\"team/c.md\""][i % 3].to_owned())
        .collect();
    let reply = format!("{{\"selected_memories\":[{}]}}", every.join(","));
    let (memdir, _) = memdir_with(TestClock::new(NOW), Some(ScriptedLlm::reply(&reply)), true);
    let options = FindOptions {
        limit: 2,
        ..FindOptions::default()
    };
    let r = block_on(memdir.find_relevant_in(small_headers(), "q q", &options));
    assert_eq!(paths(&r), ["/mem/a.md", "/mem/b.md"]);
}

#[test]
fn non_strings_and_nested_junk() {
    let reply = r#"{"selected_memories":[1,null,true,{"a.md":1},["a.md"],[[["b.md"]]],"team/c.md"],"extra":{"selected_memories":["a.md"]}}"#;
    let (r, _) = recall_with(ScriptedLlm::reply(reply), "the dashboards");
    assert_eq!(paths(&r), ["/mem/team/c.md"]);
    assert_eq!(r.outcome, RecallOutcome::Ok);
}

#[test]
fn garbage_replies_fall_back_to_the_ranker() {
    for garbage in [
        "I think a.md is relevant",
        r#"{"selected_memories":"a.md"}"#,
        r#"{"selected_memories":{"0":"a.md"}}"#,
        r#"["a.md"]"#,
        &format!("{}{}", "[".repeat(10_000), "]".repeat(10_000)),
        "",
    ] {
        let (r, events) = recall_with(
            ScriptedLlm::reply(garbage),
            "production deploy checklist please",
        );
        assert_eq!(r.outcome, RecallOutcome::InvalidReply, "{garbage:.40}");
        assert_eq!(r.answered_by, AnsweredBy::Lexical);
        assert_eq!(paths(&r), ["/mem/a.md"]);
        assert_eq!(
            field(&events, "outcome"),
            Some(FieldValue::Str("invalid_reply".into()))
        );
    }
    // Without the fallback: nothing.
    let (memdir, _) = memdir_with(TestClock::new(NOW), Some(ScriptedLlm::reply("nope")), false);
    let r = block_on(memdir.find_relevant_in(
        small_headers(),
        "production deploy checklist",
        &FindOptions::default(),
    ));
    assert!(r.memories.is_empty());
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::Llm, RecallOutcome::InvalidReply)
    );
}

#[test]
fn an_empty_selection_is_respected() {
    let (r, _) = recall_with(
        ScriptedLlm::reply(r#"{"selected_memories":[]}"#),
        "production deploy checklist",
    );
    assert!(r.memories.is_empty());
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::Llm, RecallOutcome::Ok)
    );
}

#[test]
fn failing_llm_falls_back() {
    let (r, events) = recall_with(
        ScriptedLlm::always(Script::Fail),
        "open the grafana dashboards for billing",
    );
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::Lexical, RecallOutcome::Error)
    );
    assert_eq!(paths(&r), ["/mem/team/c.md"]);
    assert_eq!(
        field(&events, "answered_by"),
        Some(FieldValue::Str("lexical".into()))
    );

    let (memdir, _) = memdir_with(
        TestClock::new(NOW),
        Some(ScriptedLlm::always(Script::Fail)),
        false,
    );
    let r = block_on(memdir.find_relevant_in(
        small_headers(),
        "grafana dashboards",
        &FindOptions::default(),
    ));
    assert!(r.memories.is_empty());
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::Llm, RecallOutcome::Error)
    );
}

#[test]
fn a_hanging_llm_times_out() {
    let clock = TestClock::new(NOW);
    let (memdir, events) = memdir_with(clock, Some(ScriptedLlm::always(Script::Hang)), true);
    let r = block_on(memdir.find_relevant_in(
        small_headers(),
        "the production deploy",
        &FindOptions::default(),
    ));
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::Lexical, RecallOutcome::Timeout)
    );
    assert_eq!(paths(&r), ["/mem/a.md"]);
    // The test clock's sleep advanced time by exactly the default timeout.
    assert_eq!(
        field(&events, "duration_ms"),
        Some(FieldValue::Num(10_000.0))
    );

    let mut config = MemdirConfig::new("/mem/");
    config.recall.timeout_ms = 250;
    config.recall.fallback_to_lexical = false;
    let memdir = Memdir::new(
        MemFs::new(),
        TestClock::new(NOW),
        Some(ScriptedLlm::always(Script::Hang)),
        Recorder::default(),
        config,
    );
    let r = block_on(memdir.find_relevant_in(small_headers(), "deploy", &FindOptions::default()));
    assert!(r.memories.is_empty());
    assert_eq!(r.outcome, RecallOutcome::Timeout);
    assert_eq!(memdir.clock().now_ms(), NOW + 250.0);
}

#[test]
fn abort_yields_nothing() {
    // Aborted before the call: the LLM is not asked.
    let llm = ScriptedLlm::reply(r#"{"selected_memories":["a.md"]}"#);
    let requests = Rc::clone(&llm.requests);
    let (memdir, events) = memdir_with(TestClock::frozen(NOW), Some(llm), true);
    let flag = AbortFlag::new();
    flag.abort();
    let options = FindOptions {
        abort: Some(flag),
        ..FindOptions::default()
    };
    let r = block_on(memdir.find_relevant_in(small_headers(), "production deploy", &options));
    assert!(r.memories.is_empty());
    assert_eq!(r.outcome, RecallOutcome::Aborted);
    assert!(requests.borrow().is_empty());
    assert_eq!(
        field(&events, "outcome"),
        Some(FieldValue::Str("aborted".into()))
    );

    // Aborted while the LLM is thinking (and the timer never fires): no fallback either.
    let flag = AbortFlag::new();
    let (memdir, _) = memdir_with(
        TestClock::frozen(NOW),
        Some(ScriptedLlm::always(Script::AbortThenHang(flag.clone()))),
        true,
    );
    let options = FindOptions {
        abort: Some(flag),
        ..FindOptions::default()
    };
    let r = block_on(memdir.find_relevant_in(small_headers(), "production deploy", &options));
    assert!(r.memories.is_empty());
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::Llm, RecallOutcome::Aborted)
    );
}

#[test]
fn nothing_to_choose_from_asks_nobody() {
    let llm = ScriptedLlm::reply(r#"{"selected_memories":["a.md"]}"#);
    let requests = Rc::clone(&llm.requests);
    let (memdir, events) = memdir_with(TestClock::new(NOW), Some(llm), true);
    let options = FindOptions {
        already_surfaced: small_headers().into_iter().map(|h| h.file_path).collect(),
        ..FindOptions::default()
    };
    let r = block_on(memdir.find_relevant_in(small_headers(), "production deploy", &options));
    assert!(r.memories.is_empty());
    assert!(requests.borrow().is_empty());
    assert!(events.borrow().is_empty());
    let r =
        block_on(memdir.find_relevant_in(Vec::new(), "production deploy", &FindOptions::default()));
    assert_eq!(r.outcome, RecallOutcome::Ok);
}

#[test]
fn already_surfaced_is_never_selected_again() {
    let (memdir, _) = memdir_with(
        TestClock::new(NOW),
        Some(ScriptedLlm::reply(
            r#"{"selected_memories":["a.md","b.md"]}"#,
        )),
        true,
    );
    let options = FindOptions {
        already_surfaced: vec!["/mem/a.md".into(), "a.md".into()],
        ..FindOptions::default()
    };
    let r = block_on(memdir.find_relevant_in(small_headers(), "deploy and answers", &options));
    assert_eq!(paths(&r), ["/mem/b.md"]);
}

#[test]
fn large_directories_are_prefiltered_to_the_budget() {
    let mut headers: Vec<MemoryHeader> = (0..300)
        .map(|i| MemoryHeader {
            filename: format!("note_{i:03}.md"),
            file_path: format!("/mem/note_{i:03}.md"),
            mtime_ms: NOW - f64::from(i) * 1000.0,
            description: Some(format!("Miscellaneous note number {i}")),
            memory_type: Some(MemoryType::Project),
            name: None,
            body_head: String::new(),
        })
        .collect();
    headers[299].description = Some("Kafka topic naming for payment events".into());
    let llm = ScriptedLlm::reply(r#"{"selected_memories":["note_299.md","note_250.md"]}"#);
    let requests = Rc::clone(&llm.requests);
    let (memdir, events) = memdir_with(TestClock::new(NOW), Some(llm), true);
    let r = block_on(memdir.find_relevant_in(
        headers,
        "which kafka topic for payment events",
        &FindOptions::default(),
    ));
    // The oldest memory matched the query, so it made the cut; note_250 (unmatched, old) did not.
    assert_eq!(paths(&r), ["/mem/note_299.md"]);
    assert_eq!(r.answered_by, AnsweredBy::LlmPrefilter);
    let requests = requests.borrow();
    let content = &requests[0].messages[0].content;
    let manifest = content.split("Available memories:\n").nth(1).unwrap();
    assert_eq!(manifest.lines().count(), 200);
    assert!(manifest.lines().next().unwrap().contains("note_299.md"));
    assert_eq!(field(&events, "candidates"), Some(FieldValue::Num(300.0)));
    assert_eq!(field(&events, "selected"), Some(FieldValue::Num(1.0)));
}

#[test]
fn telemetry_never_carries_the_query() {
    let (_, events) = recall_with(
        ScriptedLlm::reply(r#"{"selected_memories":["a.md"]}"#),
        "secret-project-zebra deploy",
    );
    let events = events.borrow();
    assert_eq!(events.len(), 1);
    let (name, fields) = &events[0];
    assert_eq!(name, "memdir_recall");
    let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "answered_by",
            "outcome",
            "candidates",
            "selected",
            "duration_ms"
        ]
    );
    for (_, v) in fields {
        if let FieldValue::Str(s) = v {
            assert!(!s.contains("zebra"));
        }
    }
}

#[test]
fn without_an_llm_the_ranker_answers() {
    let recorder = Recorder::default();
    let events = Rc::clone(&recorder.log);
    let memdir: Memdir<MemFs, TestClock, memdir::NoLlm, Recorder> = Memdir::new(
        MemFs::new(),
        TestClock::new(NOW),
        None,
        recorder,
        MemdirConfig::new("/mem/"),
    );
    let headers = fixture_headers();
    let r = block_on(memdir.find_relevant_in(
        headers.clone(),
        "how do I get kubectl access to the prod cluster",
        &FindOptions::default(),
    ));
    assert_eq!(paths(&r), ["/mem/reference_k8s_cluster_access.md"]);
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::Lexical, RecallOutcome::Ok)
    );
    assert_eq!(
        field(&events, "answered_by"),
        Some(FieldValue::Str("lexical".into()))
    );
    let r = block_on(memdir.find_relevant_in(
        headers,
        "who won the football match",
        &FindOptions::default(),
    ));
    assert!(r.memories.is_empty());
}

#[test]
fn recall_serialises_camel_case() {
    let r = Recall {
        memories: vec![memdir::recall::RecalledMemory {
            path: "/mem/a.md".into(),
            mtime_ms: 5.0,
            why: None,
        }],
        answered_by: AnsweredBy::LlmPrefilter,
        outcome: RecallOutcome::InvalidReply,
    };
    let yaml = serde_yaml::to_string(&r).unwrap();
    assert!(yaml.contains("mtimeMs: 5.0"), "{yaml}");
    assert!(yaml.contains("answeredBy: llm+prefilter"), "{yaml}");
    assert!(yaml.contains("outcome: invalid_reply"), "{yaml}");
}

// ---------------------------------------------------------------------------------------------
// Surfacing

const NOTE_LINES: &str = "\n\n> This memory file was truncated (first 200 lines). Use the Read tool to view the complete file at: /mem/a.md";
const NOTE_BYTES: &str = "\n\n> This memory file was truncated (4096 byte limit). Use the Read tool to view the complete file at: /mem/a.md";

#[test]
fn surfacing_line_cap_with_our_fix() {
    let two_hundred = "line\n".repeat(200);
    let s = surface_text("/mem/a.md", &two_hundred, NOW, NOW);
    assert_eq!(s.content, "line\n".repeat(199) + "line");
    assert_eq!(
        s.limit, None,
        "exactly 200 lines ending in a newline is whole"
    );

    let two_hundred_one = "line\n".repeat(200) + "extra";
    let s = surface_text("/mem/a.md", &two_hundred_one, NOW, NOW);
    assert_eq!(s.content, "line\n".repeat(199) + "line" + NOTE_LINES);
    assert_eq!(s.limit, Some(200));

    let short = "a\r\nb\r\n";
    let s = surface_text("/mem/a.md", short, NOW, NOW);
    assert_eq!(s.content, "a\nb\n");
    assert_eq!(s.limit, None);
}

#[test]
fn surfacing_byte_cap() {
    // 100 lines of 50 bytes: 80 lines + 79 separators = 4079 bytes; 81 lines would be 4130.
    let line = "x".repeat(50);
    let text = vec![line.as_str(); 100].join("\n");
    let s = surface_text("/mem/a.md", &text, NOW, NOW);
    let shown = vec![line.as_str(); 80].join("\n");
    assert_eq!(shown.len(), 4079);
    assert_eq!(s.content, shown.clone() + NOTE_BYTES);
    assert_eq!(s.limit, Some(80));

    // Byte reason wins over line reason.
    let many = vec![line.as_str(); 300].join("\n");
    assert!(surface_text("/mem/a.md", &many, NOW, NOW)
        .content
        .ends_with(NOTE_BYTES));

    // A first line over the limit shows nothing.
    let huge = "é".repeat(3000);
    let s = surface_text("/mem/a.md", &huge, NOW, NOW);
    assert_eq!(s.content, NOTE_BYTES.to_owned());
    assert_eq!(s.limit, Some(0));

    // Exactly 4096 bytes fits; multi-byte characters count in UTF-8 bytes.
    let exact = "😀".repeat(1024);
    let s = surface_text("/mem/a.md", &exact, NOW, NOW);
    assert_eq!((s.content.len(), s.limit), (4096, None));
    let over = format!("{exact}\nmore");
    assert_eq!(surface_text("/mem/a.md", &over, NOW, NOW).limit, Some(1));
    // A trailing newline after exactly 4096 bytes is not a lost line.
    let s = surface_text("/mem/a.md", &format!("{exact}\n"), NOW, NOW);
    assert_eq!((s.content.len(), s.limit), (4096, None));
}

#[test]
fn surfacing_strips_one_bom_and_renders() {
    let s = surface_text("/mem/a.md", "\u{FEFF}\u{FEFF}hi", NOW - 3.0 * DAY, NOW);
    assert_eq!(s.content, "\u{FEFF}hi");
    assert_eq!(
        s.header,
        memdir::memory_header("/mem/a.md", NOW - 3.0 * DAY, NOW)
    );
    assert_eq!(
        render_surfaced(&s),
        format!(
            "<system-reminder>\n{}\n\n\u{FEFF}hi\n</system-reminder>",
            s.header
        )
    );
}

#[test]
fn surface_reads_files_and_drops_failures() {
    let fs = MemFs::new();
    fs.insert_file("/mem/a.md", "---\nname: a\n---\nbody\n");
    fs.insert_file("/mem/b.md", "b".repeat(5000));
    fs.insert_file("/etc/passwd", "root:x:0:0");
    let memdir: Memdir<MemFs, TestClock> = Memdir::new(
        fs,
        TestClock::new(NOW),
        None,
        memdir::NoTelemetry,
        MemdirConfig::new("/mem/"),
    );
    let out = block_on(memdir.surface(&[
        ("/mem/a.md".into(), NOW - DAY),
        ("/mem/missing.md".into(), NOW),
        ("/etc/passwd".into(), NOW),
        ("/mem/../etc/passwd".into(), NOW),
        ("/mem/b.md".into(), NOW),
    ]));
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].path, "/mem/a.md");
    assert_eq!(out[0].content, "---\nname: a\n---\nbody\n");
    assert_eq!(out[0].header, "Memory (saved yesterday): /mem/a.md:");
    assert_eq!(out[1].limit, Some(0));
}

// ---------------------------------------------------------------------------------------------
// Session helpers

#[test]
fn single_word_prompts_skip_recall() {
    assert!(should_recall("deploy it"));
    assert!(should_recall("deploy\u{3000}it"));
    assert!(!should_recall("deploy"));
    assert!(!should_recall("\u{FEFF} deploy \u{A0}\n"));
    assert!(!should_recall("   "));
    assert!(should_recall(" a\tb "));
}

#[test]
fn session_budget_stops_at_61440_units() {
    let mut budget = SessionBudget::new();
    let memory = |path: &str, content: String| memdir::recall::SurfacedMemory {
        path: path.into(),
        content,
        mtime_ms: NOW,
        header: String::new(),
        limit: None,
    };
    budget.record(&memory("/mem/a.md", "x".repeat(61_439)));
    assert!(!budget.is_exhausted());
    budget.record(&memory("/mem/b.md", "😀".to_owned()));
    assert_eq!(budget.used_units(), 61_441);
    assert!(budget.is_exhausted());
    budget.record(&memory("/mem/a.md", String::new()));
    assert_eq!(budget.surfaced_paths(), ["/mem/a.md", "/mem/b.md"]);
    budget.reset();
    assert_eq!((budget.used_units(), budget.surfaced_paths().len()), (0, 0));
}

// ---------------------------------------------------------------------------------------------
// Speed (run in release: cargo test --release --test recall -- --ignored --nocapture)

fn synthetic_headers(n: usize) -> Vec<MemoryHeader> {
    const WORDS: &[&str] = &[
        "deploy",
        "billing",
        "invoice",
        "postgres",
        "kafka",
        "react",
        "cache",
        "test",
        "flaky",
        "release",
        "freeze",
        "grafana",
        "sentry",
        "oauth",
        "token",
        "session",
        "migration",
        "schema",
        "index",
        "payment",
        "stripe",
        "webhook",
        "retry",
        "queue",
        "worker",
        "timeout",
        "latency",
        "budget",
        "bundle",
        "design",
        "tailwind",
        "figma",
        "lint",
        "commit",
        "review",
    ];
    let mut state = 12345u64;
    let mut word = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        WORDS[(state >> 33) as usize % WORDS.len()]
    };
    (0..n)
        .map(|i| {
            let desc: Vec<&str> = (0..12).map(|_| word()).collect();
            let body: Vec<&str> = (0..60).map(|_| word()).collect();
            MemoryHeader {
                filename: format!("{}_{}_{i}.md", word(), word()),
                file_path: format!("/mem/{i}.md"),
                mtime_ms: NOW - i as f64,
                description: Some(desc.join(" ")),
                memory_type: Some(MemoryType::Project),
                name: Some(format!("{} {}", word(), word())),
                body_head: body.join(" "),
            }
        })
        .collect()
}

#[test]
#[ignore = "timing; run in release"]
fn ranker_speed_10k() {
    let headers = synthetic_headers(10_000);
    let started = std::time::Instant::now();
    let index = RankerIndex::build(&headers);
    let build = started.elapsed();
    let queries = [
        "the flaky test times out in the billing worker",
        "stripe webhook retry",
        "react bundle budget for the design system",
        "what is the weather like",
    ];
    let started = std::time::Instant::now();
    let rounds = 50;
    for _ in 0..rounds {
        for q in queries {
            std::hint::black_box(index.rank(q, 5));
        }
    }
    let per_query = started.elapsed() / (rounds * queries.len() as u32);
    println!("ranker 10k: build {build:?}, query {per_query:?}");
    assert!(per_query < std::time::Duration::from_millis(10));
}

// ---------------------------------------------------------------------------------------------
// End to end over a MemFs: scan, recall, surface

#[test]
fn find_relevant_then_surface_over_memfs() {
    let fs = MemFs::new();
    let root = fixture_dir().join("memories");
    for h in fixture_headers() {
        let text = std::fs::read_to_string(root.join(&h.filename)).unwrap();
        fs.insert_file(&h.file_path, text);
        fs.set_mtime(&h.file_path, h.mtime_ms);
    }
    fs.insert_file(
        "/mem/MEMORY.md",
        "- [Staging](reference_staging_environment.md) — env\n",
    );
    let llm = ScriptedLlm::reply(
        "```json\n{\"selected_memories\":[\"reference_staging_environment.md\",\"MEMORY.md\"]}\n```",
    );
    let requests = Rc::clone(&llm.requests);
    let recorder = Recorder::default();
    let memdir = Memdir::new(
        fs,
        TestClock::new(NOW),
        Some(llm),
        recorder,
        MemdirConfig::new("/mem/"),
    );
    let r =
        block_on(memdir.find_relevant("test the checkout flow on staging", FindOptions::default()))
            .unwrap();
    assert_eq!(paths(&r), ["/mem/reference_staging_environment.md"]);
    assert!(!requests.borrow()[0].messages[0]
        .content
        .contains("MEMORY.md"));
    let picked: Vec<(String, f64)> = r
        .memories
        .iter()
        .map(|m| (m.path.clone(), m.mtime_ms))
        .collect();
    let shown = block_on(memdir.surface(&picked));
    assert_eq!(shown.len(), 1);
    assert!(shown[0]
        .content
        .starts_with("---\nname: Staging environment\n"));
    assert_eq!(shown[0].limit, None);
    assert!(render_surfaced(&shown[0]).starts_with("<system-reminder>\n"));
}
