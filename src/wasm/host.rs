//! JS host objects adapted to the core's traits. Each JS method may return a value or a
//! Promise; a throw or rejection becomes a `HostError` carrying the original value.

use super::error::host_error;
use crate::error::HostError;
use crate::host::answers::{self, kind_named, PackedHead};
use crate::host::listing::{self, Listing};
use crate::host::{
    Clock, DirEntry, EntryKind, FieldValue, FileStat, FileSystem, FsCapabilities, HostLock,
    HostResult, HostWatch, Llm, LlmRequest, Telemetry, WatchListener,
};
use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

// Reading a host's answers field by field costs a boundary crossing per field; these read a
// `FileStat` or a whole `readDir` listing in one. They only copy: every check stays in Rust
// (`host::answers`: `stat_of_record`, `kind_named`, `unpack_heads`; the fallbacks below), and a
// getter that throws reads as a missing value. A call per path of a batch goes through one
// loop, `askEach`.
#[wasm_bindgen(inline_js = r#"
// A kind is sent as its place in the core's list of names plus one (`answers::KIND_NAMES`),
// the list split once.
let kindNamesText = null;
let kindNames = [];
function kindList(text) {
  if (text !== kindNamesText) {
    kindNamesText = text;
    kindNames = text.split("\0");
  }
  return kindNames;
}
// One stat answer as the record `answers::stat_of_record` reads, at `out[at..at + 4]`: the
// kind's code, size, mtimeMs, and which of the two were numbers.
function putStat(stat, names, out, at) {
  try {
    if (stat === null || typeof stat !== "object") return;
    const { kind, size, mtimeMs } = stat;
    out[at] = names.indexOf(kind) + 1;
    out[at + 1] = typeof size === "number" ? size : 0;
    out[at + 2] = typeof mtimeMs === "number" ? mtimeMs : 0;
    out[at + 3] = (typeof size === "number" ? 1 : 0) + (typeof mtimeMs === "number" ? 2 : 0);
  } catch {}
}
// `ask(path, i)` for each non-empty path, `put(i, answer)` for each answer (a throw or a
// rejection puts nothing): null when every answer came at once, else the promises to wait for.
function askEach(paths, ask, put) {
  let pending = null;
  for (let i = 0; i < paths.length; i++) {
    if (paths[i] === "") continue;
    try {
      const value = ask(paths[i], i);
      if (isThenable(value)) (pending ??= []).push(Promise.resolve(value).then((v) => put(i, v), () => {}));
      else put(i, value);
    } catch {}
  }
  return pending;
}
export function statRecord(stat, names, out) {
  putStat(stat, kindList(names), out, 0);
}
function statPaths(fs, paths, names) {
  const kinds = kindList(names);
  const out = new Float64Array(paths.length * 4);
  const pending = askEach(paths, (path) => fs.stat(path), (i, stat) => putStat(stat, kinds, out, 4 * i));
  return pending === null ? out : Promise.all(pending).then(() => out);
}
export function statBatch(fs, joined, names) {
  try {
    return statPaths(fs, joined.split("\0"), names);
  } catch {
    return undefined;
  }
}
export function statNamed(fs, dir, kept, entries, names) {
  try {
    // One loop and no closure a path: a scan stats every file this way.
    const kinds = kindList(names);
    const n = entries.length;
    const at = entries.slice(); // the view into the module's memory would not survive its growth
    const out = new Float64Array(n * 4);
    let pending = null;
    for (let i = 0; i < n; i++) {
      const name = kept[at[i]];
      if (typeof name !== "string") continue;
      try {
        const stat = fs.stat(dir + name);
        if (isThenable(stat)) (pending ??= []).push(Promise.resolve(stat).then((v) => putStat(v, kinds, out, 4 * i), () => {}));
        else putStat(stat, kinds, out, 4 * i);
      } catch {}
    }
    return pending === null ? out : Promise.all(pending).then(() => out);
  } catch {
    return undefined;
  }
}
export function readHeads(fs, joined, maxBytes) {
  try {
    // Copied first: the view into the module's memory would not survive a host call that grows it.
    maxBytes = Array.from(maxBytes);
    const paths = joined.split("\0");
    const out = new Array(paths.length).fill(undefined);
    const pending = askEach(paths, (path, i) => fs.readHead(path, maxBytes[i]), (i, head) => { out[i] = head; });
    return pending === null ? out : Promise.all(pending).then(() => out);
  } catch {
    return undefined;
  }
}
export function headLengths(heads, maxBytes, lengths) {
  try {
    let total = 0;
    for (let i = 0; i < lengths.length; i++) {
      const head = heads[i];
      if (head === undefined) lengths[i] = -1;
      else if (!(head instanceof Uint8Array)) lengths[i] = -2;
      else total += lengths[i] = Math.min(head.length, maxBytes[i]);
    }
    return total;
  } catch {
    return -1;
  }
}
export function copyHeads(heads, lengths, into) {
  try {
    let at = 0;
    for (let i = 0; i < lengths.length; i++) {
      const n = lengths[i];
      if (n < 0) continue;
      const head = heads[i];
      into.set(n === head.length ? head : head.subarray(0, n), at);
      at += n;
    }
    return at === into.length;
  } catch {
    return false;
  }
}
export function isThenable(value) {
  try {
    return value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function";
  } catch {
    return false;
  }
}
let encoder = null;
export function dirNames(entries, names) {
  try {
    const kinds = kindList(names);
    const kept = new Array(entries.length);
    let out = "";
    for (let i = 0; i < kept.length; i++) {
      const entry = entries[i];
      if (entry === null || typeof entry !== "object") return undefined;
      const { name, kind } = entry;
      if (typeof name !== "string" || typeof kind !== "string" || name.includes("\0")) return undefined;
      const code = kinds.indexOf(kind) + 1;
      if (code === 0) return undefined;
      out += code + name + "\0";
      kept[i] = name;
    }
    // Encoded here, natively, in one pass: a long listing crosses as bytes.
    if (typeof TextEncoder !== "function") return undefined;
    encoder ??= new TextEncoder();
    return [encoder.encode(out), kept];
  } catch {
    return undefined;
  }
}
"#)]
extern "C" {
    /// A stat answer as one `answers::stat_of_record` record in `out` (zeros when it is not an
    /// object); `names` is `answers::KIND_NAMES_JOINED`.
    #[wasm_bindgen(js_name = statRecord)]
    fn stat_record(stat: &JsValue, names: &str, out: &mut [f64]);
    /// The entries as `listing::Listing::from_packed` reads them (each its kind's code in
    /// `names`, `answers::KIND_NAMES_JOINED`, its name and a NUL), in UTF-8, and beside them
    /// the names in an array of their own (kept for `statNamed`); `undefined` when an entry is
    /// not an object with a string name free of NUL and a known kind, or the realm has no
    /// `TextEncoder` (then the entries are read one by one, and a bad one is reported).
    #[wasm_bindgen(js_name = dirNames)]
    fn dir_names(entries: &Array, names: &str) -> Option<Array>;
    /// For `heads` (a `readHeads` answer): each one's byte count (at most its `max_bytes`) in
    /// `lengths` when it is a byte array, -1 for a failed read, -2 for another kind of answer
    /// (read one by one); the sum of the counts, or -1 when the array could not be read.
    #[wasm_bindgen(js_name = headLengths)]
    fn head_lengths(heads: &Array, max_bytes: &[f64], lengths: &mut [f64]) -> f64;
    /// The byte arrays among `heads`, each cut to its count in `lengths`, copied one after
    /// another into `into` (the module's memory: one copy a head, no crossing a head); false
    /// unless they filled it exactly.
    #[wasm_bindgen(js_name = copyHeads)]
    fn copy_heads(heads: &Array, lengths: &[f64], into: &mut [u8]) -> bool;
    /// A Promise or any object with a `then` method.
    #[wasm_bindgen(js_name = isThenable)]
    fn is_thenable(value: &JsValue) -> bool;
    /// `fs.stat` of each path of `joined` (see `answers::joined_paths`; an empty path is not
    /// asked), copied as `answers::STAT_FIELDS` numbers a path into one `Float64Array` (the
    /// kind as its position in `names` (joined as the paths are) plus one, `size` and `mtimeMs` where they are numbers,
    /// and which of them are; zeros for a failed stat): the array itself when every answer was
    /// synchronous, else one promise of it for the whole batch.
    #[wasm_bindgen(js_name = statBatch)]
    fn stat_batch(fs: &JsValue, joined: &str, names: &str) -> JsValue;
    /// `statBatch` of the paths `dir` + `kept[i]` for each position `i` of `entries` (`kept`:
    /// the names `dirNames` kept; a position with no name there is not asked).
    #[wasm_bindgen(js_name = statNamed)]
    fn stat_named(fs: &JsValue, dir: &str, kept: &JsValue, entries: &[u32], names: &str)
        -> JsValue;
    /// `fs.readHead(path, maxBytes[i])` of each path of `joined` (an empty path is not asked),
    /// the answers in an array (`undefined` for a throw or a rejection): the array itself when
    /// every answer was synchronous, else one promise of it for the whole batch.
    #[wasm_bindgen(js_name = readHeads)]
    fn read_heads(fs: &JsValue, joined: &str, max_bytes: &[f64]) -> JsValue;
}

fn function(obj: &JsValue, key: &str) -> Option<Function> {
    get(obj, key).dyn_into::<Function>().ok()
}

fn lying(what: &str) -> HostError {
    HostError::new(
        Some("EINVAL"),
        format!("the host returned an invalid value from {what}"),
    )
}

/// The stats of a batch of `count` files from the host's answer (a `Float64Array` of records,
/// or a promise of one); anything else reads as every file missing.
async fn stats_of_answer(batch: JsValue, count: usize) -> Vec<Option<FileStat>> {
    let values = settle(batch)
        .await
        .ok()
        .and_then(|v| v.dyn_into::<js_sys::Float64Array>().ok())
        .map(|a| a.to_vec())
        .unwrap_or_default();
    answers::stats_of_batch(&values, count)
}

/// Await `value` if it is a Promise or a thenable; otherwise return it.
pub(super) async fn settle(value: JsValue) -> Result<JsValue, JsValue> {
    if !is_thenable(&value) {
        return Ok(value);
    }
    // `Promise.resolve` returns a native Promise as it is and adopts any other thenable.
    super::settle::Settled::of(&value).await
}

/// Call `obj[name](...args)` and settle the result.
async fn call(obj: &JsValue, name: &str, args: &[JsValue]) -> HostResult<JsValue> {
    let f = function(obj, name).ok_or_else(|| HostError::unsupported(name))?;
    let value = match args {
        [a] => f.call1(obj, a),
        [a, b] => f.call2(obj, a, b),
        _ => f.apply(obj, &args.iter().collect::<Array>()),
    }
    .map_err(host_error)?;
    settle(value).await.map_err(host_error)
}

fn kind_of(value: &JsValue, what: &str) -> HostResult<EntryKind> {
    value
        .as_string()
        .as_deref()
        .and_then(kind_named)
        .ok_or_else(|| lying(what))
}

fn bytes_of(value: &JsValue, what: &str) -> HostResult<Vec<u8>> {
    if let Some(s) = value.as_string() {
        return Ok(s.into_bytes());
    }
    if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    if value.is_instance_of::<js_sys::ArrayBuffer>() {
        return Ok(Uint8Array::new(value).to_vec());
    }
    Err(lying(what))
}

/// The length `answers::check_file_len` judges a whole-file answer by: UTF-16 units of a
/// string, bytes of a byte array (0 for anything else, which is refused later).
fn answer_len(value: &JsValue) -> usize {
    if value.is_string() {
        value.unchecked_ref::<js_sys::JsString>().length() as usize
    } else if value.is_instance_of::<Uint8Array>() {
        value.unchecked_ref::<Uint8Array>().byte_length() as usize
    } else if value.is_instance_of::<js_sys::ArrayBuffer>() {
        value.unchecked_ref::<js_sys::ArrayBuffer>().byte_length() as usize
    } else {
        0
    }
}

/// The part of a `readHead` answer that can hold its first `max_bytes` bytes, cut in JS before
/// it is copied (a string of n UTF-16 units has at least n UTF-8 bytes; one more unit keeps a
/// surrogate pair whole).
fn head_of(value: JsValue, max_bytes: usize) -> JsValue {
    let end = u32::try_from(max_bytes).unwrap_or(u32::MAX);
    if value.is_string() {
        let s = value.unchecked_ref::<js_sys::JsString>();
        if s.length() > end {
            return s.slice(0, end.saturating_add(1)).into();
        }
    } else if value.is_instance_of::<Uint8Array>() {
        return value.unchecked_ref::<Uint8Array>().subarray(0, end).into();
    } else if value.is_instance_of::<js_sys::ArrayBuffer>() {
        return Uint8Array::new(&value).subarray(0, end).into();
    }
    value
}

/// The first `max_bytes` bytes of a `readHead` answer.
fn head_bytes(value: JsValue, max_bytes: usize) -> HostResult<Vec<u8>> {
    let mut bytes = bytes_of(&head_of(value, max_bytes), "readHead")?;
    bytes.truncate(max_bytes);
    Ok(bytes)
}

/// A JS object implementing `MemoryFs`.
#[derive(Clone)]
pub struct JsFs {
    obj: JsValue,
    caps: FsCapabilities,
}

impl JsFs {
    /// Check the required methods and detect the optional ones.
    pub fn new(obj: JsValue) -> Result<JsFs, String> {
        if !obj.is_object() {
            return Err("`fs` must be an object implementing MemoryFs".into());
        }
        for name in [
            "readFile",
            "writeFile",
            "readDir",
            "stat",
            "mkdir",
            "remove",
        ] {
            if function(&obj, name).is_none() {
                return Err(format!("`fs` is missing the method `{name}`"));
            }
        }
        let has = |name: &str| function(&obj, name).is_some();
        let caps = FsCapabilities {
            rename: has("rename"),
            realpath: has("realpath"),
            lstat: has("lstat"),
            append_file: has("appendFile"),
            create_exclusive: has("createExclusive"),
            read_head: has("readHead"),
            lock: has("lock"),
            atomic_write: get(&obj, "atomicWrite").as_bool() == Some(true),
            atomic_append: has("appendFile") && get(&obj, "atomicAppend").as_bool() == Some(true),
        };
        Ok(JsFs { obj, caps })
    }

    fn stat_from(value: &JsValue, what: &str) -> HostResult<FileStat> {
        let mut record = [0.0; answers::STAT_FIELDS];
        stat_record(value, answers::KIND_NAMES_JOINED, &mut record);
        answers::stat_of_record(&record).ok_or_else(|| lying(what))
    }
}

impl FileSystem for JsFs {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        let v = call(&self.obj, "readFile", &[path.into()]).await?;
        answers::check_file_len(answer_len(&v), "readFile")?;
        match v.as_string() {
            Some(s) => Ok(s),
            None => Ok(String::from_utf8_lossy(&bytes_of(&v, "readFile")?).into_owned()),
        }
    }

    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        call(&self.obj, "writeFile", &[path.into(), data.into()])
            .await
            .map(drop)
    }

    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        Ok(self.read_dir_listing(path).await?.into_entries())
    }

    async fn read_dir_listing(&self, path: &str) -> HostResult<Listing> {
        let v = call(&self.obj, "readDir", &[path.into()]).await?;
        let array = v.dyn_into::<Array>().map_err(|_| lying("readDir"))?;
        if let Some(packed) = dir_names(&array, answers::KIND_NAMES_JOINED) {
            let text = packed
                .get(0)
                .dyn_into::<Uint8Array>()
                .ok()
                .and_then(|bytes| String::from_utf8(bytes.to_vec()).ok());
            let listing = text.and_then(Listing::from_packed);
            return Ok(listing
                .ok_or_else(|| lying("readDir"))?
                .keeping(Box::new(packed.get(1))));
        }
        let mut out = Vec::with_capacity(array.length() as usize);
        for entry in array.iter() {
            let name = get(&entry, "name")
                .as_string()
                .ok_or_else(|| lying("readDir"))?;
            let kind = kind_of(&get(&entry, "kind"), "readDir")?;
            out.push(DirEntry { name, kind });
        }
        Ok(Listing::from_entries(out))
    }

    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        let v = call(&self.obj, "stat", &[path.into()]).await?;
        Self::stat_from(&v, "stat")
    }

    async fn stat_many(&self, paths: &[&str]) -> Vec<Option<FileStat>> {
        let joined = answers::joined_paths(paths);
        let batch = stat_batch(&self.obj, &joined, answers::KIND_NAMES_JOINED);
        stats_of_answer(batch, paths.len()).await
    }

    async fn stat_listed(
        &self,
        dir: &str,
        listing: &Listing,
        entries: &[u32],
    ) -> Vec<Option<FileStat>> {
        let Some(kept) = listing.kept().and_then(|k| k.downcast_ref::<JsValue>()) else {
            // Behind a `dyn` future: this rare way is not compiled into the one every scan takes.
            let by_paths: std::pin::Pin<Box<dyn std::future::Future<Output = _> + '_>> =
                Box::pin(listing::stat_by_paths(self, dir, listing, entries));
            return by_paths.await;
        };
        let batch = stat_named(&self.obj, dir, kept, entries, answers::KIND_NAMES_JOINED);
        stats_of_answer(batch, entries.len()).await
    }

    async fn mkdir(&self, path: &str) -> HostResult<()> {
        call(&self.obj, "mkdir", &[path.into()]).await.map(drop)
    }

    async fn remove(&self, path: &str) -> HostResult<()> {
        call(&self.obj, "remove", &[path.into()]).await.map(drop)
    }

    fn capabilities(&self) -> FsCapabilities {
        self.caps
    }

    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        call(&self.obj, "rename", &[from.into(), to.into()])
            .await
            .map(drop)
    }

    async fn realpath(&self, path: &str) -> HostResult<String> {
        call(&self.obj, "realpath", &[path.into()])
            .await?
            .as_string()
            .ok_or_else(|| lying("realpath"))
    }

    async fn lstat(&self, path: &str) -> HostResult<FileStat> {
        let v = call(&self.obj, "lstat", &[path.into()]).await?;
        Self::stat_from(&v, "lstat")
    }

    async fn append_file(&self, path: &str, data: &str) -> HostResult<()> {
        call(&self.obj, "appendFile", &[path.into(), data.into()])
            .await
            .map(drop)
    }

    async fn create_exclusive(&self, path: &str, data: &str) -> HostResult<bool> {
        let v = call(&self.obj, "createExclusive", &[path.into(), data.into()]).await?;
        v.as_bool().ok_or_else(|| lying("createExclusive"))
    }

    async fn read_head(&self, path: &str, max_bytes: usize) -> HostResult<Vec<u8>> {
        let v = call(
            &self.obj,
            "readHead",
            &[path.into(), JsValue::from(max_bytes as f64)],
        )
        .await?;
        head_bytes(v, max_bytes)
    }

    async fn read_head_many(&self, reads: &[(&str, usize)]) -> Vec<Option<Vec<u8>>> {
        let paths: Vec<&str> = reads.iter().map(|&(path, _)| path).collect();
        let joined = answers::joined_paths(&paths);
        let maxes: Vec<f64> = reads.iter().map(|&(_, max)| max as f64).collect();
        let heads = settle(read_heads(&self.obj, &joined, &maxes))
            .await
            .ok()
            .and_then(|v| v.dyn_into::<Array>().ok());
        let Some(heads) = heads else {
            return vec![None; reads.len()];
        };
        // Byte arrays (Node's `Buffer`s) all cross in one copy; anything else one by one.
        let mut lengths = vec![0.0; reads.len()];
        let total = head_lengths(&heads, &maxes, &mut lengths);
        let packed = answers::packed_len(&lengths, total, &maxes).and_then(|total| {
            let mut bytes = vec![0; total];
            copy_heads(&heads, &lengths, &mut bytes).then_some(bytes)
        });
        let Some(bytes) = packed else {
            return (0..reads.len() as u32)
                .zip(reads)
                .map(|(i, &(_, max))| head_bytes(heads.get(i), max).ok())
                .collect();
        };
        (0..reads.len() as u32)
            .zip(reads)
            .zip(answers::unpack_heads(&bytes, &lengths))
            .map(|((i, &(_, max)), head)| match head {
                PackedHead::Bytes(head) => Some(head.to_vec()),
                PackedHead::Alone => head_bytes(heads.get(i), max).ok(),
                PackedHead::Failed => None,
            })
            .collect()
    }

    async fn lock(&self, name: &str) -> HostResult<HostLock> {
        let f = function(&self.obj, "lock").ok_or_else(|| HostError::unsupported("lock"))?;
        let pending = f.call1(&self.obj, &name.into()).map_err(host_error)?;
        // If the wait is cut (the lock timeout) before the host grants the lock, release it as
        // soon as it is granted, so it is not held forever by nobody.
        let late = ReleaseWhenGranted(Some(pending.clone()));
        let release = settle(pending).await.map_err(host_error)?;
        late.disarm();
        let release = release.dyn_into::<Function>().map_err(|_| lying("lock"))?;
        Ok(HostLock::new(move || call_release(&release)))
    }

    fn host_id(&self) -> Option<String> {
        let id = function(&self.obj, "hostId")?
            .call0(&self.obj)
            .ok()?
            .as_string()?;
        (!id.is_empty()).then_some(id)
    }

    fn process_id(&self) -> Option<u32> {
        let pid = function(&self.obj, "processId")?
            .call0(&self.obj)
            .ok()?
            .as_f64()?;
        (pid.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&pid)).then_some(pid as u32)
    }

    async fn process_alive(&self, pid: u32) -> Option<bool> {
        call(&self.obj, "processAlive", &[JsValue::from(pid)])
            .await
            .ok()?
            .as_bool()
    }

    async fn watch(&self, dir: &str, on_change: WatchListener) -> HostResult<HostWatch> {
        super::watch::watch(&self.obj, dir, on_change).await
    }
}

/// Call a host lock's release function; what it throws or rejects is ignored.
fn call_release(release: &Function) {
    let _ = release
        .call0(&JsValue::UNDEFINED)
        .map(|v| swallow_rejection(&v));
}

/// Armed while a host `lock()` is pending: dropped armed, it releases the lock once granted.
struct ReleaseWhenGranted(Option<JsValue>);

impl ReleaseWhenGranted {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for ReleaseWhenGranted {
    fn drop(&mut self) {
        let Some(pending) = self.0.take() else {
            return;
        };
        if !is_thenable(&pending) {
            return;
        }
        let granted = Closure::once(|release: JsValue| {
            if let Some(f) = release.dyn_ref::<Function>() {
                call_release(f);
            }
        });
        let chained = Promise::resolve(&pending).then(&granted);
        swallow_rejection(&chained);
        // Called at most once by the Promise; kept alive until then.
        granted.forget();
    }
}

thread_local! {
    static NOOP: Closure<dyn FnMut(JsValue)> = Closure::new(|_: JsValue| {});
}

/// Attach a no-op rejection handler so a fire-and-forget Promise cannot raise an unhandled
/// rejection.
fn swallow_rejection(value: &JsValue) {
    if let Some(promise) = value.dyn_ref::<Promise>() {
        NOOP.with(|noop| {
            let _ = promise.catch(noop);
        });
    }
}

/// The host LLM callback: `(request) => string | { text } | Promise<…>`.
pub struct JsLlm {
    callback: Function,
}

impl JsLlm {
    /// Wrap a function; anything else is rejected.
    pub fn new(value: JsValue) -> Result<JsLlm, String> {
        value
            .dyn_into::<Function>()
            .map(|callback| JsLlm { callback })
            .map_err(|_| "`llm` must be a function".into())
    }
}

/// Aborts the request's `AbortController` when the core drops the call (timeout, abort); the
/// LLM and embedder adapters share it.
pub(super) struct AbortOnDrop {
    pub(super) controller: web_sys::AbortController,
    pub(super) done: bool,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if !self.done {
            self.controller.abort();
        }
    }
}

/// The model's text from whatever shape the callback returned.
fn reply_text(value: &JsValue) -> HostResult<String> {
    if let Some(s) = value.as_string() {
        return Ok(s);
    }
    let text = get(value, "text");
    if let Some(s) = text.as_string() {
        return Ok(s);
    }
    // An Anthropic-style `{ content: [{ type: "text", text }] }` reply: the first text block.
    if let Ok(blocks) = get(value, "content").dyn_into::<Array>() {
        for block in blocks.iter() {
            if get(&block, "type").as_string().as_deref() == Some("text") {
                if let Some(s) = get(&block, "text").as_string() {
                    return Ok(s);
                }
            }
        }
    }
    Err(lying("llm"))
}

impl Llm for JsLlm {
    async fn complete(&self, request: &LlmRequest) -> HostResult<String> {
        let controller = web_sys::AbortController::new().map_err(host_error)?;
        let mut guard = AbortOnDrop {
            controller,
            done: false,
        };
        // The schema is JSON text: parsed once, here, rather than also escaped into the
        // request's JSON and read back as a string first.
        let js = match &request.response_schema {
            None => super::convert::to_js(request),
            Some(_) => super::convert::to_js(&LlmRequest {
                response_schema: None,
                ..request.clone()
            }),
        }
        .map_err(host_error)?;
        if let Some(schema) = &request.response_schema {
            let parsed = js_sys::JSON::parse(schema).map_err(host_error)?;
            let _ = Reflect::set(&js, &"responseSchema".into(), &parsed);
        }
        let _ = Reflect::set(&js, &"signal".into(), &guard.controller.signal());
        let value = self
            .callback
            .call1(&JsValue::UNDEFINED, &js)
            .map_err(host_error)?;
        let value = settle(value).await.map_err(host_error)?;
        guard.done = true;
        reply_text(&value)
    }
}

/// The host telemetry callback: `(event, fields) => void`. Throws and rejections are swallowed.
#[derive(Clone)]
pub struct JsTelemetry {
    callback: Option<Function>,
}

impl JsTelemetry {
    /// Wrap a function, or nothing.
    pub fn new(value: JsValue) -> Result<JsTelemetry, String> {
        if value.is_undefined() || value.is_null() {
            return Ok(JsTelemetry { callback: None });
        }
        value
            .dyn_into::<Function>()
            .map(|f| JsTelemetry { callback: Some(f) })
            .map_err(|_| "`telemetry` must be a function".into())
    }
}

impl Telemetry for JsTelemetry {
    fn emit(&self, event: &str, fields: &[(&str, FieldValue)]) {
        let Some(callback) = &self.callback else {
            return;
        };
        let obj = Object::new();
        for (key, value) in fields {
            let v = match value {
                FieldValue::Str(s) => JsValue::from_str(s),
                FieldValue::Num(n) => JsValue::from_f64(*n),
                FieldValue::Bool(b) => JsValue::from_bool(*b),
            };
            let _ = Reflect::set(&obj, &JsValue::from_str(key), &v);
        }
        if let Ok(result) = callback.call2(&JsValue::UNDEFINED, &JsValue::from_str(event), &obj) {
            swallow_rejection(&result);
        }
    }

    fn enabled(&self) -> bool {
        self.callback.is_some()
    }
}

/// The host clock: `now()` if given, else `Date.now()`; timers from the JS event loop.
#[derive(Clone)]
pub struct JsClock {
    now: Option<Function>,
}

impl JsClock {
    /// Wrap a `() => number` function, or nothing.
    pub fn new(value: JsValue) -> Result<JsClock, String> {
        if value.is_undefined() || value.is_null() {
            return Ok(JsClock { now: None });
        }
        value
            .dyn_into::<Function>()
            .map(|f| JsClock { now: Some(f) })
            .map_err(|_| "`now` must be a function".into())
    }
}

impl Clock for JsClock {
    fn now_ms(&self) -> f64 {
        self.now
            .as_ref()
            .and_then(|f| f.call0(&JsValue::UNDEFINED).ok())
            .and_then(|v| {
                v.as_f64()
                    .or_else(|| v.dyn_ref::<js_sys::Date>().map(|d| d.get_time()))
            })
            .filter(|n| n.is_finite())
            .unwrap_or_else(js_sys::Date::now)
    }

    async fn sleep(&self, ms: u32) {
        // Resolves only (a timer never rejects).
        let _ = super::settle::Settled::timer(ms).await;
    }
}
