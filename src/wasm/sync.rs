//! Team sync across the boundary: a JS `transport` callback adapted to the core's `Transport`,
//! and the `TeamSync` class over the core's `StoreSync` (which owns the rule that pulls are
//! locked writes of the store). This file only converts.

use super::error::host_error;
use super::fields;
use super::host::{JsClock, JsFs, JsTelemetry};
use super::{promise, to_settled, Core};
use crate::error::HostError;
use crate::host::HostResult;
use crate::store::Store;
use crate::sync::{
    HttpRequest, HttpResponse, SharedStoreSync, StoreSync, SyncConfig, SyncState, Transport,
};
use js_sys::{Function, Object, Promise, Reflect};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The host's HTTP client: `({ method, url, headers, body }) => { status, headers, body }`
/// (or a Promise of it).
pub struct JsTransport {
    callback: Function,
}

fn lying() -> HostError {
    HostError::new(Some("EINVAL"), "the transport returned an invalid response")
}

impl Transport for JsTransport {
    async fn send(&self, request: HttpRequest) -> HostResult<HttpResponse> {
        let headers = Object::new();
        for (k, v) in &request.headers {
            let _ = Reflect::set(&headers, &k.into(), &v.into());
        }
        let req = Object::new();
        let _ = Reflect::set(&req, &"method".into(), &request.method.into());
        let _ = Reflect::set(&req, &"url".into(), &request.url.into());
        let _ = Reflect::set(&req, &"headers".into(), &headers);
        if let Some(body) = request.body {
            let _ = Reflect::set(&req, &"body".into(), &body.into());
        }
        let value = self
            .callback
            .call1(&JsValue::UNDEFINED, &req)
            .map_err(host_error)?;
        let value = match value.dyn_into::<Promise>() {
            Ok(p) => JsFuture::from(p).await.map_err(host_error)?,
            Err(v) => v,
        };
        let status = Reflect::get(&value, &"status".into())
            .ok()
            .and_then(|s| s.as_f64())
            .ok_or_else(lying)?;
        let body = Reflect::get(&value, &"body".into())
            .ok()
            .and_then(|b| b.as_string())
            .unwrap_or_default();
        let mut out_headers = Vec::new();
        if let Ok(h) = Reflect::get(&value, &"headers".into()) {
            if h.is_object() {
                for pair in Object::entries(&Object::from(h)).iter() {
                    let pair = js_sys::Array::from(&pair);
                    if let (Some(k), Some(v)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                        out_headers.push((k, v));
                    }
                }
            }
        }
        if !(100.0..=599.0).contains(&status) {
            return Err(lying());
        }
        Ok(HttpResponse {
            status: status as u16,
            headers: out_headers,
            body,
        })
    }
}

type JsStore = Store<JsFs, JsClock, JsTelemetry>;
type Sync = SharedStoreSync<JsFs, JsTransport, JsClock, JsTelemetry>;

/// Team memory sync (`<dir>team/`) with a server speaking the reference's protocol, over your
/// own HTTP `transport`: pull (ETag, per-key validation, size cap, identical files untouched),
/// push (only changed keys, files with secrets skipped, batches, conflict retries), and a
/// watcher that turns change notifications into debounced pushes.
///
/// ```js
/// const sync = new TeamSync({ fs, dir, baseUrl, repo: "acme/app", transport: fetchTransport(), headers: { authorization: `Bearer ${token}` } });
/// await sync.start();            // first pull, then debounced pushes after each notify()
/// sync.notify();                 // a file under team/ changed
/// await sync.stop();             // flush and stop
/// ```
#[wasm_bindgen]
pub struct TeamSync {
    /// Bound to the store whose writes pulls are: the one of `Memdir.teamSync` (its lock and
    /// mode), or, for a standalone `TeamSync`, one over the same directory.
    sync: Rc<Sync>,
    stop: Rc<Cell<bool>>,
    running: RefCell<Option<Promise>>,
}

fn transport(options: &JsValue) -> Result<JsTransport, JsValue> {
    let callback = Reflect::get(options, &"transport".into())
        .unwrap_or(JsValue::UNDEFINED)
        .dyn_into::<Function>()
        .map_err(|_| fields::invalid_input("`transport` must be a function".into()))?;
    Ok(JsTransport { callback })
}

impl TeamSync {
    fn build(options: JsValue, what: &str, store: Rc<JsStore>) -> Result<TeamSync, JsValue> {
        let transport = transport(&options)?;
        let dir = store.dir().to_owned();
        let config = fields::read(options, what, false, |given| {
            let (base_url, repo) = (given.string("baseUrl"), given.string("repo"));
            let mut config = match given.opt_enum::<crate::store::Scope>("scope") {
                Some(crate::store::Scope::Private) => SyncConfig::private(&base_url, &repo, &dir),
                _ => SyncConfig::new(&base_url, &repo, &crate::paths::team_dir(&dir)),
            };
            if let Some(only) = given.opt_bool("memoryFilesOnly") {
                config.memory_files_only = only;
            }
            config.headers = given.string_map("headers", false).into_iter().collect();
            if let Some(ms) = given.opt_u32("timeoutMs") {
                config.timeout_ms = ms;
            }
            config
        })?;
        Ok(TeamSync {
            sync: Rc::new(StoreSync::for_store(
                store,
                transport,
                config,
                SyncState::default(),
            )),
            stop: Rc::new(Cell::new(false)),
            running: RefCell::new(None),
        })
    }

    /// A TeamSync whose pulls are writes of `memdir`'s store.
    pub(crate) fn for_memdir(core: Rc<Core>, options: JsValue) -> Result<TeamSync, JsValue> {
        TeamSync::build(options, "teamSync options", core.shared_store())
    }
}

#[wasm_bindgen]
impl TeamSync {
    /// Options: `fs`, `dir` (the memory directory), `baseUrl`, `repo` (`owner/name`),
    /// `transport`; optional `headers`, `timeoutMs`, `telemetry`, `now`, `scope` (`"team"`, the
    /// default, syncs `team/`; `"private"` the directory itself minus `team/`) and
    /// `memoryFilesOnly` (a pull takes memory files only; the private scope's default).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "TeamSyncOptions")] options: JsValue,
    ) -> Result<TeamSync, JsValue> {
        let get = |k: &str| Reflect::get(&options, &k.into()).unwrap_or(JsValue::UNDEFINED);
        let fs = JsFs::new(get("fs")).map_err(fields::invalid_input)?;
        transport(&options)?;
        let telemetry = JsTelemetry::new(get("telemetry")).map_err(fields::invalid_input)?;
        let clock = JsClock::new(get("now")).map_err(fields::invalid_input)?;
        let what = "TeamSync options";
        let dir = fields::read(options.clone(), what, false, |given| given.string("dir"))?;
        let config = crate::MemdirConfig::new(dir);
        // Pulls take the directory's lock: the same lock file or host lock a `Memdir` over this
        // directory takes.
        let store = Store::new(
            fs,
            clock,
            telemetry,
            config.dir,
            config.write_mode,
            config.store,
        );
        TeamSync::build(options, what, Rc::new(store))
    }

    /// Pull the server's team memory into `team/`.
    #[wasm_bindgen(unchecked_return_type = "Promise<PullOutcome>")]
    pub fn pull(&self) -> Promise {
        let sync = self.sync.clone();
        promise(async move { to_settled(sync.pull().await) })
    }

    /// Push local changes now.
    #[wasm_bindgen(unchecked_return_type = "Promise<PushOutcome>")]
    pub fn push(&self) -> Promise {
        let sync = self.sync.clone();
        promise(async move { to_settled(sync.push_now().await) })
    }

    /// The first pull, then a background loop pushing 2 s after the last `notify()`, until
    /// `stop()`. A permanent failure (4xx other than 409/429) suppresses pushes until a
    /// deletion is notified.
    #[wasm_bindgen(unchecked_return_type = "Promise<PullOutcome>")]
    pub fn start(&self) -> Promise {
        self.stop.set(false);
        let (loop_sync, loop_stop) = (self.sync.clone(), self.stop.clone());
        let running = promise(async move {
            loop_sync.run(move || loop_stop.get()).await;
            Ok(JsValue::UNDEFINED)
        });
        self.running.replace(Some(running));
        let sync = self.sync.clone();
        promise(async move { to_settled(sync.start().await) })
    }

    /// A file under `team/` changed (`pathExists` false for a deletion).
    pub fn notify(&self, path_exists: Option<bool>) {
        self.sync.notify(path_exists.unwrap_or(true));
    }

    /// Stop the loop after pushing what is pending; resolves when it has stopped.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn stop(&self) -> Promise {
        self.stop.set(true);
        self.running
            .take()
            .unwrap_or_else(|| Promise::resolve(&JsValue::UNDEFINED))
    }
}
