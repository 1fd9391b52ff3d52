//! The shipped TypeScript declarations (`src/wasm/ts.rs`) checked against the Rust output types:
//! a sample of each output type is serialized (serde_yaml stands in for the JS serializer: both
//! go through the same `Serialize` impls, so they see the same keys) and its keys are compared
//! with the declaration of the same name. A Rust field renamed without its declaration, or a
//! declared field the Rust type no longer writes, fails here.

use memdir::consolidate::{
    ApplyReport, Changeset, ConsolidateOutcome, ConsolidateSkip, FileCreate, FileDelete,
    FileUpdate, IndexChange,
};
use memdir::extract::{ExtractOutcome, ExtractStatus, RejectedOperation, SkipReason};
use memdir::lint::{LintFinding, LintReport, Severity};
use memdir::memory_tool::{MemoryToolCommand, MemoryToolOutcome};
use memdir::recall::{
    AnsweredBy, LexicalWhy, Recall, RecallOutcome, RecallWhy, RecalledMemory, SemanticWhy,
    SurfacedMemory, TermWhy,
};
use memdir::store::{
    DeletedMemory, IndexView, IndexWarning, ListedMemory, MemoryChanges, Proposal, SaveInput,
    SaveOutcome, SavedMemory, Scope,
};
use memdir::sync::{PullOutcome, PushOutcome, SecretSkip, SkippedEntry};
use memdir::{Code, EntrypointTruncation, IndexEntry, MemoryHeader, MemoryType};
use serde::Serialize;
use std::collections::BTreeMap;

const TS_RS: &str = include_str!("../src/wasm/ts.rs");

/// One object shape: each key and whether it is optional.
type Shape = BTreeMap<String, bool>;

/// The declarations: the TS text of every `export interface` and `export type`.
struct Decls {
    interfaces: BTreeMap<String, (Option<String>, String)>,
    aliases: BTreeMap<String, String>,
}

/// The TS text inside `ts.rs` with its comments removed.
fn ts_text() -> String {
    let start = TS_RS.find("r#\"").expect("ts.rs holds a raw string") + 3;
    let end = TS_RS[start..].find("\"#").expect("the raw string ends") + start;
    let mut out = String::new();
    let mut rest = &TS_RS[start..end];
    while let Some(at) = rest.find("/*") {
        out.push_str(&rest[..at]);
        let close = rest[at..].find("*/").expect("comments close") + at + 2;
        rest = &rest[close..];
    }
    out.push_str(rest);
    out.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The index just past the brace matching the one at `open`.
fn matching(text: &str, open: usize) -> usize {
    let mut depth = 0i32;
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + i + 1;
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced braces in the declarations")
}

/// Split `text` at `sep` outside brackets and string literals.
fn split_top(text: &str, sep: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0i32;
    let mut quoted = false;
    let mut prev = ' ';
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '{' | '(' | '[' | '<' if !quoted => depth += 1,
            '>' if !quoted && prev == '=' => {}
            '}' | ')' | ']' | '>' if !quoted => depth -= 1,
            _ => {}
        }
        if c == sep && depth == 0 && !quoted {
            parts.push(String::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(c);
        }
        prev = c;
    }
    parts
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

fn parse_decls() -> Decls {
    let text = ts_text();
    let mut decls = Decls {
        interfaces: BTreeMap::new(),
        aliases: BTreeMap::new(),
    };
    let mut at = 0;
    while let Some(found) = text[at..].find("export ") {
        let start = at + found + "export ".len();
        let rest = &text[start..];
        if let Some(decl) = rest.strip_prefix("interface ") {
            let open = start + "interface ".len() + decl.find('{').expect("an interface body");
            let head = text[start + "interface ".len()..open].trim();
            let (name, extends) = match head.split_once(" extends ") {
                Some((name, base)) => (name.trim(), Some(base.trim().to_owned())),
                None => (head, None),
            };
            let close = matching(&text, open);
            decls.interfaces.insert(
                name.to_owned(),
                (extends, text[open + 1..close - 1].to_owned()),
            );
            at = close;
        } else if let Some(decl) = rest.strip_prefix("type ") {
            let eq = decl.find('=').expect("a type alias");
            let name = decl[..eq].trim();
            let body_start = start + "type ".len() + eq + 1;
            let mut end = body_start;
            let mut depth = 0i32;
            for (i, c) in text[body_start..].char_indices() {
                match c {
                    '{' | '(' | '[' => depth += 1,
                    '}' | ')' | ']' => depth -= 1,
                    ';' if depth == 0 => {
                        end = body_start + i;
                        break;
                    }
                    _ => {}
                }
            }
            let generic = name.contains('<');
            if !generic {
                decls
                    .aliases
                    .insert(name.to_owned(), text[body_start..end].trim().to_owned());
            }
            at = end;
        } else {
            at = start;
        }
    }
    decls
}

/// The keys of an object-literal body (`a: T; b?: U`).
fn members(body: &str) -> Shape {
    let mut shape = Shape::new();
    for line in split_top(body, ';') {
        for member in split_top(&line, ',') {
            let Some(colon) = member.find([':', '(']) else {
                continue;
            };
            let key = member[..colon].trim();
            let (key, optional) = match key.strip_suffix('?') {
                Some(key) => (key, true),
                None => (key, false),
            };
            if !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_') {
                shape.insert(key.to_owned(), optional);
            }
        }
    }
    shape
}

impl Decls {
    /// Every object shape a type expression allows (a union gives one per alternative).
    fn shapes(&self, expr: &str) -> Vec<Shape> {
        let expr = expr.trim();
        let alternatives = split_top(expr, '|');
        if alternatives.len() > 1 {
            return alternatives.iter().flat_map(|a| self.shapes(a)).collect();
        }
        let parts = split_top(expr, '&');
        if parts.len() > 1 {
            let mut out = vec![Shape::new()];
            for part in parts {
                let mut next = Vec::new();
                for base in &out {
                    for shape in self.shapes(&part) {
                        let mut merged = base.clone();
                        merged.extend(shape);
                        next.push(merged);
                    }
                }
                out = next;
            }
            return out;
        }
        if let Some(inner) = expr.strip_prefix('(').and_then(|e| e.strip_suffix(')')) {
            return self.shapes(inner);
        }
        if let Some(body) = expr.strip_prefix('{').and_then(|e| e.strip_suffix('}')) {
            return vec![members(body)];
        }
        if let Some((base, body)) = self.interfaces.get(expr) {
            let mut shape = members(body);
            if let Some(base) = base {
                for parent in self.shapes(base) {
                    shape.extend(parent);
                }
            }
            return vec![shape];
        }
        if let Some(alias) = self.aliases.get(expr) {
            return self.shapes(alias);
        }
        panic!("no object declaration `{expr}` in src/wasm/ts.rs")
    }
}

/// The keys `value` serializes with (the top level of its object).
fn keys_of(value: &impl Serialize) -> Vec<String> {
    match serde_yaml::to_value(value).expect("serializable") {
        serde_yaml::Value::Mapping(map) => map
            .keys()
            .map(|k| k.as_str().expect("string keys").to_owned())
            .collect(),
        other => panic!("not an object: {other:?}"),
    }
}

/// Fails unless one shape declared for `name` has exactly `value`'s keys (plus `added`, which
/// the boundary adds) except for optional keys it may leave out.
fn check(decls: &Decls, name: &str, value: &impl Serialize, added: &[&str]) {
    let mut keys = keys_of(value);
    keys.extend(added.iter().map(|k| (*k).to_owned()));
    let shapes = decls.shapes(name);
    let fits = |shape: &Shape| {
        keys.iter().all(|k| shape.contains_key(k))
            && shape
                .iter()
                .all(|(k, optional)| *optional || keys.contains(k))
    };
    assert!(
        shapes.iter().any(fits),
        "`{name}`: the Rust type writes {keys:?}, the declaration in src/wasm/ts.rs allows {shapes:?}"
    );
}

fn warning() -> IndexWarning {
    IndexWarning {
        line_count: 201,
        byte_count: 9000,
        was_line_truncated: true,
        was_byte_truncated: false,
    }
}

fn rejected() -> RejectedOperation {
    RejectedOperation {
        index: 0,
        file: Some("a.md".into()),
        code: "INVALID_MEMORY".into(),
        reason: "bad".into(),
    }
}

fn changeset() -> Changeset {
    Changeset {
        create: vec![FileCreate {
            file: "a.md".into(),
            content: "x".into(),
        }],
        update: vec![FileUpdate {
            file: "b.md".into(),
            before: "x".into(),
            after: "y".into(),
        }],
        delete: vec![FileDelete {
            file: "c.md".into(),
            before: "z".into(),
        }],
        index: Some(IndexChange {
            before: Some("old".into()),
            after: "new".into(),
        }),
        summary: "tidy".into(),
        rejected: vec![rejected()],
    }
}

fn apply_report() -> ApplyReport {
    ApplyReport {
        created: 1,
        updated: 1,
        deleted: 1,
        index_changed: true,
        index_warning: Some(warning()),
    }
}

fn save_input() -> SaveInput {
    SaveInput {
        name: "Role".into(),
        description: "Senior Go dev".into(),
        memory_type: "user".into(),
        body: "b".into(),
        file: Some("user_role.md".into()),
        scope: Scope::Team,
        skip_index: true,
        replace: true,
    }
}

fn proposals() -> Vec<Proposal> {
    vec![
        Proposal::Save(save_input()),
        Proposal::Update {
            file: "a.md".into(),
            changes: MemoryChanges {
                name: Some("n".into()),
                description: Some("d".into()),
                memory_type: Some("user".into()),
                body: Some("b".into()),
                skip_index: true,
            },
        },
        Proposal::Delete {
            file: "a.md".into(),
        },
    ]
}

#[test]
fn every_output_type_matches_its_typescript_declaration() {
    let d = parse_decls();
    let truncation: EntrypointTruncation = memdir::truncate_entrypoint("- a", &Default::default());
    check(&d, "EntrypointTruncation", &truncation, &[]);
    let entry = IndexEntry {
        title: "Role".into(),
        file: "user_role.md".into(),
        hook: "Senior".into(),
    };
    check(&d, "IndexEntry", &entry, &[]);
    let header = MemoryHeader {
        filename: "user_role.md".into(),
        file_path: "/m/user_role.md".into(),
        mtime_ms: 1.0,
        description: Some("d".into()),
        memory_type: Some(MemoryType::User),
        name: Some("Role".into()),
        body_head: String::new(),
    };
    check(&d, "MemoryHeader", &header, &[]);
    let page = memdir::store::ScanPage {
        headers: vec![header.clone()],
        total: 3,
    };
    check(&d, "ScanPage", &page, &[]);
    let lexical = LexicalWhy {
        score: 0.5,
        terms: vec![TermWhy {
            term: "deploy".into(),
            fields: vec!["name", "body"],
        }],
    };
    let why = RecallWhy {
        score: 0.6,
        lexical: Some(lexical.clone()),
        semantic: Some(SemanticWhy { cosine: 0.7 }),
    };
    let recalled = RecalledMemory {
        path: "/m/a.md".into(),
        mtime_ms: 1.0,
        why: Some(why.clone()),
    };
    check(&d, "RecalledMemory", &recalled, &[]);
    check(&d, "RecallWhy", &why, &[]);
    check(&d, "LexicalWhy", &lexical, &[]);
    let recall = Recall {
        memories: vec![recalled],
        answered_by: AnsweredBy::Lexical,
        outcome: RecallOutcome::Ok,
    };
    check(&d, "Recall", &recall, &[]);
    let surfaced = SurfacedMemory {
        path: "/m/a.md".into(),
        content: "c".into(),
        mtime_ms: 1.0,
        header: "h".into(),
        limit: Some(3),
    };
    // `text` is the rendered reminder the boundary adds (src/wasm/recall.rs, `SurfacedOut`).
    check(&d, "SurfacedMemory", &surfaced, &["text"]);
    let finding = LintFinding {
        code: "SECRET",
        severity: Severity::Error,
        message: "m".into(),
        file: Some("a.md".into()),
        line: Some(1),
        related: vec!["b.md".into()],
    };
    check(&d, "LintFinding", &finding, &[]);
    let report = LintReport {
        findings: vec![finding],
        files_checked: 1,
    };
    check(&d, "LintReport", &report, &[]);
    check(&d, "RejectedOperation", &rejected(), &[]);
    let outcome = ExtractOutcome {
        status: ExtractStatus::Skipped {
            reason: SkipReason::Throttled,
        },
        message_count: 2,
        created: vec!["a.md".into()],
        updated: vec![],
        deleted: vec![],
        proposals: proposals(),
        rejected: vec![rejected()],
        index_warnings: vec![("MEMORY.md".into(), warning())],
        trailing: vec![],
    };
    check(&d, "ExtractOutcome", &outcome, &[]);
    check(&d, "Changeset", &changeset(), &[]);
    check(&d, "ApplyReport", &apply_report(), &[]);
    for outcome in [
        ConsolidateOutcome::Skipped {
            skip: ConsolidateSkip::TooSoon { hours_since: 2.0 },
        },
        ConsolidateOutcome::Skipped {
            skip: ConsolidateSkip::TooFewSessions {
                count: 1,
                needed: 5,
            },
        },
        ConsolidateOutcome::Skipped {
            skip: ConsolidateSkip::Locked,
        },
        ConsolidateOutcome::Ready {
            changeset: Box::new(changeset()),
            previous_consolidated_at: 1.0,
            sessions_reviewed: 5,
            applied: Some(apply_report()),
        },
    ] {
        check(&d, "ConsolidateOutcome", &outcome, &[]);
    }
    let command = MemoryToolCommand::View {
        path: "/memories".into(),
        view_range: Some([1, 2]),
    };
    check(&d, "MemoryToolCommand", &command, &[]);
    for outcome in [
        MemoryToolOutcome::Done { text: "t".into() },
        MemoryToolOutcome::Proposed {
            text: "t".into(),
            command,
        },
    ] {
        check(&d, "MemoryToolOutcome", &outcome, &[]);
    }
    let pull = PullOutcome {
        not_modified: false,
        server_has_content: true,
        files_written: 1,
        skipped: vec![SkippedEntry {
            key: "k".into(),
            reason: memdir::sync::SkipReason::InvalidKey(Code::PathEscapes),
        }],
        entries_over_cap: 0,
        overwritten: vec!["a.md".into()],
        saved_copies: vec![".conflicts/a.md.1".into()],
    };
    check(&d, "PullOutcome", &pull, &[]);
    let push = PushOutcome {
        files_uploaded: 1,
        conflict: false,
        conflict_retries: 0,
        put_batches: 1,
        skipped_secrets: vec![SecretSkip {
            path: "p".into(),
            rule_id: "github-pat",
            label: "GitHub PAT".into(),
        }],
        dropped_by_cap: 0,
        overwritten: vec!["a.md".into()],
        saved_copies: vec![".conflicts/a.md.1".into()],
    };
    check(&d, "PushOutcome", &push, &[]);
    for finding in memdir::secrets::scan_for_secrets(&format!("ghp_{}", "a".repeat(36))) {
        check(&d, "SecretFinding", &finding, &[]);
    }
    check(&d, "IndexWarning", &warning(), &[]);
    check(&d, "SaveInput", &save_input(), &[]);
    for proposal in proposals() {
        check(&d, "Proposal", &proposal, &[]);
        check(&d, "SaveOutcome", &SaveOutcome::Proposed(proposal), &[]);
    }
    let saved = SaveOutcome::Saved(SavedMemory {
        file: "a.md".into(),
        path: "/m/a.md".into(),
        scope: Scope::Private,
        created: true,
        index_warning: Some(warning()),
    });
    check(&d, "SaveOutcome", &saved, &[]);
    let deleted = SaveOutcome::Deleted(DeletedMemory {
        file: "a.md".into(),
        removed_file: true,
        removed_entry: true,
    });
    check(&d, "SaveOutcome", &deleted, &[]);
    let view = IndexView {
        path: "/m/MEMORY.md".into(),
        exists: true,
        content: "c".into(),
        line_count: 1,
        byte_count: 1,
        was_line_truncated: false,
        was_byte_truncated: false,
    };
    check(&d, "IndexView", &view, &[]);
    let listed = ListedMemory {
        entry,
        file: "a.md".into(),
        scope: Scope::Team,
        exists: true,
    };
    check(&d, "ListedMemory", &listed, &[]);
}

#[test]
fn the_checker_sees_a_renamed_field() {
    // The same check over a declaration that lacks a field the Rust type writes fails.
    let mut d = parse_decls();
    let (_, body) = d.interfaces.get_mut("IndexWarning").expect("declared");
    *body = body.replace("lineCount", "lines");
    let result = std::panic::catch_unwind(|| check(&d, "IndexWarning", &warning(), &[]));
    assert!(result.is_err());
}

#[test]
fn the_readme_error_table_lists_exactly_the_codes() {
    let readme = include_str!("../README.md");
    let table = readme
        .split("| code | meaning |")
        .nth(1)
        .expect("README has the error-code table");
    let mut listed: Vec<&str> = table
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .flat_map(|line| {
            let first = line.split('|').nth(1).unwrap_or("");
            first.split('`').skip(1).step_by(2)
        })
        .collect();
    listed.sort_unstable();
    let mut codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    codes.sort_unstable();
    assert_eq!(listed, codes);
}

/// A deserializer that only answers what an enum's `Deserialize` asks of it: the serde names of
/// its variants (its `rename_all` table), returned as the error.
struct VariantNames;

impl<'de> serde::Deserializer<'de> for VariantNames {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not an enum"))
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom(variants.join("\n")))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier
        ignored_any
    }
}

/// The strings JS reads and writes for the enum `T`, from its serde attributes.
fn serde_names<T: serde::de::DeserializeOwned>() -> std::collections::BTreeSet<String> {
    let Err(names) = T::deserialize(VariantNames) else {
        panic!("an enum answers with its variants")
    };
    names.to_string().lines().map(str::to_owned).collect()
}

/// The string literals of a declared type: the alias `owner`, or the type of member `key` of
/// the interface `owner` (an alias it names is followed).
fn declared_literals(
    decls: &Decls,
    owner: &str,
    key: Option<&str>,
) -> std::collections::BTreeSet<String> {
    let mut text = match key {
        None => decls.aliases.get(owner).cloned().expect("declared alias"),
        Some(key) => {
            let (_, body) = decls.interfaces.get(owner).expect("declared interface");
            split_top(body, ';')
                .into_iter()
                .find_map(|member| {
                    let (name, ty) = member.split_once(':')?;
                    (name.trim().trim_end_matches('?') == key).then(|| ty.trim().to_owned())
                })
                .expect("declared member")
        }
    };
    if let Some(alias) = decls.aliases.get(&text) {
        text = alias.clone();
    }
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_enum_is_declared_with_its_serde_strings() {
    use memdir::host::Role;
    use memdir::prompt::{AgentScope, PromptMode, SearchForm};
    use memdir::WriteMode;
    let d = parse_decls();
    let pairs = [
        (
            MemoryType::NAMES.map(str::to_owned).into(),
            declared_literals(&d, "MemoryType", None),
        ),
        (serde_names::<Scope>(), declared_literals(&d, "Scope", None)),
        (
            serde_names::<WriteMode>(),
            declared_literals(&d, "MemdirOptions", Some("writeMode")),
        ),
        (
            serde_names::<PromptMode>(),
            declared_literals(&d, "PromptConfig", Some("mode")),
        ),
        (
            serde_names::<PromptMode>(),
            declared_literals(&d, "PromptOptions", Some("mode")),
        ),
        (
            serde_names::<AgentScope>(),
            declared_literals(&d, "PromptConfig", Some("agentScope")),
        ),
        (
            serde_names::<AgentScope>(),
            declared_literals(&d, "PromptOptions", Some("agentScope")),
        ),
        (
            serde_names::<SearchForm>(),
            declared_literals(&d, "PromptConfig", Some("searchingPastContext")),
        ),
        (
            serde_names::<Role>(),
            declared_literals(&d, "ConversationMessage", Some("role")),
        ),
    ];
    for (rust, ts) in pairs {
        assert!(!rust.is_empty());
        assert_eq!(rust, ts);
    }
}
