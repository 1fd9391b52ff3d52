//! The model's reply: parsing it into operations and checking each one before anything is
//! written. Pure.

use crate::error::{Code, Error, Result};
use crate::json::{parse, Json};
use crate::path_key::sanitize_path_key;
use crate::secrets::scan_for_secrets;
use crate::store::names::{check_memory_file, check_single_line};
use crate::store::{Scope, TEAM_DIR};
use crate::str_map::StrMap;
use crate::types::MemoryType;
use serde::Serialize;

/// Most operations applied from one reply; the rest are rejected.
pub const MAX_OPERATIONS: usize = 50;
/// Largest reply parsed, in bytes; a longer one fails as a whole.
pub const MAX_REPLY_BYTES: usize = 1024 * 1024;

/// What an operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OperationKind {
    /// A new memory.
    Create,
    /// Changed fields or body of an existing memory.
    Update,
    /// Removing a memory.
    Delete,
}

/// One operation as the model wrote it: shapes checked, values not yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryOperation {
    /// Its position in the reply (0-based).
    pub index: usize,
    /// What it does.
    pub kind: OperationKind,
    /// The file, relative to the scope's directory.
    pub file: String,
    /// Private (default) or team.
    pub scope: Scope,
    /// `type`, if given.
    pub memory_type: Option<String>,
    /// `name`, if given.
    pub name: Option<String>,
    /// `description`, if given.
    pub description: Option<String>,
    /// `body`, if given.
    pub body: Option<String>,
}

/// An operation that was not applied, and why. Never quotes the model's text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RejectedOperation {
    /// Its position in the reply (0-based).
    pub index: usize,
    /// The file relative to the memory directory, only when it is a valid memory file name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// A stable code: an error code (`PATH_ESCAPES`, `SECRET_DETECTED` …) or one of
    /// `MALFORMED_OPERATION`, `TOO_MANY_OPERATIONS`, `DUPLICATE_TARGET`.
    pub code: String,
    /// Why, for people.
    pub reason: String,
}

impl RejectedOperation {
    /// A rejection with a code and a reason.
    pub fn new(index: usize, file: Option<String>, code: &str, reason: impl Into<String>) -> Self {
        RejectedOperation {
            index,
            file,
            code: code.to_owned(),
            reason: reason.into(),
        }
    }
}

/// An operation that passed every check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidatedOperation {
    /// Its position in the reply.
    pub index: usize,
    /// What it does.
    pub kind: OperationKind,
    /// Private or team.
    pub scope: Scope,
    /// The file relative to the scope's directory.
    pub file: String,
    /// The file relative to the memory directory (`team/x.md` for team memory).
    pub root_file: String,
    /// The type (always set for a create).
    pub memory_type: Option<MemoryType>,
    /// The name (always set for a create).
    pub name: Option<String>,
    /// The description (always set for a create).
    pub description: Option<String>,
    /// The body (always set for a create).
    pub body: Option<String>,
}

/// A reply split into well-formed operations and the items that were not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParsedReply {
    /// Operations with the right shape, in reply order.
    pub operations: Vec<MemoryOperation>,
    /// Items that were not operations.
    pub rejected: Vec<RejectedOperation>,
    /// The reply's object, for callers that read more keys (consolidation's `index`).
    pub object: Vec<(String, Json)>,
}

/// The reply without one surrounding Markdown code fence (```` ```json … ``` ````), trimmed.
///
/// ```
/// use memdir::extract::strip_code_fence;
/// assert_eq!(strip_code_fence("```json\n{\"a\":1}\n```"), "{\"a\":1}");
/// assert_eq!(strip_code_fence(" {} "), "{}");
/// ```
pub fn strip_code_fence(reply: &str) -> &str {
    let trimmed = reply.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    let Some(newline) = rest.find('\n') else {
        return trimmed;
    };
    let inner = rest.get(newline + 1..).unwrap_or("");
    match inner.trim_end().strip_suffix("```") {
        Some(body) => body.trim(),
        None => trimmed,
    }
}

fn optional_string(item: &Json, key: &str) -> std::result::Result<Option<String>, String> {
    match item.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

fn parse_item(index: usize, item: &Json) -> std::result::Result<MemoryOperation, String> {
    if !matches!(item, Json::Object(_)) {
        return Err("an operation must be an object".to_owned());
    }
    let kind = match item.get("op").and_then(Json::as_str) {
        Some("create") => OperationKind::Create,
        Some("update") => OperationKind::Update,
        Some("delete") => OperationKind::Delete,
        _ => return Err("`op` must be create, update or delete".to_owned()),
    };
    let file = item
        .get("file")
        .and_then(Json::as_str)
        .ok_or_else(|| "`file` must be a string".to_owned())?
        .to_owned();
    let scope = match optional_string(item, "scope")?.as_deref() {
        None | Some("private") => Scope::Private,
        Some("team") => Scope::Team,
        Some(_) => return Err("`scope` must be private or team".to_owned()),
    };
    Ok(MemoryOperation {
        index,
        kind,
        file,
        scope,
        memory_type: optional_string(item, "type")?,
        name: optional_string(item, "name")?,
        description: optional_string(item, "description")?,
        body: optional_string(item, "body")?,
    })
}

/// Parse a reply of the form `{"operations":[…]}` (one surrounding code fence tolerated). A
/// reply that is too long, not JSON, or has no `operations` array fails with `HOST_LLM`; items
/// of the wrong shape are rejected one by one (`MALFORMED_OPERATION`).
///
/// ```
/// use memdir::extract::{parse_operations, OperationKind};
/// let reply = r#"{"operations":[{"op":"delete","file":"a.md"},{"op":"explode"}]}"#;
/// let parsed = parse_operations(reply).unwrap();
/// assert_eq!(parsed.operations[0].kind, OperationKind::Delete);
/// assert_eq!(parsed.rejected[0].code, "MALFORMED_OPERATION");
/// assert!(parse_operations("Sure! Here you go").is_err());
/// ```
pub fn parse_operations(reply: &str) -> Result<ParsedReply> {
    if reply.len() > MAX_REPLY_BYTES {
        return Err(Error::new(
            Code::HostLlm,
            format!("the model's reply is longer than {MAX_REPLY_BYTES} bytes"),
        ));
    }
    let value = parse(strip_code_fence(reply)).map_err(|e| {
        Error::new(
            Code::HostLlm,
            format!("the model's reply is not JSON ({})", e.message),
        )
    })?;
    let items = value
        .get("operations")
        .and_then(Json::as_array)
        .ok_or_else(|| Error::new(Code::HostLlm, "the model's reply has no `operations` array"))?;
    let mut parsed = ParsedReply::default();
    for (index, item) in items.iter().enumerate() {
        match parse_item(index, item) {
            Ok(op) => parsed.operations.push(op),
            Err(why) => parsed.rejected.push(RejectedOperation::new(
                index,
                None,
                "MALFORMED_OPERATION",
                why,
            )),
        }
    }
    if let Json::Object(pairs) = value {
        parsed.object = pairs;
    }
    Ok(parsed)
}

/// Check a file name from the model: the key checks (NUL, encoded or Unicode traversal,
/// backslash, absolute), then the memory-file rules; a private file may not sit in `team/`.
fn check_file(scope: Scope, file: &str) -> Result<()> {
    sanitize_path_key(file)?;
    check_memory_file(file)?;
    if scope == Scope::Private && file.starts_with(TEAM_DIR) {
        return Err(Error::new(
            Code::InvalidMemory,
            "a private memory may not be in team/",
        ));
    }
    Ok(())
}

/// A reason in our words for a rejected file name (never the name itself).
fn file_reason(code: Code) -> &'static str {
    match code {
        Code::PathNullByte => "the file name contains a NUL byte",
        Code::PathUrlEncodedTraversal => "the file name hides traversal in URL encoding",
        Code::PathUnicodeTraversal => "the file name hides traversal in Unicode look-alikes",
        Code::PathBackslash => "the file name contains a backslash",
        Code::PathAbsolute => "the file name is absolute",
        Code::PathEscapes => "the file name leaves the memory directory",
        _ => "the file name is not a memory file name (relative, ending in .md, not the index)",
    }
}

fn check_fields(op: &MemoryOperation) -> std::result::Result<Option<MemoryType>, &'static str> {
    let memory_type = match &op.memory_type {
        Some(t) => {
            Some(MemoryType::parse(t).ok_or("`type` is not user, feedback, project or reference")?)
        }
        None => None,
    };
    if let Some(name) = &op.name {
        check_single_line("name", name).map_err(|_| "`name` must be one non-empty line")?;
    }
    if let Some(description) = &op.description {
        check_single_line("description", description)
            .map_err(|_| "`description` must be one non-empty line")?;
    }
    match op.kind {
        OperationKind::Create => {
            if memory_type.is_none()
                || op.name.is_none()
                || op.description.is_none()
                || op.body.is_none()
            {
                return Err("a create needs type, name, description and body");
            }
        }
        OperationKind::Update => {
            if op.memory_type.is_none()
                && op.name.is_none()
                && op.description.is_none()
                && op.body.is_none()
            {
                return Err("an update must change at least one field");
            }
        }
        OperationKind::Delete => {}
    }
    Ok(memory_type)
}

/// The labels of the secret rules that fire on any text of the operation.
fn secret_labels(op: &MemoryOperation) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    let texts = [
        Some(&op.file),
        op.name.as_ref(),
        op.description.as_ref(),
        op.body.as_ref(),
    ];
    for text in texts.into_iter().flatten() {
        for finding in scan_for_secrets(text) {
            if !labels.contains(&finding.label) {
                labels.push(finding.label);
            }
        }
    }
    labels
}

/// Check each operation: at most [`MAX_OPERATIONS`] (the rest `TOO_MANY_OPERATIONS`), a safe
/// memory file name (the path codes, `INVALID_MEMORY`), team scope only when `team_allowed`,
/// one operation per file (`DUPLICATE_TARGET`), the fields a kind needs with a valid type and
/// one-line name and description (`INVALID_MEMORY`), and no secret anywhere, in private memory
/// too (`SECRET_DETECTED`, naming the rules).
///
/// ```
/// use memdir::extract::{parse_operations, validate_operations};
/// let reply = r#"{"operations":[
///   {"op":"create","file":"user_role.md","type":"user","name":"Role","description":"Go dev","body":"x"},
///   {"op":"delete","file":"../../etc/passwd.md"}]}"#;
/// let (ok, rejected) = validate_operations(parse_operations(reply).unwrap().operations, false);
/// assert_eq!(ok[0].root_file, "user_role.md");
/// assert_eq!(rejected[0].code, "PATH_ESCAPES");
/// assert_eq!(rejected[0].file, None);
/// ```
pub fn validate_operations(
    operations: Vec<MemoryOperation>,
    team_allowed: bool,
) -> (Vec<ValidatedOperation>, Vec<RejectedOperation>) {
    let mut valid = Vec::new();
    let mut rejected = Vec::new();
    let mut targets: StrMap<()> = StrMap::new();
    for op in operations {
        let index = op.index;
        if index >= MAX_OPERATIONS {
            rejected.push(RejectedOperation::new(
                index,
                None,
                "TOO_MANY_OPERATIONS",
                format!("only the first {MAX_OPERATIONS} operations of a reply are applied"),
            ));
            continue;
        }
        if let Err(e) = check_file(op.scope, &op.file) {
            rejected.push(RejectedOperation::new(
                index,
                None,
                e.code.as_str(),
                file_reason(e.code),
            ));
            continue;
        }
        let root_file = match op.scope {
            Scope::Private => op.file.clone(),
            Scope::Team => format!("{TEAM_DIR}{}", op.file),
        };
        let labels = secret_labels(&op);
        // A file name that trips a rule is not repeated back either.
        let shown = scan_for_secrets(&op.file)
            .is_empty()
            .then(|| root_file.clone());
        if !labels.is_empty() {
            rejected.push(RejectedOperation::new(
                index,
                shown,
                Code::SecretDetected.as_str(),
                format!(
                    "contains potential secrets ({}); nothing of it was saved",
                    crate::jsstr::join(&labels, ", ")
                ),
            ));
            continue;
        }
        if op.scope == Scope::Team && !team_allowed {
            rejected.push(RejectedOperation::new(
                index,
                shown,
                Code::InvalidMemory.as_str(),
                "team memory is not enabled",
            ));
            continue;
        }
        if targets.insert(root_file.clone(), ()).is_some() {
            rejected.push(RejectedOperation::new(
                index,
                shown,
                "DUPLICATE_TARGET",
                "an earlier operation of this reply already targets this file",
            ));
            continue;
        }
        let memory_type = match check_fields(&op) {
            Ok(t) => t,
            Err(why) => {
                rejected.push(RejectedOperation::new(
                    index,
                    shown,
                    Code::InvalidMemory.as_str(),
                    why,
                ));
                continue;
            }
        };
        valid.push(ValidatedOperation {
            index,
            kind: op.kind,
            scope: op.scope,
            file: op.file,
            root_file,
            memory_type,
            name: op.name,
            description: op.description,
            body: op.body,
        });
    }
    (valid, rejected)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn op(kind: OperationKind, file: &str) -> MemoryOperation {
        MemoryOperation {
            index: 0,
            kind,
            file: file.to_owned(),
            scope: Scope::Private,
            memory_type: None,
            name: None,
            description: None,
            body: None,
        }
    }

    #[test]
    fn fences_and_shapes() {
        assert_eq!(strip_code_fence("```\n{}\n```\n"), "{}");
        assert_eq!(strip_code_fence("```{}```"), "```{}```");
        let parsed = parse_operations(
            r#"{"operations":[1,{"op":"create"},{"op":"update","file":"a.md","name":3},
               {"op":"update","file":"a.md","scope":"shared"},{"op":"update","file":"a.md","body":null}]}"#,
        )
        .unwrap();
        let codes: Vec<usize> = parsed.rejected.iter().map(|r| r.index).collect();
        assert_eq!(codes, vec![0, 1, 2, 3]);
        assert_eq!(parsed.operations.len(), 1);
        assert_eq!(parsed.operations[0].body, None);
        assert_eq!(
            parse_operations(r#"{"ops":[]}"#).unwrap_err().code,
            Code::HostLlm
        );
        let huge = format!("{{\"operations\":[\"{}\"]}}", "x".repeat(MAX_REPLY_BYTES));
        assert_eq!(parse_operations(&huge).unwrap_err().code, Code::HostLlm);
    }

    #[test]
    fn hostile_names_are_rejected_with_their_code() {
        let cases = [
            ("/etc/passwd.md", "PATH_ABSOLUTE"),
            ("a/../../x.md", "PATH_ESCAPES"),
            ("%2e%2e%2fx.md", "PATH_URL_ENCODED_TRAVERSAL"),
            ("．．／x.md", "PATH_UNICODE_TRAVERSAL"),
            ("a\\b.md", "PATH_BACKSLASH"),
            ("a\0.md", "PATH_NULL_BYTE"),
            ("MEMORY.md", "INVALID_MEMORY"),
            ("notes.txt", "INVALID_MEMORY"),
            ("team/x.md", "INVALID_MEMORY"),
        ];
        for (file, code) in cases {
            let (ok, rejected) = validate_operations(vec![op(OperationKind::Delete, file)], true);
            assert!(ok.is_empty(), "{file:?}");
            assert_eq!(rejected[0].code, code, "{file:?}");
            assert!(!rejected[0].reason.contains(file));
        }
    }

    #[test]
    fn secrets_duplicates_and_fields() {
        let secret = format!("ghp_{}", "a1B2".repeat(9));
        let mut with_secret = op(OperationKind::Update, "a.md");
        with_secret.body = Some(format!("token {secret}"));
        let mut team = op(OperationKind::Delete, "t.md");
        team.scope = Scope::Team;
        let mut bad_type = op(OperationKind::Update, "c.md");
        bad_type.memory_type = Some("User".into());
        let ops = vec![
            with_secret,
            op(OperationKind::Delete, "b.md"),
            op(OperationKind::Delete, "b.md"),
            team,
            bad_type,
            op(OperationKind::Update, "d.md"),
            op(OperationKind::Create, "e.md"),
        ];
        let ops = ops
            .into_iter()
            .enumerate()
            .map(|(i, mut o)| {
                o.index = i;
                o
            })
            .collect();
        let (ok, rejected) = validate_operations(ops, false);
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].root_file, "b.md");
        let codes: Vec<&str> = rejected.iter().map(|r| r.code.as_str()).collect();
        assert_eq!(
            codes,
            [
                "SECRET_DETECTED",
                "DUPLICATE_TARGET",
                "INVALID_MEMORY",
                "INVALID_MEMORY",
                "INVALID_MEMORY",
                "INVALID_MEMORY"
            ]
        );
        assert!(rejected[0].reason.contains("GitHub PAT"));
        assert!(!rejected[0].reason.contains(&secret));
        assert_eq!(rejected[0].file.as_deref(), Some("a.md"));
    }
}
