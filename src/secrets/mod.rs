//! The secret scanner and write guard.
//!
//! 36 rules recognise the token formats of well-known services — cloud keys, AI API keys,
//! version-control tokens, chat tokens, package-registry tokens, observability and payment keys,
//! PEM private keys. [`scan_for_secrets`] says which rules fire (never what matched),
//! [`redact_secrets`] replaces each match with `[REDACTED]`, and [`check_write_for_secrets`] is
//! the guard every write into team memory goes through (and, unless the host turns it off,
//! every write into private memory: [`check_private_write_for_secrets`]): its error names the
//! rules' labels and never contains the secret.
//!
//! The matchers are hand-written (no regex engine): one pass over the text finds each rule's
//! literal anchor, and only there the full token shape is checked, with the JavaScript regex
//! semantics the reference relies on (ASCII `\b` `\w` `\d`, Unicode `\s`).
//!
//! ```
//! use memdir::secrets::{redact_secrets, scan_for_secrets};
//! let text = format!("token ghp_{}", "a1B2".repeat(9));
//! let found = scan_for_secrets(&text);
//! assert_eq!(found[0].rule_id, "github-pat");
//! assert_eq!(found[0].label, "GitHub PAT");
//! assert_eq!(redact_secrets(&text), "token [REDACTED]");
//! ```

mod pattern;
mod rules;
mod scan;

use serde::Serialize;

/// Text that replaces each secret in [`redact_secrets`].
pub const REDACTED: &str = "[REDACTED]";

/// Number of rules.
pub const RULE_COUNT: usize = rules::RULES.len();

/// One rule that fired: its id and its human label. Never the matched text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretFinding {
    /// The rule id, e.g. `github-pat`.
    pub rule_id: &'static str,
    /// The rule's label, e.g. `GitHub PAT`.
    pub label: String,
}

/// The rule ids, in evaluation order.
///
/// ```
/// let ids = memdir::secrets::rule_ids();
/// assert_eq!(ids.len(), 36);
/// assert_eq!(ids[0], "aws-access-token");
/// assert_eq!(ids[35], "private-key");
/// ```
pub fn rule_ids() -> Vec<&'static str> {
    rules::RULES.iter().map(|rule| rule.id).collect()
}

/// Which rules find a secret in `content`: at most one finding per rule, in rule order.
///
/// ```
/// let found = memdir::secrets::scan_for_secrets("nothing to see here");
/// assert!(found.is_empty());
/// ```
pub fn scan_for_secrets(content: &str) -> Vec<SecretFinding> {
    let found = scan::rules_matching(content);
    rules::RULES
        .iter()
        .zip(found)
        .filter(|(_, hit)| *hit)
        .map(|(rule, _)| SecretFinding {
            rule_id: rule.id,
            label: rule_label(rule.id),
        })
        .collect()
}

/// `content` with every match of every rule replaced by `[REDACTED]`, rule after rule. Where a
/// rule's match includes the delimiter around the token (a quote, a space), only the token is
/// replaced and the delimiter stays.
///
/// ```
/// let key = format!("AKIA{}", "Q".repeat(16));
/// assert_eq!(
///     memdir::secrets::redact_secrets(&format!("aws_key = \"{key}\"")),
///     "aws_key = \"[REDACTED]\"",
/// );
/// ```
pub fn redact_secrets(content: &str) -> String {
    let mut text = content.to_owned();
    let mut next_rule = 0;
    // Rules apply one after another, each to the text the previous ones left; the candidate
    // positions are recomputed only after a rule actually changed the text.
    while let Some((rule_index, matches)) = scan::all_matches(&text, next_rule).into_iter().next() {
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for m in matches {
            out.push_str(text.get(copied..m.secret.start).unwrap_or_default());
            out.push_str(REDACTED);
            copied = m.secret.end;
        }
        out.push_str(text.get(copied..).unwrap_or_default());
        text = out;
        next_rule = rule_index + 1;
    }
    text
}

/// Words a rule id spells differently from "first letter upper-cased".
const LABEL_WORDS: [(&str, &str); 17] = [
    ("aws", "AWS"),
    ("gcp", "GCP"),
    ("api", "API"),
    ("pat", "PAT"),
    ("ad", "AD"),
    ("tf", "TF"),
    ("oauth", "OAuth"),
    ("npm", "NPM"),
    ("pypi", "PyPI"),
    ("jwt", "JWT"),
    ("github", "GitHub"),
    ("gitlab", "GitLab"),
    ("openai", "OpenAI"),
    ("digitalocean", "DigitalOcean"),
    ("huggingface", "HuggingFace"),
    ("hashicorp", "HashiCorp"),
    ("sendgrid", "SendGrid"),
];

/// The human label of a rule id (known or not): the `-`-separated words, each spelled from the
/// table of special words or with its first letter upper-cased, joined with spaces.
///
/// ```
/// use memdir::secrets::secret_label;
/// assert_eq!(secret_label("github-fine-grained-pat"), "GitHub Fine Grained PAT");
/// assert_eq!(secret_label("hashicorp-tf-api-token"), "HashiCorp TF API Token");
/// assert_eq!(secret_label("my-custom-thing"), "My Custom Thing");
/// ```
pub fn secret_label(rule_id: &str) -> String {
    label_with(rule_id, |out, first| out.extend(first.to_uppercase()))
}

/// [`secret_label`] for the built-in rule ids, which are ASCII: the ASCII upper-casing gives the
/// same result without linking the Unicode case tables into the wasm module.
fn rule_label(rule_id: &'static str) -> String {
    label_with(rule_id, |out, first| out.push(first.to_ascii_uppercase()))
}

fn label_with(rule_id: &str, push_upper: fn(&mut String, char)) -> String {
    let mut label = String::with_capacity(rule_id.len());
    for (i, word) in rule_id.split('-').enumerate() {
        if i > 0 {
            label.push(' ');
        }
        match LABEL_WORDS.iter().find(|(w, _)| *w == word) {
            Some((_, spelled)) => label.push_str(spelled),
            None => {
                let mut chars = word.chars();
                if let Some(first) = chars.next() {
                    push_upper(&mut label, first);
                    label.push_str(chars.as_str());
                }
            }
        }
    }
    label
}

/// Why [`check_write_for_secrets`] refused a write: the message, which names the rules' labels
/// and never the secret. It becomes a [`crate::Error`] with code `SECRET_DETECTED` through
/// `From` (so `?` turns it into one); this module does not build library errors itself, since
/// the error type redacts its messages with this module's scanner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretRefusal {
    /// What to tell the caller.
    pub message: String,
}

/// The guard in front of every write into team memory (private memory has
/// [`check_private_write_for_secrets`]): `Ok` when `content` holds no secret, otherwise a [`SecretRefusal`] (as an error:
/// `SECRET_DETECTED`) with a message that lists the labels of the rules that fired and where
/// the write was going (`path_label`, e.g. `team memory` or a file name) — never the secret.
///
/// ```
/// use memdir::secrets::check_write_for_secrets;
/// assert!(check_write_for_secrets("team memory", "just notes").is_ok());
/// let secret = format!("npm_{}", "x".repeat(36));
/// let err = memdir::Error::from(check_write_for_secrets("team memory", &secret).unwrap_err());
/// assert_eq!(err.code, memdir::Code::SecretDetected);
/// assert!(err.message.starts_with("Content contains potential secrets (NPM Access Token)"));
/// assert!(!err.message.contains(&secret));
/// ```
pub fn check_write_for_secrets(path_label: &str, content: &str) -> Result<(), SecretRefusal> {
    refuse_secrets(
        content,
        path_label,
        "Whatever is saved there is visible to everyone who works on this repository. Take the \
         sensitive values out and write again.",
    )
}

/// The guard in front of writes into private memory (memory files, `MEMORY.md`, the daily
/// log), on by default: `Ok` when `content` holds no secret, otherwise a [`SecretRefusal`] (as
/// an error: `SECRET_DETECTED`) naming the rules' labels — never the secret. Private memory is
/// plain text on disk that is loaded into later conversations, so credentials stay out of it
/// unless the host turns the guard off.
///
/// ```
/// use memdir::secrets::check_private_write_for_secrets;
/// assert!(check_private_write_for_secrets("prefers pnpm").is_ok());
/// let secret = format!("ghp_{}", "k".repeat(36));
/// let err = memdir::Error::from(check_private_write_for_secrets(&secret).unwrap_err());
/// assert_eq!(err.code, memdir::Code::SecretDetected);
/// assert!(err.message.starts_with("Content contains potential secrets (GitHub PAT) and cannot be written to memory."));
/// assert!(!err.message.contains(&secret));
/// ```
pub fn check_private_write_for_secrets(content: &str) -> Result<(), SecretRefusal> {
    refuse_secrets(
        content,
        "memory",
        "Memory is plain text kept on disk and read into later conversations. Take the \
         sensitive values out (keep a pointer to where the secret lives instead) and write \
         again.",
    )
}

fn refuse_secrets(content: &str, path_label: &str, advice: &str) -> Result<(), SecretRefusal> {
    let findings = scan_for_secrets(content);
    if findings.is_empty() {
        return Ok(());
    }
    let labels: Vec<&str> = findings.iter().map(|f| f.label.as_str()).collect();
    let labels = crate::jsstr::join(&labels, ", ");
    Err(SecretRefusal {
        message: format!(
            "Content contains potential secrets ({labels}) and cannot be written to \
             {path_label}. {advice}"
        ),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_the_special_word_table() {
        let cases = [
            ("aws-access-token", "AWS Access Token"),
            ("azure-ad-client-secret", "Azure AD Client Secret"),
            ("digitalocean-pat", "DigitalOcean PAT"),
            ("openai-api-key", "OpenAI API Key"),
            ("huggingface-access-token", "HuggingFace Access Token"),
            ("github-oauth", "GitHub OAuth"),
            ("gitlab-deploy-token", "GitLab Deploy Token"),
            ("sendgrid-api-token", "SendGrid API Token"),
            ("pypi-upload-token", "PyPI Upload Token"),
            ("private-key", "Private Key"),
            ("", ""),
        ];
        for (id, label) in cases {
            assert_eq!(secret_label(id), label, "{id}");
        }
        assert_eq!(secret_label("émoi-x"), "Émoi X");
        assert_eq!(secret_label("ßig"), "SSig");
    }

    #[test]
    fn rule_labels_are_the_unicode_labels() {
        for rule in rules::RULES.iter() {
            assert!(rule.id.is_ascii(), "{}", rule.id);
            assert_eq!(rule_label(rule.id), secret_label(rule.id));
        }
    }

    #[test]
    fn there_are_36_distinct_rules() {
        let mut ids = rule_ids();
        crate::sort::sort(&mut ids);
        ids.dedup();
        assert_eq!(ids.len(), 36);
    }
}
