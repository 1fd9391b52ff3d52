//! `Consolidator::consolidate`: gates, lock, the model's proposal as a changeset.

use super::apply::ApplyReport;
use super::changeset::{build_changeset, Changeset, CurrentFile};
use super::gates::{evaluate_gates, ConsolidationGates, GateDecision, SessionInfo};
use super::lock::ConsolidationLease;
use super::prompt::{
    build_consolidation_request_prompt, consolidate_response_schema, directory_message, ShownFile,
};
use super::Consolidator;
use crate::error::{Code, Error, Result};
use crate::extract::ask;
use crate::host::Telemetry;
use crate::host::{Clock, FieldValue, FileSystem, Llm, LlmMessage, LlmPurpose, LlmRequest, Role};
use crate::store::WriteMode;
use crate::store::{Scope, TEAM_DIR};
use serde::Serialize;

/// How [`Consolidator::consolidate`] runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ConsolidateOptions {
    /// The time and session thresholds.
    pub gates: ConsolidationGates,
    /// The host's session transcripts with their modification times.
    pub sessions: Vec<SessionInfo>,
    /// The session asking, left out of the count.
    pub current_session: Option<String>,
    /// Skip the time and session gates (a consolidation the user asked for).
    pub force: bool,
    /// The lock holder id; a fresh id when `None`.
    pub holder: Option<String>,
    /// Output token budget.
    pub max_tokens: u32,
    /// How long the model may take, in ms.
    pub timeout_ms: u32,
    /// In `auto` mode, apply the changeset at once (it can still be undone). Ignored in
    /// `confirm` mode, where the changeset is always left for the host.
    pub auto_apply: bool,
}

impl Default for ConsolidateOptions {
    fn default() -> Self {
        ConsolidateOptions {
            gates: ConsolidationGates::default(),
            sessions: Vec::new(),
            current_session: None,
            force: false,
            holder: None,
            max_tokens: 8192,
            timeout_ms: 120_000,
            auto_apply: false,
        }
    }
}

/// Why consolidation did not run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "reason",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum ConsolidateSkip {
    /// The last consolidation is too recent.
    TooSoon {
        /// Hours since it.
        hours_since: f64,
    },
    /// Too few sessions since.
    TooFewSessions {
        /// Sessions counted.
        count: usize,
        /// Sessions needed.
        needed: usize,
    },
    /// Another holder is consolidating.
    Locked,
}

/// What consolidation produced.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum ConsolidateOutcome {
    /// Nothing was asked.
    Skipped {
        /// Why.
        #[serde(flatten)]
        skip: ConsolidateSkip,
    },
    /// The model's proposal.
    #[serde(rename_all = "camelCase")]
    Ready {
        /// The changes, for the host to show, apply or drop.
        changeset: Box<Changeset>,
        /// The last consolidation before this one (pass it to
        /// [`Consolidator::rollback_consolidation_lock`] when the changeset is dropped).
        previous_consolidated_at: f64,
        /// Sessions reviewed.
        sessions_reviewed: usize,
        /// Set when `auto_apply` applied it.
        applied: Option<ApplyReport>,
    },
}

impl<F: FileSystem, C: Clock, T: Telemetry, L: Llm> Consolidator<'_, F, C, T, L> {
    /// Consolidate the private memory: check the gates (unless `force`), take the
    /// `.consolidate-lock`, show the model the index and the files, and turn its reply into a
    /// [`Changeset`]. Nothing is written to memory here (unless `auto_apply` in `auto` mode):
    /// the host shows the changeset and calls [`Consolidator::apply_changeset`]. Refused with
    /// `WRITE_FORBIDDEN` in `off` and `read-only` mode. On failure the lock is rolled back so
    /// the next turn may try again; on success its time becomes the last consolidation.
    pub async fn consolidate(&self, options: &ConsolidateOptions) -> Result<ConsolidateOutcome> {
        self.store.check_writable()?;
        let now = self.store.clock().now_ms();
        let last_at = self.last_consolidated_at().await?;
        let mut sessions = Vec::new();
        let mut hours_since = (now - last_at) / 3_600_000.0;
        if !options.force {
            match evaluate_gates(
                &options.gates,
                now,
                last_at,
                &options.sessions,
                options.current_session.as_deref(),
            ) {
                GateDecision::Open {
                    hours_since: h,
                    sessions: s,
                } => {
                    hours_since = h;
                    sessions = s;
                }
                GateDecision::TooSoon { hours_since } => {
                    return Ok(ConsolidateOutcome::Skipped {
                        skip: ConsolidateSkip::TooSoon { hours_since },
                    })
                }
                GateDecision::TooFewSessions { count, needed } => {
                    return Ok(ConsolidateOutcome::Skipped {
                        skip: ConsolidateSkip::TooFewSessions { count, needed },
                    })
                }
            }
        }
        let holder = options
            .holder
            .clone()
            .unwrap_or_else(|| self.store.next_id());
        let Some(lease) = self.try_acquire_consolidation_lock(&holder).await? else {
            return Ok(ConsolidateOutcome::Skipped {
                skip: ConsolidateSkip::Locked,
            });
        };
        self.store.telemetry().emit(
            "memdir_consolidate_fired",
            &[
                ("hours_since", FieldValue::Num(hours_since.round())),
                ("sessions_since", FieldValue::Num(sessions.len() as f64)),
            ],
        );
        match self.propose_changeset(options, &sessions).await {
            Ok(changeset) => {
                self.finish_consolidation(options, lease, changeset, sessions.len())
                    .await
            }
            Err(e) => {
                let _ = self.rollback_consolidation_lock(lease.prior).await;
                self.store.telemetry().emit(
                    "memdir_consolidate_failed",
                    &[("code", FieldValue::Str(e.code.as_str().to_owned()))],
                );
                Err(e)
            }
        }
    }

    async fn finish_consolidation(
        &self,
        options: &ConsolidateOptions,
        lease: ConsolidationLease,
        changeset: Box<Changeset>,
        sessions_reviewed: usize,
    ) -> Result<ConsolidateOutcome> {
        self.release_consolidation_lock(&lease).await?;
        let n = |v: usize| FieldValue::Num(v as f64);
        self.store.telemetry().emit(
            "memdir_consolidate_completed",
            &[
                ("create", n(changeset.create.len())),
                ("update", n(changeset.update.len())),
                ("delete", n(changeset.delete.len())),
                ("index_changed", FieldValue::Bool(changeset.index.is_some())),
                ("rejected", n(changeset.rejected.len())),
                ("sessions_reviewed", n(sessions_reviewed)),
            ],
        );
        let applied = if options.auto_apply
            && self.store.write_mode() == WriteMode::Auto
            && !changeset.is_empty()
        {
            Some(self.apply_changeset(&changeset).await?)
        } else {
            None
        };
        Ok(ConsolidateOutcome::Ready {
            changeset,
            previous_consolidated_at: lease.prior,
            sessions_reviewed,
            applied,
        })
    }

    async fn propose_changeset(
        &self,
        options: &ConsolidateOptions,
        sessions: &[String],
    ) -> Result<Box<Changeset>> {
        let llm = self
            .llm
            .ok_or_else(|| Error::new(Code::Unsupported, "consolidation needs an LLM callback"))?;
        let index = self
            .store
            .read_optional(&self.store.index_path(Scope::Private))
            .await?;
        let mut shown = Vec::new();
        for header in self.store.scan_with_logs().await? {
            if header.filename.starts_with(TEAM_DIR) {
                continue;
            }
            if let Ok(text) = self.store.fs().read_file(&header.file_path).await {
                shown.push(ShownFile {
                    file: CurrentFile {
                        file: header.filename,
                        text,
                        shown_whole: true,
                    },
                    mtime_ms: header.mtime_ms,
                });
            }
        }
        let skip_index = self.skip_index;
        let message = directory_message(index.as_deref(), &mut shown);
        let request = LlmRequest {
            purpose: LlmPurpose::Consolidate,
            system: build_consolidation_request_prompt(self.store.dir(), skip_index, sessions),
            messages: vec![LlmMessage {
                role: Role::User,
                content: message,
            }],
            max_tokens: options.max_tokens,
            response_schema: Some(consolidate_response_schema()),
        };
        let reply = ask(self.store.clock(), llm, &request, options.timeout_ms).await?;
        let files: Vec<CurrentFile> = shown.into_iter().map(|s| s.file).collect();
        build_changeset(&reply, &files, index.as_deref(), skip_index).map(Box::new)
    }
}
