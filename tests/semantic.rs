//! Semantic recall with a deterministic stand-in embedder (hashed bag of words, with a small
//! synonym table so that some memories are reachable only through their vectors): fusion, the
//! `.memdir-vectors` sidecar (reuse, rebuild when corrupt, re-embedding on change), and the
//! fallback to the ranker when the embedder fails, lies or hangs.

mod common;

use common::llm::{Script, ScriptedLlm};
use common::{block_on, TestClock};
use memdir::host::{Embedder, FileSystem, HostResult, NoTelemetry};
use memdir::recall::semantic::{Sidecar, SIDECAR_NAME};
use memdir::recall::{AbortFlag, AnsweredBy, FindOptions, RecallOutcome};
use memdir::{HostError, MemFs, Memdir, MemdirConfig, NoLlm};
use std::cell::{Cell, RefCell};

const DIMS: usize = 64;
const SIDECAR: &str = "/m/.memdir-vectors";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Good,
    Throws,
    WrongCount,
    WrongDim,
    NaN,
    Never,
}

/// Hashed bag of words; `car`/`automobile` and `vehicle` share a dimension.
struct StandIn {
    model: String,
    mode: Cell<Mode>,
    calls: Cell<usize>,
    texts: RefCell<Vec<String>>,
}

impl StandIn {
    fn new(model: &str) -> Self {
        StandIn {
            model: model.into(),
            mode: Cell::new(Mode::Good),
            calls: Cell::new(0),
            texts: RefCell::new(Vec::new()),
        }
    }

    fn vector(text: &str) -> Vec<f32> {
        let mut v = vec![0.0; DIMS];
        for word in text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() > 2)
        {
            let word = word.to_ascii_lowercase();
            let word = match word.as_str() {
                "automobile" | "vehicle" => "car".to_owned(),
                "servicing" | "maintenance" => "service".to_owned(),
                _ => word,
            };
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for b in word.bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
            v[(h % DIMS as u64) as usize] += 1.0;
        }
        v[DIMS - 1] += 0.1; // never all zeros
        v
    }
}

impl Embedder for &StandIn {
    fn model(&self) -> &str {
        &self.model
    }
    async fn embed(&self, texts: &[String]) -> HostResult<Vec<Vec<f32>>> {
        self.calls.set(self.calls.get() + 1);
        self.texts.borrow_mut().extend(texts.iter().cloned());
        let mut out: Vec<Vec<f32>> = texts.iter().map(|t| StandIn::vector(t)).collect();
        match self.mode.get() {
            Mode::Good => {}
            Mode::Throws => return Err(HostError::new(Some("EMBED"), "model crashed")),
            Mode::WrongCount => {
                out.push(vec![1.0; DIMS]);
            }
            Mode::WrongDim => {
                if let Some(v) = out.last_mut() {
                    v.push(1.0);
                }
            }
            Mode::NaN => {
                if let Some(v) = out.first_mut() {
                    v[0] = f32::NAN;
                }
            }
            Mode::Never => std::future::pending::<()>().await,
        }
        Ok(out)
    }
}

fn memory(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\ntype: project\n---\n{body}\n")
}

fn fs() -> MemFs {
    let fs = MemFs::new();
    fs.insert_file(
        "/m/car.md",
        memory(
            "Automobile maintenance",
            "automobile maintenance every spring",
            "Book the garage.",
        ),
    );
    fs.insert_file(
        "/m/deploy.md",
        memory(
            "Deploy steps",
            "deploy with the blue green script",
            "Run scripts/deploy.sh then check grafana.",
        ),
    );
    fs.insert_file(
        "/m/tests.md",
        memory(
            "Integration tests",
            "integration tests hit a real postgres database",
            "Mocks hid a migration bug last quarter.",
        ),
    );
    fs.insert_file("/m/MEMORY.md", "- [Deploy](deploy.md) — how\n");
    fs
}

type M<'e> = Memdir<&'e MemFs, TestClock, NoLlm, NoTelemetry, &'e StandIn>;

fn open<'e>(fs: &'e MemFs, embedder: &'e StandIn) -> M<'e> {
    Memdir::new(
        fs,
        TestClock::new(0.0),
        None,
        NoTelemetry,
        MemdirConfig::new("/m/"),
    )
    .with_embedder(Some(embedder))
}

fn recall(m: &M<'_>, query: &str) -> (Vec<String>, AnsweredBy, RecallOutcome) {
    let r = block_on(m.find_relevant(query, FindOptions::default())).unwrap();
    let files = r
        .memories
        .iter()
        .map(|m| m.path.trim_start_matches("/m/").to_owned())
        .collect();
    (files, r.answered_by, r.outcome)
}

#[test]
fn fusion_finds_a_paraphrase_and_still_abstains() {
    let e = StandIn::new("standin-1");
    let disk = fs();
    let m = open(&disk, &e);
    // No word in common with car.md (lexically), same dimensions through the synonym table.
    let (files, by, outcome) = recall(&m, "when is the vehicle servicing due");
    assert_eq!(files, vec!["car.md"]);
    assert_eq!((by, outcome), (AnsweredBy::Semantic, RecallOutcome::Ok));
    // A lexical match is fused too.
    let (files, by, _) = recall(&m, "run the integration tests against postgres");
    assert_eq!(files, vec!["tests.md"]);
    assert_eq!(by, AnsweredBy::LexicalSemantic);
    // Chit-chat: nothing.
    let (files, _, outcome) = recall(&m, "thanks, sounds good");
    assert!(files.is_empty(), "{files:?}");
    assert_eq!(outcome, RecallOutcome::Ok);
    // Without the embedder the paraphrase is missed: the semantic signal did the work.
    let plain = Memdir::new(
        fs(),
        TestClock::new(0.0),
        None::<NoLlm>,
        NoTelemetry,
        MemdirConfig::new("/m/"),
    );
    let r =
        block_on(plain.find_relevant("when is the vehicle servicing due", FindOptions::default()))
            .unwrap();
    assert!(r.memories.is_empty());
}

#[test]
fn sidecar_is_reused_so_a_second_run_embeds_only_the_query() {
    let e = StandIn::new("standin-1");
    let disk = fs();
    let m = open(&disk, &e);
    recall(&m, "deploy script");
    assert_eq!(e.calls.get(), 2); // one batch of memories, then the query
    assert_eq!(e.texts.borrow().len(), 4);
    let text = block_on(disk.read_file(SIDECAR)).unwrap();
    let sidecar = Sidecar::decode(&text, "standin-1");
    let keys: Vec<&str> = sidecar.entries.keys().map(String::as_str).collect();
    assert_eq!(keys, vec!["car.md", "deploy.md", "tests.md"]);
    assert_eq!(sidecar.dims, DIMS);
    // A new instance over the same directory (a second run): only the query is embedded.
    let e2 = StandIn::new("standin-1");
    let m2 = open(&disk, &e2);
    let (files, _, _) = recall(&m2, "deploy script");
    assert_eq!(files, vec!["deploy.md"]);
    assert_eq!(e2.calls.get(), 1);
    assert_eq!(*e2.texts.borrow(), vec!["deploy script".to_owned()]);
    // The sidecar was not rewritten (nothing changed).
    assert_eq!(block_on(disk.read_file(SIDECAR)).unwrap(), text);
    // The scan and the listing never see it.
    let names: Vec<String> = block_on(m2.scan())
        .unwrap()
        .into_iter()
        .map(|h| h.filename)
        .collect();
    assert!(!names.iter().any(|n| n.contains("memdir-vectors")));
    let listed = format!("{:?}", block_on(m2.list()).unwrap());
    assert!(!listed.contains("memdir-vectors"));
    assert_eq!(SIDECAR_NAME, ".memdir-vectors");
}

#[test]
fn changed_content_is_re_embedded_and_only_that() {
    let e = StandIn::new("standin-1");
    let disk = fs();
    let m = open(&disk, &e);
    recall(&m, "deploy script");
    e.texts.borrow_mut().clear();
    disk.insert_file(
        "/m/deploy.md",
        memory(
            "Deploy steps",
            "deploy with the canary script",
            "Run scripts/canary.sh.",
        ),
    );
    recall(&m, "canary deploy");
    let texts = e.texts.borrow().clone();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts[0].contains("canary script"));
    assert_eq!(texts[1], "canary deploy");
    // A deleted memory's entry is dropped from the sidecar.
    block_on(disk.remove("/m/car.md")).unwrap();
    recall(&m, "deploy");
    let sidecar = Sidecar::decode(&block_on(disk.read_file(SIDECAR)).unwrap(), "standin-1");
    assert!(!sidecar.entries.contains_key("car.md"));
    assert_eq!(sidecar.entries.len(), 2);
}

/// Re-embedded memories after `corrupt` rewrote the sidecar of a first run.
fn re_embedded_after(corrupt: impl Fn(&str) -> String, model: &str) -> usize {
    let disk = fs();
    let first = StandIn::new("standin-1");
    recall(&open(&disk, &first), "deploy script");
    let text = block_on(disk.read_file(SIDECAR)).unwrap();
    disk.insert_file(SIDECAR, corrupt(&text));
    let e = StandIn::new(model);
    let m = open(&disk, &e);
    let (files, _, outcome) = recall(&m, "deploy script");
    assert_eq!(files, vec!["deploy.md"]);
    assert_eq!(outcome, RecallOutcome::Ok);
    // The rebuilt sidecar is whole again, for the embedder's model.
    let rebuilt = Sidecar::decode(&block_on(disk.read_file(SIDECAR)).unwrap(), model);
    assert_eq!(rebuilt.entries.len(), 3);
    let n = e.texts.borrow().len();
    n - 1
}

#[test]
fn a_corrupt_sidecar_is_rebuilt_not_trusted() {
    // Truncated inside the last entry: that one memory is embedded again.
    assert_eq!(
        re_embedded_after(|t| t[..t.len() - 10].to_owned(), "standin-1"),
        1
    );
    // Garbage.
    assert_eq!(
        re_embedded_after(|_| "\u{0}\u{1}garbage".into(), "standin-1"),
        3
    );
    // Wrong dims in the header.
    assert_eq!(
        re_embedded_after(|t| t.replacen("\"dims\":64", "\"dims\":32", 1), "standin-1"),
        3
    );
    // Vectors of another model.
    assert_eq!(re_embedded_after(|t| t.to_owned(), "standin-2"), 3);
    // One vector's bytes swapped for another length.
    assert_eq!(
        re_embedded_after(
            |t| {
                let mut lines: Vec<String> = t.lines().map(str::to_owned).collect();
                let parts: Vec<String> = lines[1].splitn(3, ' ').map(str::to_owned).collect();
                lines[1] = format!("{} AAAA {}", parts[0], parts[2]);
                lines.join("\n") + "\n"
            },
            "standin-1"
        ),
        1
    );
    // Untouched: nothing re-embedded (the helper itself is honest).
    assert_eq!(re_embedded_after(|t| t.to_owned(), "standin-1"), 0);
}

#[test]
fn a_hostile_embedder_falls_back_to_the_ranker() {
    for (mode, outcome) in [
        (Mode::Throws, RecallOutcome::Error),
        (Mode::WrongCount, RecallOutcome::InvalidReply),
        (Mode::WrongDim, RecallOutcome::InvalidReply),
        (Mode::NaN, RecallOutcome::InvalidReply),
        (Mode::Never, RecallOutcome::Timeout),
    ] {
        let e = StandIn::new("standin-1");
        e.mode.set(mode);
        let disk = fs();
        let m = open(&disk, &e);
        let (files, by, got) = recall(&m, "deploy script");
        assert_eq!(files, vec!["deploy.md"], "{mode:?}");
        assert_eq!((by, got), (AnsweredBy::Lexical, outcome), "{mode:?}");
        // Nothing it said was kept.
        assert!(block_on(disk.read_file(SIDECAR)).is_err(), "{mode:?}");
    }
    // A query embedding of the wrong dimension (after good memory vectors) is refused too.
    let e = StandIn::new("standin-1");
    let disk = fs();
    recall(&open(&disk, &e), "deploy script");
    e.mode.set(Mode::WrongDim);
    let m = open(&disk, &e);
    let (_, by, got) = recall(&m, "deploy script");
    assert_eq!(
        (by, got),
        (AnsweredBy::Lexical, RecallOutcome::InvalidReply)
    );
}

#[test]
fn an_abort_yields_nothing_even_with_a_hanging_embedder() {
    let e = StandIn::new("standin-1");
    e.mode.set(Mode::Never);
    let disk = fs();
    let m = open(&disk, &e);
    let flag = AbortFlag::new();
    flag.abort();
    let options = FindOptions {
        abort: Some(flag),
        ..FindOptions::default()
    };
    let r = block_on(m.find_relevant("deploy script", options)).unwrap();
    assert!(r.memories.is_empty());
    assert_eq!(r.outcome, RecallOutcome::Aborted);
}

#[test]
fn documents_are_embedded_in_batches_of_64() {
    let disk = MemFs::new();
    for i in 0..130 {
        disk.insert_file(
            &format!("/m/note_{i:03}.md"),
            memory(&format!("Note {i}"), &format!("topic number {i}"), "body"),
        );
    }
    let e = StandIn::new("standin-1");
    let m = open(&disk, &e);
    recall(&m, "topic");
    // 130 memories (the scan's budget permitting) in ⌈n/64⌉ calls, then the query.
    let n = block_on(m.scan()).unwrap().len();
    assert_eq!(e.calls.get(), n.div_ceil(64) + 1);
    assert_eq!(e.texts.borrow().len(), n + 1);
}

#[test]
fn explain_gives_cosine_and_matched_terms_only_when_asked() {
    let e = StandIn::new("standin-1");
    let disk = fs();
    let m = open(&disk, &e);
    let explain = FindOptions {
        explain: true,
        ..FindOptions::default()
    };
    let r =
        block_on(m.find_relevant("run the integration tests against postgres", explain)).unwrap();
    let why = r.memories[0].why.as_ref().expect("why was asked for");
    let semantic = why.semantic.expect("an embedder answered");
    let lexical = why
        .lexical
        .as_ref()
        .expect("it shares words with the query");
    assert!(semantic.cosine > 0.0 && semantic.cosine <= 1.0 + 1e-6);
    // The fused score sits between its parts (a weighted mean of lexical and cosine).
    let (lo, hi) = (
        lexical.score.min(semantic.cosine),
        lexical.score.max(semantic.cosine),
    );
    assert!(why.score >= lo - 1e-6 && why.score <= hi + 1e-6, "{why:?}");
    let fields_of = |prefix: &str| {
        lexical
            .terms
            .iter()
            .find(|t| t.term.starts_with(prefix))
            .map(|t| t.fields.clone())
    };
    assert_eq!(fields_of("integr"), Some(vec!["name", "description"]));
    assert_eq!(fields_of("postgr"), Some(vec!["description"]));
    // The paraphrase matched on its embedding alone: a cosine, no terms.
    let options = FindOptions {
        explain: true,
        ..FindOptions::default()
    };
    let r = block_on(m.find_relevant("when is the vehicle servicing due", options)).unwrap();
    let why = r.memories[0].why.as_ref().unwrap();
    assert!(why.lexical.is_none() && why.semantic.is_some());
    // Not asked: no why.
    let r = block_on(m.find_relevant("run the integration tests", FindOptions::default())).unwrap();
    assert!(!r.memories.is_empty() && r.memories.iter().all(|m| m.why.is_none()));
}

#[test]
fn a_long_query_is_matched_line_by_line_too() {
    let e = StandIn::new("standin-1");
    let disk = fs();
    let m = open(&disk, &e);
    // One line of a pasted log is a paraphrase of car.md; the others are noise that dilutes the
    // whole query's vector below the cut-off.
    let query = "frame alpha beta gamma delta epsilon\nwhen is the vehicle servicing due\nzeta theta kappa lambda omicron sigma";
    e.texts.borrow_mut().clear();
    let (files, by, outcome) = recall(&m, query);
    assert_eq!(files, vec!["car.md"]);
    assert_eq!((by, outcome), (AnsweredBy::Semantic, RecallOutcome::Ok));
    // The query and its three lines, in one call after the memories.
    let texts = e.texts.borrow().clone();
    let tail: Vec<&str> = texts
        .iter()
        .rev()
        .take(4)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        [
            query,
            "frame alpha beta gamma delta epsilon",
            "when is the vehicle servicing due",
            "zeta theta kappa lambda omicron sigma"
        ]
    );
    // The whole query alone is too far from car.md to pass the fused cut-off (the clear-winner
    // rule might still keep it in this tiny directory; the segments above are what matter).
    let whole = StandIn::vector(query);
    let car = StandIn::vector(
        "Automobile maintenance\nautomobile maintenance every spring\nBook the garage.",
    );
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let cos: f32 =
        whole.iter().zip(&car).map(|(a, b)| a * b).sum::<f32>() / (norm(&whole) * norm(&car));
    let p = memdir::recall::semantic::FusionParams::default();
    assert!((1.0 - p.lexical_weight) * cos < p.min_score, "{cos}");
}

// ---------------------------------------------------------------------------------------------
// An embedder next to an LLM: the fused scores pick the LLM's manifest in a directory over the
// selector budget, and answer when the LLM fails.

type WithLlm<'e> = Memdir<&'e MemFs, TestClock, &'e ScriptedLlm, NoTelemetry, &'e StandIn>;

/// `fs()` with car.md the oldest (the lexical pre-filter's last pick when nothing matches), an
/// LLM, the embedder when given, and a selector budget of `budget`.
fn with_llm<'e>(
    disk: &'e MemFs,
    llm: &'e ScriptedLlm,
    embedder: Option<&'e StandIn>,
    budget: usize,
) -> WithLlm<'e> {
    disk.set_mtime("/m/car.md", 1_000.0);
    disk.set_mtime("/m/deploy.md", 3_000.0);
    disk.set_mtime("/m/tests.md", 2_000.0);
    let mut config = MemdirConfig::new("/m/");
    config.recall.selector_budget = budget;
    Memdir::new(disk, TestClock::new(0.0), Some(llm), NoTelemetry, config).with_embedder(embedder)
}

fn files_of(r: &memdir::recall::Recall) -> Vec<String> {
    r.memories
        .iter()
        .map(|m| m.path.trim_start_matches("/m/").to_owned())
        .collect()
}

const PARAPHRASE: &str = "when is the vehicle servicing due";

#[test]
fn over_the_budget_the_llm_sees_the_fused_best() {
    let disk = fs();
    let e = StandIn::new("standin-1");
    let llm = ScriptedLlm::reply(r#"{"selected_memories":["car.md"]}"#);
    let m = with_llm(&disk, &llm, Some(&e), 1);
    let r = block_on(m.find_relevant(PARAPHRASE, FindOptions::default())).unwrap();
    assert_eq!(files_of(&r), ["car.md"]);
    assert_eq!(r.answered_by, AnsweredBy::LlmSemanticPrefilter);
    assert_eq!(r.outcome, RecallOutcome::Ok);
    let manifest = llm.requests.borrow()[0].messages[0].content.clone();
    assert!(manifest.contains("car.md"), "{manifest}");
    assert!(!manifest.contains("deploy.md") && !manifest.contains("tests.md"));

    // The ranker alone shows the newest memory instead (nothing matches lexically): the LLM
    // cannot pick car.md.
    let disk = fs();
    let llm = ScriptedLlm::reply(r#"{"selected_memories":["car.md"]}"#);
    let m = with_llm(&disk, &llm, None, 1);
    let r = block_on(m.find_relevant(PARAPHRASE, FindOptions::default())).unwrap();
    assert!(r.memories.is_empty());
    assert_eq!(r.answered_by, AnsweredBy::LlmPrefilter);
    let manifest = llm.requests.borrow()[0].messages[0].content.clone();
    assert!(
        manifest.contains("deploy.md") && !manifest.contains("car.md"),
        "{manifest}"
    );

    // A failing embedder: the ranker pre-filters and the LLM still answers.
    let disk = fs();
    let e = StandIn::new("standin-1");
    e.mode.set(Mode::Throws);
    let llm = ScriptedLlm::reply(r#"{"selected_memories":["deploy.md"]}"#);
    let m = with_llm(&disk, &llm, Some(&e), 1);
    let r = block_on(m.find_relevant(PARAPHRASE, FindOptions::default())).unwrap();
    assert_eq!(files_of(&r), ["deploy.md"]);
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::LlmPrefilter, RecallOutcome::Ok)
    );
}

#[test]
fn when_the_llm_fails_the_fused_ranker_answers() {
    for budget in [1, 200] {
        let disk = fs();
        let e = StandIn::new("standin-1");
        let llm = ScriptedLlm::always(Script::Fail);
        let m = with_llm(&disk, &llm, Some(&e), budget);
        let r = block_on(m.find_relevant(PARAPHRASE, FindOptions::default())).unwrap();
        assert_eq!(files_of(&r), ["car.md"], "budget {budget}");
        assert_eq!(
            (r.answered_by, r.outcome),
            (AnsweredBy::Semantic, RecallOutcome::Error),
            "budget {budget}"
        );
        // The query was embedded once (for the pre-filter, reused by the fallback, or for the
        // fallback alone).
        let queries = e.texts.borrow().iter().filter(|t| *t == PARAPHRASE).count();
        assert_eq!(queries, 1, "budget {budget}");
        // An invalid reply too; and the explanation carries the cosine.
        let llm = ScriptedLlm::reply("no idea");
        let m = with_llm(&disk, &llm, Some(&e), budget);
        let options = FindOptions {
            explain: true,
            ..FindOptions::default()
        };
        let r = block_on(m.find_relevant(PARAPHRASE, options)).unwrap();
        assert_eq!(files_of(&r), ["car.md"]);
        assert_eq!(r.outcome, RecallOutcome::InvalidReply);
        let why = r.memories[0].why.as_ref().unwrap();
        assert!(why.semantic.is_some_and(|s| s.cosine > 0.0), "{why:?}");
    }
    // Without the embedder the lexical fallback misses the paraphrase.
    let disk = fs();
    let llm = ScriptedLlm::always(Script::Fail);
    let m = with_llm(&disk, &llm, None, 200);
    let r = block_on(m.find_relevant(PARAPHRASE, FindOptions::default())).unwrap();
    assert!(r.memories.is_empty());
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::Lexical, RecallOutcome::Error)
    );
    // Both failing: the lexical ranker, with the LLM's outcome.
    let e = StandIn::new("standin-1");
    e.mode.set(Mode::Throws);
    let m = with_llm(&disk, &llm, Some(&e), 200);
    let r = block_on(m.find_relevant("run the integration tests", FindOptions::default())).unwrap();
    assert_eq!(files_of(&r), ["tests.md"]);
    assert_eq!(
        (r.answered_by, r.outcome),
        (AnsweredBy::Lexical, RecallOutcome::Error)
    );
}
