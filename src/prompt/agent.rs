//! Agent memory: the scope notes and the `## MEMORY.md` tail.

use super::options::AgentScope;
use crate::jsstr::js_trim;

/// The one-bullet note for an agent memory's scope.
///
/// ```
/// use memdir::prompt::{agent_scope_note, AgentScope};
/// assert!(agent_scope_note(AgentScope::Local).contains("version control"));
/// ```
pub fn agent_scope_note(scope: AgentScope) -> &'static str {
    match scope {
        AgentScope::User => {
            "- This memory has user scope and follows you into every project, so keep what you \
             learn general rather than tied to one codebase."
        }
        AgentScope::Project => {
            "- This memory has project scope and reaches the rest of the team through version \
             control, so shape what you save around this project."
        }
        AgentScope::Local => {
            "- This memory has local scope and stays out of version control, so shape what you \
             save around this project and this machine."
        }
    }
}

/// The notice shown under `## MEMORY.md` when the agent's index is empty.
pub const EMPTY_INDEX_NOTICE: &str =
    "Your MEMORY.md has nothing in it yet; memories you save will be listed here.";

/// `## MEMORY.md`, blank, then the index text, or [`EMPTY_INDEX_NOTICE`] when it is absent or
/// blank (JS `trim()` semantics).
pub fn agent_index_tail(index: Option<&str>) -> Vec<String> {
    let body = match index {
        Some(text) if !js_trim(text).is_empty() => text,
        _ => EMPTY_INDEX_NOTICE,
    };
    vec!["## MEMORY.md".to_owned(), String::new(), body.to_owned()]
}
