//! wasm-bindgen tests: the exported API over JS host objects. The same binary runs under Node
//! (default) and in headless Chromium (`WASM_BINDGEN_USE_BROWSER=1`); no configure macro pins it.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Promise, Reflect};
use memdir::wasm::memdir::JsMemdir;
use memdir::wasm::{frontmatter, pure};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen(module = "/tests/fixtures/host.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeFs)]
    fn make_fs(style: &str) -> JsValue;
    #[wasm_bindgen(js_name = makeThrowingFs)]
    fn make_throwing_fs() -> JsValue;
    #[wasm_bindgen(js_name = hostFailureValue)]
    fn host_failure() -> JsValue;
    #[wasm_bindgen(js_name = llmReplying)]
    fn llm_replying(text: &str, as_promise: bool) -> JsValue;
    #[wasm_bindgen(js_name = llmThrowing)]
    fn llm_throwing() -> JsValue;
    #[wasm_bindgen(js_name = llmRejecting)]
    fn llm_rejecting() -> JsValue;
    #[wasm_bindgen(js_name = llmNeverSettling)]
    fn llm_never_settling() -> JsValue;
    #[wasm_bindgen(js_name = llmSettlingAfter)]
    fn llm_settling_after(ms: u32, text: &str) -> JsValue;
    #[wasm_bindgen(js_name = signalOf)]
    fn signal_of(llm: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = callCount)]
    fn call_count(llm: &JsValue) -> u32;
    #[wasm_bindgen(js_name = lastRequest)]
    fn last_request(llm: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = makeOptions)]
    fn make_options(fs: &JsValue, dir: &str, llm: &JsValue, events: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = newArray)]
    fn new_array() -> Array;
    #[wasm_bindgen(js_name = eventNames)]
    fn event_names(events: &Array) -> String;
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn str_of(v: &JsValue, key: &str) -> String {
    get(v, key)
        .as_string()
        .unwrap_or_else(|| panic!("{key} is not a string"))
}

async fn ok(p: Promise) -> JsValue {
    JsFuture::from(p).await.expect("promise rejected")
}

async fn err(p: Promise) -> JsValue {
    JsFuture::from(p).await.expect_err("promise resolved")
}

fn memdir(fs: &JsValue, events: Option<&Array>) -> JsMemdir {
    let events = events
        .map(|a| JsValue::from(a.clone()))
        .unwrap_or(JsValue::UNDEFINED);
    JsMemdir::new(make_options(fs, "/mem", &JsValue::UNDEFINED, &events)).unwrap()
}

fn save_input(name: &str, description: &str, kind: &str) -> JsValue {
    let o = js_sys::Object::new();
    Reflect::set(&o, &"name".into(), &name.into()).unwrap();
    Reflect::set(&o, &"description".into(), &description.into()).unwrap();
    Reflect::set(&o, &"type".into(), &kind.into()).unwrap();
    Reflect::set(&o, &"body".into(), &format!("Body of {name}.").into()).unwrap();
    o.into()
}

#[wasm_bindgen_test]
fn reference_vectors_hold_under_wasm() {
    assert_eq!(pure::format_file_size(25000.0.into()).unwrap(), "24.4KB");
    assert_eq!(pure::format_file_size(25856.0.into()).unwrap(), "25.3KB");
    assert_eq!(pure::format_file_size(1023.0.into()).unwrap(), "1023 bytes");
    assert_eq!(pure::format_file_size(1048576.0.into()).unwrap(), "1MB");
    assert_eq!(
        pure::sanitize_path("/Users/foo/my-project".into()).unwrap(),
        "-Users-foo-my-project"
    );
    assert_eq!(
        pure::sanitize_path("/home/jörg/😀proj".into()).unwrap(),
        "-home-j-rg---proj"
    );
    let long = format!(
        "/home/user/{}project",
        "very-long-directory-name/".repeat(10)
    );
    assert!(pure::sanitize_path(long.as_str().into())
        .unwrap()
        .ends_with("-50u9ca"));
    assert_eq!(
        pure::memory_age((1_000.0 - 86_400_000.0).into(), 1_000.0.into()).unwrap(),
        "yesterday"
    );
    assert_eq!(
        pure::memory_header("/m/a.md".into(), 0.0.into(), 86_400_000.0.into()).unwrap(),
        "Memory (saved yesterday): /m/a.md:"
    );
}

#[wasm_bindgen_test]
fn truncation_from_counts_and_a_prefix() {
    let lines: Vec<String> = (0..250).map(|i| format!("- line {i}")).collect();
    let text = lines.join("\n");
    let units = text.encode_utf16().count() as f64;
    // The answer is offsets: the content is the first `keepUnits` units, then `suffix`.
    let content = |prefix: &str, out: &JsValue| {
        let keep = get(out, "keepUnits").as_f64().unwrap() as usize;
        format!("{}{}", &prefix[..keep], str_of(out, "suffix"))
    };
    let out = pure::truncate_entrypoint_cut(text.as_str().into(), 250.0, units, None).unwrap();
    assert_eq!(get(&out, "lineCount").as_f64(), Some(250.0));
    assert_eq!(get(&out, "wasLineTruncated").as_bool(), Some(true));
    assert!(content(&text, &out).contains("250 lines (limit: 200)"));
    // Only `maxUnits + 1` units of a long index are handed over; the counts describe the whole.
    let options: JsValue = js_sys::JSON::parse(r#"{"maxUnits": 20}"#).unwrap();
    let out =
        pure::truncate_entrypoint_cut(text[..21].into(), 250.0, units, Some(options)).unwrap();
    assert!(content(&text[..21], &out).starts_with("- line 0\n- line 1\n\n> WARNING"));
    assert_eq!(get(&out, "byteCount").as_f64(), Some(units));
    let bad =
        pure::truncate_entrypoint_cut("x".into(), 1.0, 1.0, Some(JsValue::from_str("not options")));
    assert_eq!(str_of(&bad.unwrap_err(), "code"), "INVALID_INPUT");
}

/// `parseFrontmatter` over the whole text, decoded by the boundary.
fn parse_head(text: &str) -> JsValue {
    frontmatter::parse_frontmatter(text.into()).unwrap()
}

#[wasm_bindgen_test]
fn frontmatter_round_trips_through_js() {
    let parsed =
        parse_head("---\nname: Role\ndescription: Fix: use the real DB\ntype: user\n---\nBody");
    let header = get(&parsed, "header");
    assert_eq!(str_of(&header, "description"), "Fix: use the real DB");
    assert_eq!(str_of(&header, "type"), "user");
    assert_eq!(str_of(&get(&parsed, "frontmatter"), "name"), "Role");
    assert_eq!(str_of(&parsed, "body"), "Body");
    let text = pure::format_memory_file(header, "Body".into()).unwrap();
    let again = parse_head(&text);
    assert_eq!(
        str_of(&get(&again, "header"), "description"),
        "Fix: use the real DB"
    );
    // A probe that ends inside the frontmatter asks for the whole text.
    let probe = "---\nname: Ro";
    assert!(frontmatter::parse_frontmatter_probe(
        probe.into(),
        probe.as_bytes(),
        probe.len(),
        false
    )
    .is_undefined());
    // A non-string is refused with a MemdirError, not copied into wasm.
    let refused = frontmatter::parse_frontmatter(JsValue::from_f64(7.0)).unwrap_err();
    assert_eq!(str_of(&refused, "code"), "INVALID_INPUT");
    // Offsets are UTF-16 units; NaN has no JSON form, so the object is built directly.
    let odd = parse_head("---\nname: 😀\nn: .nan\n---\nBödy");
    assert!(get(&get(&odd, "frontmatter"), "n")
        .as_f64()
        .unwrap()
        .is_nan());
    assert_eq!(str_of(&odd, "body"), "Bödy");
    // A plain ASCII block (sliced from the text by offsets), from a complete probe too.
    let text = "---\nname: R\n---\nB";
    let plain =
        frontmatter::parse_frontmatter_probe(text.into(), text.as_bytes(), text.len(), true);
    assert_eq!(str_of(&get(&plain, "header"), "name"), "R");
    assert_eq!(str_of(&plain, "body"), "B");
    assert!(get(&get(&plain, "header"), "type").is_undefined());
}

/// Each memory field of the core's `HEADER_KEYS`, alone or with the others in any order, comes
/// back under its own name from the sliced decoding (`decodeSlicesAt`, where the core passes a
/// field by its index in that list): a JS decoder with the fields in another order than the
/// core's would put a value under the wrong name.
#[wasm_bindgen_test]
fn every_header_key_is_decoded_under_its_own_name() {
    use memdir::frontmatter::{head_for_js, HeadForJs, HEADER_KEYS};
    let value = |key: &str| match key {
        "type" => "project".to_owned(),
        _ => format!("the {key}"),
    };
    let line = |key: &&str| format!("{key}: {}\n", value(key));
    let mut blocks: Vec<Vec<&str>> = HEADER_KEYS.iter().map(|key| vec![*key]).collect();
    blocks.push(HEADER_KEYS.to_vec());
    blocks.push(HEADER_KEYS.iter().rev().copied().collect());
    for keys in blocks {
        let lines: String = keys.iter().map(line).collect();
        let text = format!("---\nother: x\n{lines}---\nBody");
        let HeadForJs::Slices(offsets) = head_for_js(&text, true) else {
            panic!("not sliced: {text:?}");
        };
        assert_eq!(offsets.len(), 2 + 4 * (1 + keys.len()), "{text:?}");
        let parsed = parse_head(&text);
        let (frontmatter, header) = (get(&parsed, "frontmatter"), get(&parsed, "header"));
        assert_eq!(str_of(&frontmatter, "other"), "x");
        for key in HEADER_KEYS {
            let expected = keys.contains(&key).then(|| value(key));
            assert_eq!(
                get(&frontmatter, key).as_string(),
                expected,
                "{key} in {text:?}"
            );
            assert_eq!(get(&header, key).as_string(), expected, "{key} in {text:?}");
        }
    }
}

async fn store_round_trip(style: &str) {
    let fs = make_fs(style);
    let events = new_array();
    let m = memdir(&fs, Some(&events));
    let saved = ok(m
        .save(save_input(
            "Go background",
            "Senior Go dev, new to React",
            "user",
        ))
        .unwrap())
    .await;
    assert_eq!(str_of(&saved, "status"), "saved");
    let file = str_of(&saved, "file");
    ok(m.save(save_input(
        "Testing",
        "Integration tests hit a real DB",
        "feedback",
    ))
    .unwrap())
    .await;
    let headers: Array = ok(m.scan()).await.into();
    assert_eq!(headers.length(), 2);
    let index = ok(m.read_index()).await;
    assert!(str_of(&index, "content").contains(&format!("({file})")));
    ok(m.delete(file.as_str().into()).unwrap()).await;
    let headers: Array = ok(m.scan()).await.into();
    assert_eq!(headers.length(), 1);
    assert!(!str_of(&ok(m.read_index()).await, "content").contains(&file));
}

#[wasm_bindgen_test]
async fn store_works_over_a_sync_js_fs() {
    store_round_trip("sync").await;
}

#[wasm_bindgen_test]
async fn store_works_over_a_promise_returning_js_fs() {
    store_round_trip("async").await;
}

#[wasm_bindgen_test]
async fn a_throwing_host_fs_gives_memdir_errors_with_the_original_cause() {
    let m = memdir(&make_throwing_fs(), None);
    // A scan of an unreadable directory is empty, not an error (reference §5.1).
    let headers: Array = ok(m.scan()).await.into();
    assert_eq!(headers.length(), 0);
    let e = err(m.save(save_input("X", "y", "user")).unwrap()).await;
    assert!(e.is_instance_of::<js_sys::Error>());
    assert_eq!(str_of(&e, "name"), "MemdirError");
    assert_eq!(str_of(&e, "code"), "HOST_FS");
    assert!(js_sys::Object::is(&get(&e, "cause"), &host_failure()));
}

#[wasm_bindgen_test]
fn bad_options_are_memdir_errors() {
    let e = JsMemdir::new(JsValue::from_str("nope")).err().unwrap();
    assert_eq!(str_of(&e, "code"), "INVALID_INPUT");
    let fs = js_sys::Object::new();
    let e = JsMemdir::new(make_options(
        &fs,
        "/m",
        &JsValue::UNDEFINED,
        &JsValue::UNDEFINED,
    ))
    .err()
    .unwrap();
    assert!(str_of(&e, "message").contains("readFile"));
    let e = memdir(&make_fs("sync"), None)
        .save(JsValue::from_f64(3.0))
        .err()
        .unwrap();
    assert_eq!(str_of(&e, "code"), "INVALID_INPUT");
}

fn recall_memdir(llm: &JsValue, timeout_ms: u32) -> (JsValue, JsMemdir) {
    let fs = make_fs("sync");
    let options = make_options(&fs, "/mem", llm, &JsValue::UNDEFINED);
    let recall = js_sys::Object::new();
    Reflect::set(&recall, &"timeoutMs".into(), &JsValue::from(timeout_ms)).unwrap();
    Reflect::set(&options, &"recall".into(), &recall).unwrap();
    (fs, JsMemdir::new(options).unwrap())
}

async fn seed(m: &JsMemdir) {
    ok(m.save(save_input(
        "Integration tests database",
        "Integration tests hit a real Postgres database",
        "feedback",
    ))
    .unwrap())
    .await;
    ok(m.save(save_input(
        "Release freeze",
        "Merge freeze every Thursday for the mobile release",
        "project",
    ))
    .unwrap())
    .await;
}

fn paths_of(recall: &JsValue) -> Vec<String> {
    Array::from(&get(recall, "memories"))
        .iter()
        .map(|m| str_of(&m, "path"))
        .collect()
}

async fn llm_picks(as_promise: bool) {
    let reply = r#"{"selected_memories":["feedback_integration-tests-database.md","../../etc/passwd","MEMORY.md"]}"#;
    let llm = llm_replying(reply, as_promise);
    let (_fs, m) = recall_memdir(&llm, 5_000);
    seed(&m).await;
    let headers: Array = ok(m.scan()).await.into();
    let wanted = Array::from(&headers)
        .iter()
        .map(|h| str_of(&h, "filename"))
        .find(|f| f.starts_with("feedback_"))
        .unwrap();
    let llm = llm_replying(
        &reply.replace("feedback_integration-tests-database.md", &wanted),
        as_promise,
    );
    let (fs, m) = recall_memdir(&llm, 5_000);
    let _ = fs;
    seed(&m).await;
    let recall = ok(m
        .find_relevant("how do we run the integration tests?".into(), None)
        .unwrap())
    .await;
    assert_eq!(str_of(&recall, "answeredBy"), "llm");
    assert_eq!(
        paths_of(&recall),
        vec![format!("/mem/{wanted}")],
        "only the real candidate survives"
    );
    assert_eq!(call_count(&llm), 1);
    let request = last_request(&llm);
    assert_eq!(str_of(&request, "purpose"), "recall");
    assert_eq!(get(&request, "maxTokens").as_f64(), Some(256.0));
    assert!(get(&request, "signal").is_instance_of::<web_sys::AbortSignal>());
    assert!(get(&request, "responseSchema").is_object());
    let shown = ok(m.surface(get(&recall, "memories")).unwrap()).await;
    let first = Array::from(&shown).get(0);
    // The files' mtimes are from 2023, but `save` wrote a `modified` key (reference 2.1.214),
    // which the header's age follows: saved today, so no staleness caveat.
    let text = str_of(&first, "text");
    assert!(
        text.starts_with(&format!(
            "<system-reminder>\nMemory (saved today): /mem/{wanted}:\n\n"
        )),
        "{text}"
    );
    assert!(text.ends_with("\n</system-reminder>"), "{text}");
}

#[wasm_bindgen_test]
async fn recall_through_a_plain_llm_callback() {
    llm_picks(false).await;
}

#[wasm_bindgen_test]
async fn recall_through_a_promise_returning_llm_callback() {
    llm_picks(true).await;
}

#[wasm_bindgen_test]
async fn a_throwing_or_rejecting_llm_falls_back_to_the_ranker() {
    for llm in [
        llm_throwing(),
        llm_rejecting(),
        llm_replying("not json at all", true),
    ] {
        let (_fs, m) = recall_memdir(&llm, 5_000);
        seed(&m).await;
        let recall = ok(m
            .find_relevant("integration tests database".into(), None)
            .unwrap())
        .await;
        assert_eq!(str_of(&recall, "answeredBy"), "lexical");
        assert_ne!(str_of(&recall, "outcome"), "ok");
        assert!(paths_of(&recall).iter().any(|p| p.contains("integration")));
    }
}

#[wasm_bindgen_test]
async fn a_never_settling_llm_times_out_and_its_signal_is_aborted() {
    let llm = llm_never_settling();
    let (_fs, m) = recall_memdir(&llm, 50);
    seed(&m).await;
    let started = js_sys::Date::now();
    let recall = ok(m
        .find_relevant("integration tests database".into(), None)
        .unwrap())
    .await;
    assert!(js_sys::Date::now() - started < 5_000.0);
    assert_eq!(str_of(&recall, "outcome"), "timeout");
    let signal: web_sys::AbortSignal = signal_of(&llm).into();
    assert!(
        signal.aborted(),
        "the request's signal is aborted on timeout"
    );
}

/// `recalls` recalls one after another over a memdir whose LLM is `llm` and whose recall times
/// out after 5 ms, each checked to time out (and to have asked the LLM); the memdir.
async fn recalls_timing_out(llm: &JsValue, recalls: u32) -> JsMemdir {
    let (_fs, m) = recall_memdir(llm, 5);
    seed(&m).await;
    for _ in 0..recalls {
        let recall = ok(m
            .find_relevant("integration tests database".into(), None)
            .unwrap())
        .await;
        assert_eq!(str_of(&recall, "outcome"), "timeout");
    }
    assert_eq!(call_count(llm), recalls, "every recall asked the LLM");
    m
}

/// Each recall times out on an LLM call whose Promise never settles, dropping its await: the
/// await's slot (`src/wasm/settle.rs`) must come back then, not wait for a settlement that
/// never comes.
#[wasm_bindgen_test]
async fn awaits_dropped_before_their_promise_settles_give_their_slots_back() {
    let before = memdir::wasm::settle_slots_in_use();
    let _m = recalls_timing_out(&llm_never_settling(), 20).await;
    assert_eq!(memdir::wasm::settle_slots_in_use(), before);
}

/// Each recall times out while its LLM reply is still on its way: the late replies settle
/// awaits that were dropped, whose slots later awaits (the next recalls' host calls, LLM calls
/// and timers) have taken by then. They must change nothing: every recall still times out, and
/// every slot comes back.
#[wasm_bindgen_test]
async fn promises_settling_after_their_await_was_dropped_change_nothing() {
    let before = memdir::wasm::settle_slots_in_use();
    let reply = r#"{"selected_memories":["feedback_integration_tests_database.md"]}"#;
    let _m = recalls_timing_out(&llm_settling_after(25, reply), 12).await;
    gloo_timers_shim(60, || {}).await;
    assert_eq!(memdir::wasm::settle_slots_in_use(), before);
}

#[wasm_bindgen_test]
async fn the_callers_abort_signal_stops_recall() {
    let llm = llm_never_settling();
    let (_fs, m) = recall_memdir(&llm, 60_000);
    seed(&m).await;
    let recall = recall_aborted_after_20_ms(&m).await;
    assert_eq!(str_of(&recall, "outcome"), "aborted");
    assert_eq!(paths_of(&recall).len(), 0);
    let signal: web_sys::AbortSignal = signal_of(&llm).into();
    assert!(signal.aborted());
}

/// A recall of `m` whose caller aborts its signal after 20 ms; what it settles with.
async fn recall_aborted_after_20_ms(m: &JsMemdir) -> JsValue {
    let controller = web_sys::AbortController::new().unwrap();
    let options = js_sys::Object::new();
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let pending = m
        .find_relevant("integration tests database".into(), Some(options.into()))
        .unwrap();
    let abort = controller.clone();
    gloo_timers_shim(20, move || abort.abort()).await;
    ok(pending).await
}

/// Run `f` after `ms` milliseconds (no timer crate in the test's dependencies).
async fn gloo_timers_shim(ms: i32, f: impl FnOnce() + 'static) {
    let mut f = Some(f);
    let promise = Promise::new(&mut |resolve, _| {
        let f = f.take();
        let cb = Closure::once_into_js(move || {
            if let Some(f) = f {
                f();
            }
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
        let global = js_sys::global();
        let set_timeout: js_sys::Function =
            Reflect::get(&global, &"setTimeout".into()).unwrap().into();
        set_timeout
            .call2(&JsValue::UNDEFINED, &cb, &JsValue::from(ms))
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

// ---- Results as JS values: the JSON path gives what serde-wasm-bindgen gave ----

mod shapes {
    use serde::Serialize;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    pub struct Marker;

    #[derive(Serialize)]
    pub struct Newtype(pub String);

    #[derive(Serialize)]
    pub enum Kind {
        Unit,
        New(f64),
        Tuple(u8, Option<u8>),
        Struct { a: Option<u8>, b: String },
    }

    #[derive(Serialize)]
    #[serde(tag = "status", rename_all = "kebab-case")]
    pub enum Tagged {
        Done { n: f64, left: Option<String> },
        Skipped(Inner),
        Empty,
    }

    #[derive(Serialize)]
    #[serde(tag = "kind", content = "code")]
    pub enum Adjacent {
        Plain,
        Coded(u16),
    }

    #[derive(Serialize)]
    #[serde(untagged)]
    pub enum Untagged {
        Text(String),
        Number(f64),
        Nothing(Option<u8>),
    }

    #[derive(Serialize)]
    pub struct Inner {
        pub x: Option<f64>,
        pub y: String,
    }

    #[derive(Serialize)]
    pub struct Flat {
        pub id: u8,
        #[serde(flatten)]
        pub inner: Inner,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Shapes {
        pub absent: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub skipped: Option<String>,
        pub present: Option<String>,
        pub numbers: Vec<f64>,
        pub maybe_numbers: Vec<Option<f64>>,
        pub small: (u8, i16, u32, i32, f32, i8, u16),
        pub big: (u64, i64, usize, i64),
        pub texts: Vec<String>,
        pub letter: char,
        pub unit: (),
        pub unit_struct: Marker,
        pub newtype: Newtype,
        pub kinds: Vec<Kind>,
        pub tagged: Vec<Tagged>,
        pub adjacent: Vec<Adjacent>,
        pub untagged: Vec<Untagged>,
        pub flat: Flat,
        pub nested: Vec<Vec<Inner>>,
        pub map: BTreeMap<String, Option<f64>>,
        pub empty_vec: Vec<u8>,
        pub empty_map: BTreeMap<String, u8>,
        pub flag: bool,
    }
}

#[wasm_bindgen(inline_js = r#"
export function jsDiff(a, b, path = "$") {
  if (typeof a !== typeof b) return `${path}: ${typeof a} vs ${typeof b}`;
  const show = (v) => (Object.is(v, -0) ? "-0" : String(v));
  if (a === null || typeof a !== "object") return Object.is(a, b) ? "" : `${path}: ${show(a)} vs ${show(b)}`;
  if (b === null) return `${path}: object vs null`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs not`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: prototypes differ`;
  const ka = Reflect.ownKeys(a), kb = Reflect.ownKeys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i]))
    return `${path}: keys [${ka.map(String)}] vs [${kb.map(String)}]`;
  for (const k of ka) {
    const da = Object.getOwnPropertyDescriptor(a, k), db = Object.getOwnPropertyDescriptor(b, k);
    for (const f of ["writable", "enumerable", "configurable", "get", "set"])
      if (da[f] !== db[f]) return `${path}.${String(k)}: ${f} differs`;
    const d = jsDiff(da.value, db.value, `${path}.${String(k)}`);
    if (d) return d;
  }
  return "";
}
export function hasOwn(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
export function isNegativeZero(v) { return Object.is(v, -0); }
"#)]
extern "C" {
    #[wasm_bindgen(js_name = jsDiff)]
    fn js_diff(a: &JsValue, b: &JsValue) -> String;
    #[wasm_bindgen(js_name = hasOwn)]
    fn has_own(o: &JsValue, k: &str) -> bool;
    #[wasm_bindgen(js_name = isNegativeZero)]
    fn is_negative_zero(v: &JsValue) -> bool;
}

/// What results were before the JSON path: serde-wasm-bindgen, maps as objects.
fn oracle<T: serde::Serialize + ?Sized>(value: &T) -> Result<JsValue, String> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true))
        .map_err(|e| format!("cannot convert result: {e}"))
}

fn same_as_oracle<T: serde::Serialize + ?Sized>(value: &T) {
    let ours =
        memdir::wasm::convert::to_js(value).map_err(|e| get(&e, "message").as_string().unwrap());
    match (ours, oracle(value)) {
        (Ok(ours), Ok(want)) => {
            let diff = js_diff(&ours, &want);
            assert!(diff.is_empty(), "{diff}");
        }
        (Err(ours), Err(want)) => assert_eq!(ours, want),
        (ours, want) => panic!("{ours:?} vs {want:?}"),
    }
}

fn shapes_value() -> shapes::Shapes {
    use shapes::*;
    let map = [
        ("b", Some(1.0)),
        ("a", None),
        ("1", Some(f64::NAN)),
        ("0", Some(-0.0)),
        ("", Some(f64::INFINITY)),
        ("\0NaN", None),
        ("constructor", Some(2.0)),
        ("toString", None),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Shapes {
        absent: None,
        skipped: None,
        present: Some("here".into()),
        numbers: vec![
            0.0,
            -0.0,
            1.5,
            -2.0,
            1e21,
            1e-7,
            123_456_789_012_345_680_000.0,
            0.1 + 0.2,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e15,
            999_999_999_999_999.0,
            -999_999_999_999_999.5,
            4_294_967_296.0,
            9_007_199_254_740_993.0,
            -1e-300,
        ],
        maybe_numbers: vec![None, Some(f64::NAN), Some(3.0), None],
        small: (255, -32768, u32::MAX, i32::MIN, 0.1, -128, 65535),
        big: (
            (1 << 53) - 1,
            -((1 << 53) - 1),
            usize::MAX,
            1_700_000_000_000,
        ),
        texts: vec![
            String::new(),
            "a\"b\\c\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f}é😀\u{2028}\u{2029}".into(),
            "\0NaN".into(),
            "\0NaN!".into(),
            "NaN".into(),
            "null".into(),
            "</script>".into(),
        ],
        letter: '😀',
        unit: (),
        unit_struct: Marker,
        newtype: Newtype("inner".into()),
        kinds: vec![
            Kind::Unit,
            Kind::New(f64::NAN),
            Kind::Tuple(1, None),
            Kind::Struct {
                a: None,
                b: "b".into(),
            },
        ],
        tagged: vec![
            Tagged::Done { n: 1.0, left: None },
            Tagged::Skipped(Inner {
                x: None,
                y: "y".into(),
            }),
            Tagged::Empty,
        ],
        adjacent: vec![Adjacent::Plain, Adjacent::Coded(413)],
        untagged: vec![
            Untagged::Text("t".into()),
            Untagged::Number(-0.0),
            Untagged::Nothing(None),
        ],
        flat: Flat {
            id: 7,
            inner: Inner {
                x: Some(f64::NEG_INFINITY),
                y: "flat".into(),
            },
        },
        nested: vec![
            vec![],
            vec![Inner {
                x: None,
                y: String::new(),
            }],
        ],
        map,
        empty_vec: vec![],
        empty_map: std::collections::BTreeMap::new(),
        flag: true,
    }
}

#[wasm_bindgen_test]
fn results_are_the_values_serde_wasm_bindgen_gave() {
    same_as_oracle(&shapes_value());
    // Top-level values of every kind, the NaN marker and its clashes included.
    same_as_oracle(&None::<u8>);
    same_as_oracle(&());
    same_as_oracle(&f64::NAN);
    same_as_oracle(&-0.0);
    same_as_oracle(&f64::NEG_INFINITY);
    same_as_oracle("\0NaN");
    same_as_oracle(&("\0NaN", f64::NAN, "\0NaN!", None::<u8>));
    same_as_oracle(&vec![Some("x"), None]);
    same_as_oracle(&Vec::<String>::new());
    // What cannot be a JS value fails the same way.
    same_as_oracle(&u64::MAX);
    same_as_oracle(&(1u64 << 53));
    same_as_oracle(&i64::MIN);
    same_as_oracle(
        &[(1u32, 2u8)]
            .into_iter()
            .collect::<std::collections::BTreeMap<_, _>>(),
    );
    same_as_oracle(
        &[(None::<String>, 2u8)]
            .into_iter()
            .collect::<std::collections::BTreeMap<_, _>>(),
    );
    // Real results.
    same_as_oracle(&memdir::parse_index_entry(
        "- [Role](user_role.md) — Senior Go dev",
    ));
    same_as_oracle(&memdir::secrets::scan_for_secrets(&format!(
        "token ghp_{} and AKIA{}",
        "a".repeat(36),
        "B".repeat(16)
    )));
}

#[wasm_bindgen_test]
fn none_is_a_present_undefined_and_numbers_keep_their_value() {
    let v = memdir::wasm::convert::to_js(&shapes_value()).unwrap();
    // A `None` field is an own property holding `undefined` (not `null`, not left out).
    assert!(has_own(&v, "absent"));
    assert!(get(&v, "absent").is_undefined());
    assert!(!has_own(&v, "skipped"));
    assert!(get(&v, "unit").is_undefined() && has_own(&v, "unit"));
    let maybe: Array = get(&v, "maybeNumbers").into();
    assert_eq!(maybe.length(), 4);
    assert!(maybe.get(0).is_undefined() && has_own(&maybe, "0"));
    assert!(maybe.get(1).as_f64().unwrap().is_nan());
    // NaN, ±Infinity and -0 stay numbers.
    let numbers: Array = get(&v, "numbers").into();
    assert!(is_negative_zero(&numbers.get(1)));
    assert!(numbers.get(11).as_f64().unwrap().is_nan());
    assert_eq!(numbers.get(12).as_f64(), Some(f64::INFINITY));
    assert_eq!(numbers.get(13).as_f64(), Some(f64::NEG_INFINITY));
    // A string that looks like the NaN marker stays a string.
    let texts: Array = get(&v, "texts").into();
    assert_eq!(texts.get(2).as_string().as_deref(), Some("\0NaN"));
    // Variants.
    let kinds: Array = get(&v, "kinds").into();
    assert_eq!(kinds.get(0).as_string().as_deref(), Some("Unit"));
    assert!(get(&get(&kinds.get(3), "Struct"), "a").is_undefined());
    let tagged: Array = get(&v, "tagged").into();
    assert_eq!(str_of(&tagged.get(0), "status"), "done");
    assert!(has_own(&tagged.get(0), "left"));
    // Top level.
    assert!(memdir::wasm::convert::to_js(&None::<u8>)
        .unwrap()
        .is_undefined());
    assert!(memdir::wasm::convert::to_js(&f64::NAN)
        .unwrap()
        .as_f64()
        .unwrap()
        .is_nan());
}

#[wasm_bindgen_test]
fn a_proto_key_is_an_own_property() {
    // Maps with user keys become objects as `JSON.parse` makes them: `__proto__` is data.
    let map: std::collections::BTreeMap<String, Option<String>> = [
        ("__proto__".to_owned(), Some("x".to_owned())),
        ("a".to_owned(), None),
    ]
    .into_iter()
    .collect();
    let v = memdir::wasm::convert::to_js(&map).unwrap();
    assert!(has_own(&v, "__proto__"));
    assert_eq!(str_of(&v, "__proto__"), "x");
    assert!(has_own(&v, "a") && get(&v, "a").is_undefined());
    assert_eq!(
        js_sys::Object::get_prototype_of(&v),
        js_sys::Object::get_prototype_of(&js_sys::Object::new().into())
    );
    // A `__proto__` key holding `None` or NaN is restored in place, still an own property.
    let odd: std::collections::BTreeMap<String, Option<f64>> = [
        ("__proto__".to_owned(), None),
        ("b".to_owned(), Some(f64::NAN)),
    ]
    .into_iter()
    .collect();
    let v = memdir::wasm::convert::to_js(&odd).unwrap();
    assert!(has_own(&v, "__proto__") && get(&v, "__proto__").is_undefined());
    let nan_key: std::collections::BTreeMap<String, f64> =
        [("__proto__".to_owned(), f64::NAN)].into_iter().collect();
    let v = memdir::wasm::convert::to_js(&nan_key).unwrap();
    assert!(get(&v, "__proto__").as_f64().is_some_and(f64::is_nan));
}

// ---------------------------------------------------------------------------------------------
// Semantic recall through a JS embedder: good ones (Float32Array[] and number[][]), and hostile
// ones, which fall back to the ranker within the recall timeout.

#[wasm_bindgen(module = "/tests/fixtures/embed_host.js")]
extern "C" {
    #[wasm_bindgen(js_name = embedderFor)]
    fn embedder_for(mode: &str) -> JsValue;
    #[wasm_bindgen(js_name = embedCalls)]
    fn embed_calls(embed: &JsValue) -> String;
    #[wasm_bindgen(js_name = embedSignal)]
    fn embed_signal(embed: &JsValue) -> JsValue;
}

fn embed_memdir(fs: &JsValue, embed: &JsValue, timeout_ms: u32) -> JsMemdir {
    let options = make_options(fs, "/mem", &JsValue::UNDEFINED, &JsValue::UNDEFINED);
    Reflect::set(&options, &"embed".into(), embed).unwrap();
    let recall = js_sys::Object::new();
    Reflect::set(&recall, &"timeoutMs".into(), &JsValue::from(timeout_ms)).unwrap();
    Reflect::set(&options, &"recall".into(), &recall).unwrap();
    JsMemdir::new(options).unwrap()
}

#[wasm_bindgen_test]
async fn recall_fuses_a_js_embedder_and_reuses_its_vectors() {
    for mode in ["good", "good-arrays"] {
        let fs = make_fs("sync");
        let embed = embedder_for(mode);
        let m = embed_memdir(&fs, &embed, 5_000);
        seed(&m).await;
        let recall = ok(m
            .find_relevant("integration tests database".into(), None)
            .unwrap())
        .await;
        assert_eq!(str_of(&recall, "outcome"), "ok", "{mode}");
        assert_eq!(str_of(&recall, "answeredBy"), "lexical+semantic", "{mode}");
        assert!(paths_of(&recall)[0].contains("integration"), "{mode}");
        assert_eq!(
            embed_calls(&embed),
            "2,1",
            "{mode}: the memories, then the query"
        );
        // A second instance over the same directory embeds only the query.
        let again = embedder_for(mode);
        let m2 = embed_memdir(&fs, &again, 5_000);
        let recall = ok(m2
            .find_relevant("integration tests database".into(), None)
            .unwrap())
        .await;
        assert_eq!(str_of(&recall, "outcome"), "ok");
        assert_eq!(embed_calls(&again), "1", "{mode}");
    }
}

#[wasm_bindgen_test]
async fn a_hostile_embedder_falls_back_to_the_ranker() {
    for (mode, outcome) in [
        ("throws", "error"),
        ("rejects", "error"),
        ("wrong-count", "invalid_reply"),
        ("wrong-dim", "invalid_reply"),
        ("nan", "invalid_reply"),
        ("not-array", "invalid_reply"),
        ("never", "timeout"),
    ] {
        let fs = make_fs("sync");
        let embed = embedder_for(mode);
        let m = embed_memdir(&fs, &embed, 50);
        seed(&m).await;
        let started = js_sys::Date::now();
        let recall = ok(m
            .find_relevant("integration tests database".into(), None)
            .unwrap())
        .await;
        assert!(js_sys::Date::now() - started < 5_000.0, "{mode}");
        assert_eq!(str_of(&recall, "outcome"), outcome, "{mode}");
        assert_eq!(str_of(&recall, "answeredBy"), "lexical", "{mode}");
        assert!(
            paths_of(&recall).iter().any(|p| p.contains("integration")),
            "{mode}"
        );
        if mode == "never" {
            let signal: web_sys::AbortSignal = embed_signal(&embed).into();
            assert!(
                signal.aborted(),
                "the embedder's signal is aborted on timeout"
            );
        }
    }
}

#[wasm_bindgen_test]
async fn the_callers_abort_stops_a_hanging_embedder() {
    let fs = make_fs("sync");
    let embed = embedder_for("never");
    let m = embed_memdir(&fs, &embed, 60_000);
    seed(&m).await;
    let recall = recall_aborted_after_20_ms(&m).await;
    assert_eq!(str_of(&recall, "outcome"), "aborted");
    assert_eq!(paths_of(&recall).len(), 0);
    let signal: web_sys::AbortSignal = embed_signal(&embed).into();
    assert!(signal.aborted());
}
