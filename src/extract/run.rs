//! The async side of extraction: one run over an [`ExtractContext`] (a store, the LLM and the
//! prompt settings), and the coalescing loop.

use super::ops::{parse_operations, validate_operations, OperationKind, RejectedOperation};
use super::schedule::{wrote_memories_directly, Extractor};
use super::ConversationMessage;
use crate::error::{Code, Error, Result};
use crate::future::{race, Either};
use crate::host::Telemetry;
use crate::host::{Clock, FieldValue, FileSystem, Llm, LlmMessage, LlmPurpose, LlmRequest, Role};
use crate::prompt::{
    build_extract_prompt, operations_schema, PromptConfig, PromptMode, EXTRACT_OP_FIELDS,
};
use crate::store::{IndexWarning, MemoryChanges, Proposal, SaveInput, SaveOutcome, Store};
use serde::Serialize;

/// Tuning of an extraction run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtractOptions {
    /// Output token budget of the request.
    pub max_tokens: u32,
    /// How long the model may take, in ms (`TIMEOUT` after).
    pub timeout_ms: u32,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            max_tokens: 4096,
            timeout_ms: 60_000,
        }
    }
}

/// Why a run did nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// Nothing after the cursor.
    NoNewMessages,
    /// The conversation wrote memories itself; the cursor moved past it.
    DirectWrite,
    /// Not yet the N-th turn.
    Throttled,
}

/// How a call ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum ExtractStatus {
    /// The model was asked and its operations applied (or proposed).
    Extracted,
    /// Nothing was asked.
    Skipped {
        /// Why.
        reason: SkipReason,
    },
    /// A run was in flight; this call's messages wait for its trailing run.
    Coalesced,
    /// The model failed (`HOST_LLM`, `HTTP`, `TIMEOUT`: an HTTP 401, a callback that threw, no
    /// answer in time), in this call's run or a trailing one. Other failures (no LLM, the write
    /// mode, bad input) are the call's `Err`.
    Failed {
        /// The error code.
        code: String,
        /// The error message.
        message: String,
    },
}

/// What a run did. File names are relative to the memory directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtractOutcome {
    /// How it ended.
    pub status: ExtractStatus,
    /// Messages after the cursor that the run looked at.
    pub message_count: usize,
    /// Memories created.
    pub created: Vec<String>,
    /// Memories updated.
    pub updated: Vec<String>,
    /// Memories deleted.
    pub deleted: Vec<String>,
    /// In `confirm` mode: the writes awaiting approval ([`Store::apply_proposal`]).
    pub proposals: Vec<Proposal>,
    /// Operations not applied, with reasons.
    pub rejected: Vec<RejectedOperation>,
    /// Writes after which an index is over its caps: `(file, warning)`.
    pub index_warnings: Vec<(String, IndexWarning)>,
    /// Runs of stashed context that followed this one.
    pub trailing: Vec<ExtractOutcome>,
}

impl ExtractOutcome {
    fn with_status(status: ExtractStatus, message_count: usize) -> Self {
        ExtractOutcome {
            status,
            message_count,
            created: Vec::new(),
            updated: Vec::new(),
            deleted: Vec::new(),
            proposals: Vec::new(),
            rejected: Vec::new(),
            index_warnings: Vec::new(),
            trailing: Vec::new(),
        }
    }
}

/// Clears the in-flight flag if a run's future is dropped before it ends.
struct InFlight<'a> {
    extractor: &'a Extractor,
    done: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.extractor.abandon();
        }
    }
}

/// The conversation as request messages (empty texts left out, which APIs refuse), then the
/// request for the reply.
fn request_messages(messages: &[ConversationMessage]) -> Vec<LlmMessage> {
    let mut out: Vec<LlmMessage> = messages
        .iter()
        .filter(|m| !m.text.trim().is_empty())
        .map(|m| LlmMessage {
            role: m.role,
            content: m.text.clone(),
        })
        .collect();
    out.push(LlmMessage {
        role: Role::User,
        content: "Now reply with the JSON object of memory operations, as the instructions \
                  describe."
            .to_owned(),
    });
    out
}

/// What an extraction run works on: a borrowed [`Store`], the host's LLM, and the prompt
/// settings (mode, tool names, `skip_index`). A `&Memdir` converts into one.
///
/// ```
/// use memdir::extract::{ExtractContext, ExtractOptions, Extractor};
/// use memdir::prompt::PromptConfig;
/// use memdir::store::{Store, StoreConfig, WriteMode};
/// use memdir::{future::block_on, Code, MemFs, NoLlm, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// let store = Store::new(MemFs::new(), Clock0, NoTelemetry, "/m/", WriteMode::ReadOnly, StoreConfig::default());
/// let prompt = PromptConfig::default();
/// let context = ExtractContext::new(&store, None::<&NoLlm>, &prompt);
/// let err = block_on(Extractor::new(1).run(context, &[], &ExtractOptions::default())).unwrap_err();
/// assert_eq!(err.code, Code::WriteForbidden);
/// ```
pub struct ExtractContext<'a, F: FileSystem, C: Clock, T: Telemetry, L: Llm> {
    store: &'a Store<F, C, T>,
    llm: Option<&'a L>,
    prompt: &'a PromptConfig,
}

impl<'a, F: FileSystem, C: Clock, T: Telemetry, L: Llm> ExtractContext<'a, F, C, T, L> {
    /// Extraction into `store` with `llm`, under the prompt settings `prompt`.
    pub fn new(store: &'a Store<F, C, T>, llm: Option<&'a L>, prompt: &'a PromptConfig) -> Self {
        ExtractContext { store, llm, prompt }
    }
}

impl<F: FileSystem, C: Clock, T: Telemetry, L: Llm> Clone for ExtractContext<'_, F, C, T, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F: FileSystem, C: Clock, T: Telemetry, L: Llm> Copy for ExtractContext<'_, F, C, T, L> {}

impl Extractor {
    /// Extract from `messages` (the whole conversation so far) into `memdir`. Refused with
    /// `WRITE_FORBIDDEN` in `off` and `read-only` mode. When a run is already in flight this
    /// call stashes `messages` and returns [`ExtractStatus::Coalesced`]; the run in flight then
    /// processes the latest stash in one trailing run (which skips the throttle) and reports it
    /// under `trailing`. On failure the cursor does not move; a failure of the model resolves
    /// as [`ExtractStatus::Failed`] instead of an `Err`.
    pub async fn run<'a, F: FileSystem + 'a, C: Clock + 'a, T: Telemetry + 'a, L: Llm + 'a>(
        &self,
        target: impl Into<ExtractContext<'a, F, C, T, L>>,
        messages: &[ConversationMessage],
        options: &ExtractOptions,
    ) -> Result<ExtractOutcome> {
        let memdir = target.into();
        memdir.store.check_writable()?;
        if !self.begin(messages) {
            memdir
                .store
                .telemetry()
                .emit("memdir_extract_coalesced", &[]);
            return Ok(ExtractOutcome::with_status(ExtractStatus::Coalesced, 0));
        }
        let mut guard = InFlight {
            extractor: self,
            done: false,
        };
        let first = self.run_once(memdir, messages, options, false).await;
        let mut trailing = Vec::new();
        while let Some(stash) = self.finish() {
            let outcome = match self.run_once(memdir, &stash, options, true).await {
                Ok(outcome) => *outcome,
                Err(e) => failed(e),
            };
            trailing.push(outcome);
        }
        guard.done = true;
        let mut outcome = match first {
            Ok(outcome) => outcome,
            // The model failed (an HTTP 401, a callback that threw, no answer in time): a typed
            // `failed` result, as for a trailing run. Mistakes of the caller still reject.
            Err(e) if model_failure(e.code) => Box::new(failed(e)),
            Err(e) => return Err(e),
        };
        outcome.trailing = trailing;
        Ok(*outcome)
    }

    async fn run_once<F: FileSystem, C: Clock, T: Telemetry, L: Llm>(
        &self,
        memdir: ExtractContext<'_, F, C, T, L>,
        messages: &[ConversationMessage],
        options: &ExtractOptions,
        is_trailing: bool,
    ) -> Result<Box<ExtractOutcome>> {
        memdir.store.check_writable()?;
        let new = self.new_messages(messages);
        let count = new.len();
        if count == 0 {
            return Ok(skipped(SkipReason::NoNewMessages, 0));
        }
        let tools = &memdir.prompt.tool_names;
        if wrote_memories_directly(new, memdir.store.dir(), &[&tools.write, &tools.edit]) {
            self.advance_cursor(messages);
            memdir.store.telemetry().emit(
                "memdir_extract_skipped_direct_write",
                &[("message_count", FieldValue::Num(count as f64))],
            );
            return Ok(skipped(SkipReason::DirectWrite, count));
        }
        if !is_trailing && !self.tick_throttle() {
            return Ok(skipped(SkipReason::Throttled, count));
        }
        let started = memdir.store.clock().now_ms();
        match extract_now(memdir, new, options).await {
            Ok(outcome) => {
                self.advance_cursor(messages);
                emit_outcome(
                    memdir.store,
                    &outcome,
                    memdir.store.clock().now_ms() - started,
                );
                Ok(outcome)
            }
            Err(e) => {
                memdir.store.telemetry().emit(
                    "memdir_extract_error",
                    &[
                        ("code", FieldValue::Str(e.code.as_str().to_owned())),
                        (
                            "duration_ms",
                            FieldValue::Num(memdir.store.clock().now_ms() - started),
                        ),
                    ],
                );
                Err(e)
            }
        }
    }
}

fn skipped(reason: SkipReason, count: usize) -> Box<ExtractOutcome> {
    Box::new(ExtractOutcome::with_status(
        ExtractStatus::Skipped { reason },
        count,
    ))
}

fn emit_outcome<F: FileSystem, C: Clock, T: Telemetry>(
    store: &Store<F, C, T>,
    outcome: &ExtractOutcome,
    duration_ms: f64,
) {
    let n = |v: usize| FieldValue::Num(v as f64);
    store.telemetry().emit(
        "memdir_extract",
        &[
            ("message_count", n(outcome.message_count)),
            ("created", n(outcome.created.len())),
            ("updated", n(outcome.updated.len())),
            ("deleted", n(outcome.deleted.len())),
            ("proposed", n(outcome.proposals.len())),
            ("rejected", n(outcome.rejected.len())),
            ("duration_ms", FieldValue::Num(duration_ms)),
        ],
    );
}

/// Ask the model and apply its operations (the gates have passed).
async fn extract_now<F: FileSystem, C: Clock, T: Telemetry, L: Llm>(
    memdir: ExtractContext<'_, F, C, T, L>,
    new: &[ConversationMessage],
    options: &ExtractOptions,
) -> Result<Box<ExtractOutcome>> {
    let llm = memdir
        .llm
        .ok_or_else(|| Error::new(Code::Unsupported, "extraction needs an LLM callback"))?;
    let combined = memdir.prompt.effective_mode() == PromptMode::Combined;
    let skip_index = memdir.prompt.skip_index;
    let manifest = memdir.store.manifest().await?;
    let request = LlmRequest {
        purpose: LlmPurpose::Extract,
        system: build_extract_prompt(new.len(), &manifest, combined, skip_index),
        messages: request_messages(new),
        max_tokens: options.max_tokens,
        response_schema: Some(operations_schema(EXTRACT_OP_FIELDS, "")),
    };
    let reply = ask(memdir.store.clock(), llm, &request, options.timeout_ms).await?;
    let parsed = parse_operations(&reply)?;
    let (valid, rejected) = validate_operations(parsed.operations, combined);
    let mut outcome = Box::new(ExtractOutcome::with_status(
        ExtractStatus::Extracted,
        new.len(),
    ));
    outcome.rejected = parsed.rejected;
    outcome.rejected.extend(rejected);
    for op in valid {
        let result = match op.kind {
            OperationKind::Create => {
                memdir
                    .store
                    .save(SaveInput {
                        name: op.name.unwrap_or_default(),
                        description: op.description.unwrap_or_default(),
                        memory_type: op
                            .memory_type
                            .map(|t| t.as_str().to_owned())
                            .unwrap_or_default(),
                        body: op.body.unwrap_or_default(),
                        file: Some(op.file.clone()),
                        scope: op.scope,
                        skip_index,
                        replace: false,
                    })
                    .await
            }
            OperationKind::Update => {
                let changes = MemoryChanges {
                    name: op.name,
                    description: op.description,
                    memory_type: op.memory_type.map(|t| t.as_str().to_owned()),
                    body: op.body,
                    skip_index,
                };
                memdir.store.update(&op.root_file, changes).await
            }
            OperationKind::Delete => memdir.store.delete(&op.root_file).await,
        };
        match result {
            Ok(SaveOutcome::Saved(saved)) => {
                if let Some(warning) = saved.index_warning {
                    outcome.index_warnings.push((saved.file.clone(), warning));
                }
                if saved.created {
                    outcome.created.push(saved.file);
                } else {
                    outcome.updated.push(saved.file);
                }
            }
            Ok(SaveOutcome::Deleted(deleted)) => outcome.deleted.push(deleted.file),
            Ok(SaveOutcome::Proposed(proposal)) => outcome.proposals.push(proposal),
            Err(e) if e.code == Code::WriteForbidden => return Err(e),
            Err(e) => outcome.rejected.push(RejectedOperation::new(
                op.index,
                Some(op.root_file),
                e.code.as_str(),
                store_reason(e.code),
            )),
        }
    }
    crate::sort::sort_by_key(&mut outcome.rejected, |r| r.index);
    Ok(outcome)
}

/// Failures of the model rather than of the call: reported as [`ExtractStatus::Failed`].
fn model_failure(code: Code) -> bool {
    matches!(code, Code::HostLlm | Code::Http | Code::Timeout)
}

/// A run that ended with `e`, as an outcome.
fn failed(mut e: Error) -> ExtractOutcome {
    ExtractOutcome::with_status(
        ExtractStatus::Failed {
            code: e.code.as_str().to_owned(),
            message: std::mem::take(&mut e.message),
        },
        0,
    )
}

/// Our words for a store refusal (the store's own message may quote the file).
fn store_reason(code: Code) -> &'static str {
    match code {
        Code::AlreadyExists => "the file already exists; use update to change it",
        Code::NotFound => "there is no such memory",
        Code::SecretDetected => "contains potential secrets; nothing of it was saved",
        Code::InvalidMemory => "the memory would lack a name, description or type",
        Code::LockTimeout => "the memory directory stayed locked",
        _ => "the store refused the write",
    }
}

/// One model call, bounded by `timeout_ms`.
pub(crate) async fn ask<C: Clock, L: Llm>(
    clock: &C,
    llm: &L,
    request: &LlmRequest,
    timeout_ms: u32,
) -> Result<String> {
    match race(llm.complete(request), clock.sleep(timeout_ms)).await {
        Either::Left(Ok(text)) => Ok(text),
        Either::Left(Err(cause)) => {
            Err(Error::host(Code::HostLlm, "the LLM callback failed", cause))
        }
        Either::Right(()) => Err(Error::new(
            Code::Timeout,
            format!("the LLM did not answer within {timeout_ms} ms"),
        )),
    }
}
