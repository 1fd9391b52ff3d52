//! [`load_prompt`]: the memory prompt for the
//! configured mode, with the directory ensured and telemetry emitted.

use super::build::build_memory_prompt;
use super::options::{default_team_dir, PromptMode, AUTO_MEMORY_DISPLAY_NAME};
use super::PromptConfig;
use crate::entrypoint::{load_index_for_model, truncate_entrypoint};
use crate::host::{Clock, EntryKind, FieldValue, FileSystem, Telemetry};
use crate::jsstr::js_trim;
use crate::store::{Store, WriteMode};

/// Event emitted when memory is off (reference `tengu_memdir_disabled`).
pub const EVENT_DISABLED: &str = "memdir_disabled";
/// Event emitted when team memory is configured but memory is off
/// (reference `tengu_team_memdir_disabled`).
pub const EVENT_TEAM_DISABLED: &str = "team_memdir_disabled";
/// Event emitted per directory whose prompt was loaded (reference `tengu_memdir_loaded`).
pub const EVENT_LOADED: &str = "memdir_loaded";

/// The memory section of the system prompt for the configured mode, or `None` when the
/// write mode is [`WriteMode::Off`] (then `memdir_disabled` is emitted).
///
/// Unless the write mode is [`WriteMode::ReadOnly`], the memory directory (and in combined
/// mode the team directory) is created first; a failure there never fails the prompt, whose
/// text says the directory exists. Then `memdir_loaded` is emitted with `memory_type`
/// (`auto`, `team`) and the counts of the directory's top-level files and subdirectories
/// (left out when the listing fails). Agent mode instead reads `<dir>MEMORY.md` (a read error
/// counts as empty), truncates it with `store.index_caps` and embeds it; its event has
/// `memory_type` `agent` (or `auto` under that display name), `content_length`,
/// `line_count`, `was_truncated` and `was_byte_truncated`, and is emitted only when the index
/// has content, as in the reference. Always `Ok`.
///
/// ```
/// use memdir::prompt::{load_prompt, PromptConfig};
/// use memdir::store::{Store, StoreConfig, WriteMode};
/// use memdir::{future::block_on, MemFs, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// let store = Store::new(MemFs::new(), Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
/// let prompt = block_on(load_prompt(&store, &PromptConfig::default())).unwrap().unwrap();
/// assert!(prompt.starts_with("# auto memory\n"));
/// ```
pub async fn load_prompt<F: FileSystem, C: Clock, T: Telemetry>(
    store: &Store<F, C, T>,
    config: &PromptConfig,
) -> crate::Result<Option<String>> {
    let mode = config.effective_mode();
    if store.write_mode() == WriteMode::Off {
        store.telemetry().emit(
            EVENT_DISABLED,
            &[("disabled_by_setting", FieldValue::Bool(true))],
        );
        if config.team || mode == PromptMode::Combined {
            store.telemetry().emit(EVENT_TEAM_DISABLED, &[]);
        }
        return Ok(None);
    }
    let dir = store.dir();
    let team_dir = config
        .team_dir
        .clone()
        .unwrap_or_else(|| default_team_dir(dir));
    let mut options = config.options(dir);
    // How full the private index is, for the compaction reminder (what the model loads). Read
    // once, through `readHead` when the host has it (one open, read and close).
    let keeps_index = mode == PromptMode::Agent || !options.skip_index;
    let index = match keeps_index {
        true => store
            .read_index_raw_for_model(crate::store::Scope::Private)
            .await
            .ok()
            .flatten(),
        false => None,
    };
    // A directory whose index was just read is there: only a missing one is created.
    let may_create = store.write_mode() != WriteMode::ReadOnly;
    if may_create {
        if index.is_none() {
            ensure_dir(store, dir).await;
        }
        if mode == PromptMode::Combined {
            ensure_dir(store, &team_dir).await;
        }
    }
    if let Some(raw) = &index {
        let caps = &store.config().index_caps;
        let loaded = load_index_for_model(raw, caps);
        options.index_usage = Some(super::IndexUsage {
            line_count: loaded.line_count,
            unit_count: loaded.byte_count,
            max_lines: caps.max_lines,
            max_units: caps.max_units,
        });
    }
    match mode {
        PromptMode::Agent => {
            let raw = index.unwrap_or_default();
            if !js_trim(&raw).is_empty() {
                let index = truncate_entrypoint(&raw, &store.config().index_caps);
                let memory_type = if options.display_name() == AUTO_MEMORY_DISPLAY_NAME {
                    "auto"
                } else {
                    "agent"
                };
                store.telemetry().emit(
                    EVENT_LOADED,
                    &[
                        ("memory_type", FieldValue::Str(memory_type.to_owned())),
                        ("content_length", count(index.byte_count)),
                        ("line_count", count(index.line_count)),
                        ("was_truncated", FieldValue::Bool(index.was_line_truncated)),
                        (
                            "was_byte_truncated",
                            FieldValue::Bool(index.was_byte_truncated),
                        ),
                    ],
                );
                options.agent_index = Some(index.content);
            }
        }
        PromptMode::Combined => {
            emit_loaded(store, "auto", dir).await;
            emit_loaded(store, "team", &team_dir).await;
        }
        PromptMode::Individual | PromptMode::DailyLog => emit_loaded(store, "auto", dir).await,
    }
    Ok(Some(build_memory_prompt(&options)))
}

/// Create `dir` and its parents; failures are swallowed (reference `ensureMemoryDirExists`).
async fn ensure_dir<F: FileSystem, C: Clock, T: Telemetry>(store: &Store<F, C, T>, dir: &str) {
    // The prompt goes on whatever happens: it tells the model the directory exists, and a
    // failed create resurfaces as a clear error on the first write.
    let _ignored = store.fs().mkdir(dir).await;
}

/// Emit `memdir_loaded` for `dir` with its top-level file and subdirectory counts. Nothing
/// is listed when the telemetry records nothing ([`Telemetry::enabled`]): at 50,000 files the
/// listing would cost tens of milliseconds for an event nobody receives.
async fn emit_loaded<F: FileSystem, C: Clock, T: Telemetry>(
    store: &Store<F, C, T>,
    memory_type: &str,
    dir: &str,
) {
    if !store.telemetry().enabled() {
        return;
    }
    let mut fields = vec![("memory_type", FieldValue::Str(memory_type.to_owned()))];
    if let Ok(entries) = store.fs().read_dir(dir).await {
        let files = entries.iter().filter(|e| e.kind == EntryKind::File).count();
        let dirs = entries.iter().filter(|e| e.kind == EntryKind::Dir).count();
        fields.push(("total_file_count", count(files)));
        fields.push(("total_subdir_count", count(dirs)));
    }
    store.telemetry().emit(EVENT_LOADED, &fields);
}

/// A count as a telemetry number.
fn count(n: usize) -> FieldValue {
    // Counts here are far below 2^53, where the conversion is exact.
    FieldValue::Num(n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::future::block_on;
    use crate::host::FsCapabilities;
    use crate::store::StoreConfig;
    use crate::test_host::{FixedClock, FsOp, HookedFs};
    use crate::{MemFs, NoTelemetry};
    use std::cell::RefCell;

    /// Records every event's name and field names.
    #[derive(Default)]
    struct Events(RefCell<Vec<(String, Vec<String>)>>);
    impl Telemetry for Events {
        fn emit(&self, event: &str, fields: &[(&str, FieldValue)]) {
            let names = fields.iter().map(|(k, _)| (*k).to_owned()).collect();
            self.0.borrow_mut().push((event.to_owned(), names));
        }
    }

    /// A store of `dir` over `fs`, telling nothing.
    fn store_at<'a>(fs: &'a HookedFs, dir: &str) -> Store<&'a HookedFs, FixedClock, NoTelemetry> {
        Store::new(
            fs,
            FixedClock(0.0),
            NoTelemetry,
            dir,
            WriteMode::Auto,
            StoreConfig::default(),
        )
    }

    #[test]
    fn the_index_is_read_once_through_its_head_and_its_directory_not_made() {
        let caps = FsCapabilities {
            read_head: true,
            realpath: true,
            ..FsCapabilities::default()
        };
        let inner = MemFs::new();
        inner.insert_file("/m/MEMORY.md", "- [A](a.md) — one\n");
        let fs = HookedFs::new(inner, caps);
        let store = store_at(&fs, "/m/");
        for mode in [PromptMode::Individual, PromptMode::Agent] {
            fs.calls.borrow_mut().clear();
            let config = PromptConfig {
                mode,
                ..PromptConfig::default()
            };
            let prompt = block_on(load_prompt(&store, &config)).ok().flatten();
            assert!(prompt.is_some(), "{mode:?}");
            let reads = fs.calls_of(&[FsOp::ReadFile, FsOp::ReadHead, FsOp::Mkdir]);
            // Read once, and the directory it is in not created again.
            assert_eq!(
                reads,
                [(FsOp::ReadHead, "/m/MEMORY.md".to_owned())],
                "{mode:?}"
            );
            if mode == PromptMode::Agent {
                assert!(prompt.is_some_and(|p| p.contains("- [A](a.md) — one")));
            }
        }
        // No index there: the directory is made, as the reference makes it on every load.
        let store = store_at(&fs, "/n/");
        fs.calls.borrow_mut().clear();
        assert!(block_on(load_prompt(&store, &PromptConfig::default())).is_ok());
        assert_eq!(
            fs.calls_of(&[FsOp::Mkdir]),
            [(FsOp::Mkdir, "/n/".to_owned())]
        );
        assert!(block_on(fs.inner.stat("/n")).is_ok());
    }

    #[test]
    fn lists_the_directory_only_for_a_recording_telemetry() {
        let fs = HookedFs::new(MemFs::new(), FsCapabilities::default());
        let store = store_at(&fs, "/m/");
        for _ in 0..3 {
            let prompt = block_on(load_prompt(&store, &PromptConfig::default()));
            assert!(matches!(prompt, Ok(Some(p)) if p.starts_with("# auto memory\n")));
        }
        assert_eq!(fs.count(&[FsOp::ReadDir]), 0);

        let events = Events::default();
        let store = Store::new(
            &fs,
            FixedClock(0.0),
            &events,
            "/m/",
            WriteMode::Auto,
            StoreConfig::default(),
        );
        let prompt = block_on(load_prompt(&store, &PromptConfig::default()));
        assert!(matches!(prompt, Ok(Some(_))));
        assert_eq!(fs.count(&[FsOp::ReadDir]), 1);
        let recorded = events.0.borrow();
        assert_eq!(recorded.len(), 1);
        let (event, fields) = &recorded[0];
        assert_eq!(event, EVENT_LOADED);
        assert!(fields.iter().any(|f| f == "total_file_count"));
    }
}
