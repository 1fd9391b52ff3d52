//! Prompt builders (reference §8). OWNER: prompts helper.

/// How the memory prompt is built for a [`crate::Memdir`]. (Placeholder; owner fills in.)
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptConfig {}
