//! The changeset consolidation proposes: files to create, update and delete, and the new
//! index, each with the text it expects to find, built from the model's reply. Pure.

use crate::error::{Code, Error, Result};
use crate::extract::{parse_operations, validate_operations, OperationKind, RejectedOperation};
use crate::frontmatter::{format_memory_file, parse_frontmatter, MemoryFields};
use crate::index_entry::{remove_index_entry, upsert_index_entry, IndexEntry};
use crate::json::Json;
use crate::path_key::sanitize_path_key;
use crate::secrets::scan_for_secrets;
use crate::store::names::{check_memory_file, is_log_path};
use crate::store::TEAM_DIR;
use crate::types::ENTRYPOINT_NAME;
use serde::Serialize;

/// A file to create.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileCreate {
    /// Relative to the memory directory.
    pub file: String,
    /// Its text.
    pub content: String,
}

/// A file to change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileUpdate {
    /// Relative to the memory directory.
    pub file: String,
    /// The text it must have now.
    pub before: String,
    /// The text it gets.
    pub after: String,
}

/// A file to delete.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDelete {
    /// Relative to the memory directory.
    pub file: String,
    /// The text it must have now.
    pub before: String,
}

/// The new `MEMORY.md`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexChange {
    /// The text it must have now; `None` when it must not exist.
    pub before: Option<String>,
    /// The text it gets.
    pub after: String,
}

/// A reviewable set of changes to the private memory directory (`team/` and `logs/` are never
/// touched). [`super::Consolidator::apply_changeset`] writes it only if every `before` still matches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Changeset {
    /// Files to create.
    pub create: Vec<FileCreate>,
    /// Files to change.
    pub update: Vec<FileUpdate>,
    /// Files to delete.
    pub delete: Vec<FileDelete>,
    /// The new index, when it changes.
    pub index: Option<IndexChange>,
    /// The model's summary of what it did (for people).
    pub summary: String,
    /// Operations of the reply that were left out, with reasons.
    pub rejected: Vec<RejectedOperation>,
}

impl Changeset {
    /// True when applying it would change nothing.
    pub fn is_empty(&self) -> bool {
        self.create.is_empty()
            && self.update.is_empty()
            && self.delete.is_empty()
            && self.index.is_none()
    }
}

/// A memory file as shown to the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CurrentFile {
    /// Relative to the memory directory.
    pub file: String,
    /// Its whole text.
    pub text: String,
    /// False when the model saw only part of it (then it may not replace the body).
    pub shown_whole: bool,
}

/// Check a changeset file name: a memory file name as the store checks it (the key checks and
/// `logs/` included), not in `team/`.
pub fn check_changeset_file(file: &str) -> Result<()> {
    sanitize_path_key(file)?;
    check_memory_file(file)?;
    if file.starts_with(TEAM_DIR) || is_log_path(file) {
        return Err(Error::new(
            Code::InvalidMemory,
            "consolidation does not write team memory or daily logs",
        ));
    }
    Ok(())
}

fn reject(index: usize, file: &str, code: Code, reason: &str) -> RejectedOperation {
    RejectedOperation::new(index, Some(file.to_owned()), code.as_str(), reason)
}

/// Build the changeset of a consolidation reply: `{"operations":[…], "index"?: "<new
/// MEMORY.md>", "summary"?: "…"}`, operations as in extraction ([`validate_operations`], team
/// scope refused). A create of an existing file, an update or delete of a missing one, a body
/// replacement of a file shown only in part, and anything in `team/` or `logs/` are rejected.
/// Without a usable `index` (absent, not a string, or holding a secret) the index is derived
/// from `index`: entries upserted for created and updated files, removed for deleted ones
/// (nothing when `skip_index`). Rejections come in reply order; one for the `index` key counts
/// as the position after the last operation.
///
/// ```
/// use memdir::consolidate::{build_changeset, CurrentFile};
/// let old = "---\nname: A\ndescription: old\ntype: user\n---\n\nbody\n";
/// let files = [CurrentFile { file: "a.md".into(), text: old.into(), shown_whole: true }];
/// let reply = r#"{"operations":[{"op":"update","file":"a.md","description":"new"}],"summary":"ok"}"#;
/// let cs = build_changeset(reply, &files, Some("- [A](a.md) — old\n"), false).unwrap();
/// assert_eq!(cs.update[0].after, "---\nname: A\ndescription: new\ntype: user\n---\n\nbody\n");
/// assert_eq!(cs.index.unwrap().after, "- [A](a.md) — new\n");
/// ```
pub fn build_changeset(
    reply: &str,
    files: &[CurrentFile],
    index: Option<&str>,
    skip_index: bool,
) -> Result<Changeset> {
    let parsed = parse_operations(reply)?;
    let op_count = parsed.operations.len() + parsed.rejected.len();
    let object = Json::Object(parsed.object);
    let (valid, rejected) = validate_operations(parsed.operations, false);
    let mut cs = Changeset {
        rejected: parsed.rejected,
        summary: object
            .get("summary")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_owned(),
        ..Changeset::default()
    };
    cs.rejected.extend(rejected);
    let mut derived_index = index.unwrap_or("").to_owned();
    for op in valid {
        let file = op.root_file.as_str();
        if check_changeset_file(file).is_err() {
            cs.rejected.push(reject(
                op.index,
                file,
                Code::InvalidMemory,
                "consolidation does not write team memory or daily logs",
            ));
            continue;
        }
        let current = files.iter().find(|f| f.file == file);
        match (op.kind, current) {
            (OperationKind::Create, Some(_)) => cs.rejected.push(reject(
                op.index,
                file,
                Code::AlreadyExists,
                "the file already exists; use update to change it",
            )),
            (OperationKind::Update | OperationKind::Delete, None) => cs.rejected.push(reject(
                op.index,
                file,
                Code::NotFound,
                "there is no such memory",
            )),
            (OperationKind::Create, None) => {
                let fields = MemoryFields {
                    name: op.name.clone(),
                    description: op.description.clone(),
                    memory_type: op.memory_type,
                };
                let body = op.body.as_deref().unwrap_or("");
                cs.create.push(FileCreate {
                    file: file.to_owned(),
                    content: format_memory_file(&fields, body),
                });
                derived_index = upsert(&derived_index, file, &fields);
            }
            (OperationKind::Update, Some(current)) => {
                if op.body.is_some() && !current.shown_whole {
                    cs.rejected.push(reject(
                        op.index,
                        file,
                        Code::InvalidMemory,
                        "the file was shown only in part, so its body may not be replaced",
                    ));
                    continue;
                }
                let parsed = parse_frontmatter(&current.text);
                let fields = MemoryFields {
                    name: op.name.clone().or(parsed.header.name),
                    description: op.description.clone().or(parsed.header.description),
                    memory_type: op.memory_type.or(parsed.header.memory_type),
                };
                if fields.name.is_none()
                    || fields.description.is_none()
                    || fields.memory_type.is_none()
                {
                    cs.rejected.push(reject(
                        op.index,
                        file,
                        Code::InvalidMemory,
                        "the memory would lack a name, description or type",
                    ));
                    continue;
                }
                let body = op.body.as_deref().unwrap_or(&parsed.body);
                let after = format_memory_file(&fields, body);
                derived_index = upsert(&derived_index, file, &fields);
                if after != current.text {
                    cs.update.push(FileUpdate {
                        file: file.to_owned(),
                        before: current.text.clone(),
                        after,
                    });
                }
            }
            (OperationKind::Delete, Some(current)) => {
                cs.delete.push(FileDelete {
                    file: file.to_owned(),
                    before: current.text.clone(),
                });
                derived_index = remove_index_entry(&derived_index, file);
            }
        }
    }
    let given = match object.get("index") {
        Some(Json::String(text)) if scan_for_secrets(text).is_empty() => Some(text.clone()),
        Some(Json::String(_)) => {
            cs.rejected.push(reject(
                op_count,
                ENTRYPOINT_NAME,
                Code::SecretDetected,
                "the new index contains potential secrets; it was derived instead",
            ));
            None
        }
        _ => None,
    };
    let after = match given {
        Some(text) => Some(text),
        None if !skip_index => Some(derived_index),
        None => None,
    };
    crate::sort::sort_by_key(&mut cs.rejected, |r| r.index);
    if let Some(after) = after {
        if after != index.unwrap_or("") {
            cs.index = Some(IndexChange {
                before: index.map(str::to_owned),
                after,
            });
        }
    }
    Ok(cs)
}

fn upsert(index: &str, file: &str, fields: &MemoryFields) -> String {
    upsert_index_entry(
        index,
        &IndexEntry {
            title: fields.name.clone().unwrap_or_default(),
            file: file.to_owned(),
            hook: fields.description.clone().unwrap_or_default(),
        },
    )
}

/// Check a changeset before it is applied: valid file names, each file in one list only.
pub(crate) fn check_changeset(cs: &Changeset) -> Result<()> {
    let mut seen: Vec<&str> = Vec::new(); // kept sorted
    let files = cs
        .create
        .iter()
        .map(|c| c.file.as_str())
        .chain(cs.update.iter().map(|u| u.file.as_str()))
        .chain(cs.delete.iter().map(|d| d.file.as_str()));
    for file in files {
        check_changeset_file(file)?;
        let Err(at) = seen.binary_search(&file) else {
            return Err(Error::new(
                Code::InvalidInput,
                format!("the changeset touches {file:?} more than once"),
            ));
        };
        seen.insert(at, file);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn file(name: &str, text: &str) -> CurrentFile {
        CurrentFile {
            file: name.into(),
            text: text.into(),
            shown_whole: true,
        }
    }

    #[test]
    fn builds_creates_updates_deletes_and_the_index() {
        let a = "---\nname: A\ndescription: a\ntype: user\n---\n\nbody a\n";
        let b = "---\nname: B\ndescription: b\ntype: project\n---\n\nbody b\n";
        let files = [
            file("a.md", a),
            file("b.md", b),
            file("d.md", a),
            file("logs/2024/01/x.md", "log"),
        ];
        let reply = r#"{"operations":[
            {"op":"create","file":"c.md","type":"feedback","name":"C","description":"c","body":"rule"},
            {"op":"update","file":"a.md","body":"merged"},
            {"op":"delete","file":"b.md"},
            {"op":"create","file":"d.md","type":"user","name":"A","description":"a","body":"x"},
            {"op":"delete","file":"nope.md"},
            {"op":"delete","file":"logs/2024/01/x.md"}
        ],"summary":"merged b into a"}"#;
        let index = "# Index\n- [A](a.md) — a\n- [B](b.md) — b\n";
        let cs = build_changeset(reply, &files, Some(index), false).unwrap();
        assert_eq!(cs.create[0].file, "c.md");
        assert!(cs.create[0].content.starts_with("---\nname: C\n"));
        assert_eq!(
            cs.update[0].after,
            "---\nname: A\ndescription: a\ntype: user\n---\n\nmerged"
        );
        assert_eq!(cs.delete[0].before, b);
        assert_eq!(
            cs.index.as_ref().unwrap().after,
            "# Index\n- [A](a.md) — a\n- [C](c.md) — c\n"
        );
        let codes: Vec<&str> = cs.rejected.iter().map(|r| r.code.as_str()).collect();
        assert_eq!(codes, ["ALREADY_EXISTS", "NOT_FOUND", "INVALID_MEMORY"]);
        assert_eq!(cs.summary, "merged b into a");
    }

    #[test]
    fn given_index_and_partial_files() {
        let a = "---\nname: A\ndescription: a\ntype: user\n---\n\nbody a\n";
        let mut partial = file("a.md", a);
        partial.shown_whole = false;
        let reply = r#"{"operations":[{"op":"update","file":"a.md","body":"short"}],
                       "index":"- [A](a.md) — a\n"}"#;
        let cs = build_changeset(reply, &[partial], None, false).unwrap();
        assert!(cs.update.is_empty());
        assert_eq!(cs.rejected[0].code, "INVALID_MEMORY");
        let change = cs.index.unwrap();
        assert_eq!(
            (change.before, change.after.as_str()),
            (None, "- [A](a.md) — a\n")
        );
        let secret = format!("ghp_{}", "a1B2".repeat(9));
        let reply = format!(r#"{{"operations":[],"index":"- [K](k.md) — {secret}\n"}}"#);
        let cs = build_changeset(&reply, &[], Some(""), false).unwrap();
        assert!(cs.index.is_none());
        assert_eq!(cs.rejected[0].code, "SECRET_DETECTED");
        assert!(!format!("{cs:?}").contains(&secret));
    }
}
