//! Recall: selection by the host's LLM, the built-in ranker, surfacing. OWNER: recall helper.

/// Recall tuning for a [`crate::Memdir`]. (Placeholder; owner fills in.)
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecallConfig {}
