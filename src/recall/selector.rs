//! The LLM selector: the request that asks the host's model which memories help
//! with a query, and the strict reading of its reply.

use crate::host::{LlmMessage, LlmPurpose, LlmRequest, Role};
use crate::json::{self, Json};

/// The JSON Schema the selector's reply must follow (the reference's, byte for byte).
pub const SELECTOR_SCHEMA: &str = r#"{"type":"object","properties":{"selected_memories":{"type":"array","items":{"type":"string"}}},"required":["selected_memories"],"additionalProperties":false}"#;

/// Output token budget of a selector call.
pub const SELECTOR_MAX_TOKENS: u32 = 256;

/// The selector's system prompt: the reference's structure (task, the up-to-five rule, three
/// bullets), in our own words. Ends with a newline, as the reference's does.
const SELECTOR_SYSTEM_PROMPT: &str = "\
You choose which saved memories an AI coding assistant should read before it answers a user's \
query. You get the query and a list of memory files, each with its filename and a short \
description. Reply with the filenames of the memories that will clearly help with this query \
(at most 5). Pick a memory only when its name and description make you sure it applies.
- When in doubt, leave a memory out. Be selective: a wrong pick costs more than a missed one.
- An empty list is a perfectly good answer when nothing clearly applies.
- If the message lists tools the assistant used recently, skip memories that are usage guides \
or API reference for those tools (the assistant is already using them), but still pick \
memories that warn about them: pitfalls, gotchas, known issues.
";

/// The request that asks the host's model to select memories for `query` from `manifest` (the
/// [`crate::manifest::format_manifest`] text of the candidates).
///
/// ```
/// use memdir::recall::build_selector_request;
/// let r = build_selector_request("fix the login test", "- [user] a.md (2023-11-14T22:13:20.123Z): x", &["Bash".into()]);
/// assert_eq!(r.messages[0].content,
///     "Query: fix the login test\n\nAvailable memories:\n- [user] a.md (2023-11-14T22:13:20.123Z): x\n\nRecently used tools: Bash");
/// assert_eq!(r.max_tokens, 256);
/// ```
pub fn build_selector_request(query: &str, manifest: &str, recent_tools: &[String]) -> LlmRequest {
    let tools = if recent_tools.is_empty() {
        String::new()
    } else {
        format!(
            "\n\nRecently used tools: {}",
            crate::jsstr::join(recent_tools, ", ")
        )
    };
    LlmRequest {
        purpose: LlmPurpose::Recall,
        system: SELECTOR_SYSTEM_PROMPT.to_owned(),
        messages: vec![LlmMessage {
            role: Role::User,
            content: format!("Query: {query}\n\nAvailable memories:\n{manifest}{tools}"),
        }],
        max_tokens: SELECTOR_MAX_TOKENS,
        response_schema: Some(SELECTOR_SCHEMA.to_owned()),
    }
}

/// The filenames the selector chose, or an empty list when the reply is unusable.
/// See [`try_parse_selector_reply`] for the rules.
///
/// ```
/// use memdir::recall::parse_selector_reply;
/// let reply = r#"{"selected_memories":["b.md","../../etc/passwd","b.md","a.md "]}"#;
/// assert_eq!(parse_selector_reply(reply, &["a.md", "b.md"], 5), vec!["b.md"]);
/// assert!(parse_selector_reply("no idea", &["a.md"], 5).is_empty());
/// ```
pub fn parse_selector_reply(text: &str, candidates: &[&str], limit: usize) -> Vec<String> {
    try_parse_selector_reply(text, candidates, limit).unwrap_or_default()
}

/// Read the selector's reply; `None` when it is not a usable answer (which recall reports as
/// `invalid_reply`), `Some` list otherwise (possibly empty).
///
/// The reply is one JSON object with an array `selected_memories`. Accepted wrappings, tried in
/// order: the whole text; the inside of the first ```` ``` ```` / ```` ```json ```` code fence;
/// the span from the first `{` to the last `}` (prose around a single object). The first of
/// these that is JSON decides: if it is not an object whose `selected_memories` is an array, the
/// reply is unusable.
///
/// Of the array, only strings that exactly equal a candidate filename are kept (no case folding,
/// no trimming, so `a.md ` is not `a.md`); other items are ignored. Duplicates keep their first
/// place; the list is capped at `limit`.
///
/// ```
/// use memdir::recall::try_parse_selector_reply;
/// let fenced = "Sure:\n```json\n{\"selected_memories\": [\"a.md\", 7, \"A.md\"]}\n```";
/// assert_eq!(try_parse_selector_reply(fenced, &["a.md"], 5), Some(vec!["a.md".to_string()]));
/// assert_eq!(try_parse_selector_reply(r#"{"selected_memories":"a.md"}"#, &["a.md"], 5), None);
/// ```
pub fn try_parse_selector_reply(
    text: &str,
    candidates: &[&str],
    limit: usize,
) -> Option<Vec<String>> {
    let value = reply_json(text)?;
    let items = value.get("selected_memories")?.as_array()?;
    let mut chosen: Vec<String> = Vec::new();
    for item in items {
        if chosen.len() >= limit {
            break;
        }
        if let Some(name) = item.as_str() {
            if candidates.contains(&name) && !chosen.iter().any(|c| c == name) {
                chosen.push(name.to_owned());
            }
        }
    }
    Some(chosen)
}

/// The first wrapping of `text` that parses as JSON, if any.
fn reply_json(text: &str) -> Option<Json> {
    let trimmed = text.trim();
    if let Ok(v) = json::parse(trimmed) {
        return Some(v);
    }
    if let Some(inner) = fenced_block(trimmed) {
        if let Ok(v) = json::parse(inner.trim()) {
            return Some(v);
        }
    }
    let start = trimmed.find('{')?;
    let end = trimmed.rfind('}')?;
    json::parse(trimmed.get(start..=end)?).ok()
}

/// The inside of the first code fence: after the opening ```` ``` ```` and its info string (up to
/// the line end), up to the next ```` ``` ```` (or the end of the text).
fn fenced_block(text: &str) -> Option<&str> {
    let open = text.find("```")?;
    let after_ticks = text.get(open + 3..)?;
    let body = match after_ticks.find('\n') {
        Some(nl) => after_ticks.get(nl + 1..)?,
        None => after_ticks,
    };
    Some(match body.find("```") {
        Some(close) => body.get(..close)?,
        None => body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_shape() {
        let r = build_selector_request("  q  ", "- a.md (t)", &[]);
        assert_eq!(r.purpose, LlmPurpose::Recall);
        assert_eq!(r.messages.len(), 1);
        assert_eq!(r.messages[0].role, Role::User);
        assert_eq!(
            r.messages[0].content,
            "Query:   q  \n\nAvailable memories:\n- a.md (t)"
        );
        assert_eq!(r.response_schema.as_deref(), Some(SELECTOR_SCHEMA));
        assert!(r.system.ends_with('\n'));
        assert!(r.system.contains("at most 5"));
        let two = build_selector_request("q", "", &["Read".into(), "Bash".into()]);
        assert!(two.messages[0]
            .content
            .ends_with("\n\nRecently used tools: Read, Bash"));
        // The schema is valid JSON and says what the reference says.
        let schema = json::parse(SELECTOR_SCHEMA).unwrap();
        assert_eq!(
            schema.get("required").unwrap().to_string(),
            r#"["selected_memories"]"#
        );
    }

    #[test]
    fn wrappings() {
        let c = ["a.md", "b.md"];
        let plain = r#"{"selected_memories":["a.md"]}"#;
        assert_eq!(parse_selector_reply(plain, &c, 5), ["a.md"]);
        let fence = "```\n{\"selected_memories\":[\"b.md\"]}\n```";
        assert_eq!(parse_selector_reply(fence, &c, 5), ["b.md"]);
        let prose = "I picked these: {\"selected_memories\":[\"b.md\",\"a.md\"]} hope it helps";
        assert_eq!(parse_selector_reply(prose, &c, 5), ["b.md", "a.md"]);
        let unclosed = "```json\n{\"selected_memories\":[\"a.md\"]}";
        assert_eq!(parse_selector_reply(unclosed, &c, 5), ["a.md"]);
        let two_objects = "{\"selected_memories\":[\"a.md\"]} {\"selected_memories\":[]}";
        assert_eq!(try_parse_selector_reply(two_objects, &c, 5), None);
    }

    #[test]
    fn shapes_that_are_not_answers() {
        let c = ["a.md"];
        for bad in [
            "",
            "a.md",
            "[\"a.md\"]",
            "{}",
            "{\"selected_memories\":null}",
            "{\"selected_memories\":{\"0\":\"a.md\"}}",
            "{\"selected\":[\"a.md\"]}",
            "{\"selected_memories\":[\"a.md\"]",
        ] {
            assert_eq!(try_parse_selector_reply(bad, &c, 5), None, "{bad:?}");
        }
        assert_eq!(
            try_parse_selector_reply("{\"selected_memories\":[]}", &c, 5),
            Some(vec![])
        );
    }

    #[test]
    fn filtering_dedup_and_cap() {
        let c = ["a.md", "b.md", "c.md", "team/d.md"];
        let reply = r#"{"selected_memories":["c.md","a.md","c.md",null,["b.md"],{"f":"b.md"},"team/d.md","b.md"]}"#;
        assert_eq!(
            parse_selector_reply(reply, &c, 5),
            ["c.md", "a.md", "team/d.md", "b.md"]
        );
        assert_eq!(parse_selector_reply(reply, &c, 2), ["c.md", "a.md"]);
        assert!(parse_selector_reply(reply, &c, 0).is_empty());
        let hostile =
            r#"{"selected_memories":["/abs/a.md","./a.md","A.MD","a.md ","MEMORY.md","d.md"]}"#;
        assert!(parse_selector_reply(hostile, &c, 5).is_empty());
    }
}
