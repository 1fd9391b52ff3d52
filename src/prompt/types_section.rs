//! `## Types of memory`.
//!
//! Layout: heading, blank, one intro sentence, blank, then `<types>` holding four `<type>` blocks
//! whose children are indented four spaces: `<name>`, (combined only) `<scope>`, `<description>`,
//! `<when_to_save>`, `<how_to_use>`, (feedback and project) `<body_structure>`, `<examples>` with
//! `user:` / `assistant: [saves …]` pairs separated by blank lines; then `</types>`. The section
//! returned here has no trailing blank line (the assembler adds it).

use crate::types::MemoryType;

const INDENT: &str = "    ";

/// The fixed scope labels of the combined section, per type.
///
/// ```
/// use memdir::{prompt::scope_label, MemoryType};
/// assert_eq!(scope_label(MemoryType::User), "always private");
/// assert_eq!(scope_label(MemoryType::Reference), "usually team");
/// ```
pub fn scope_label(memory_type: MemoryType) -> &'static str {
    match memory_type {
        MemoryType::User => "always private",
        MemoryType::Feedback => {
            "private by default. Choose team only for a project-wide convention that every \
             contributor is expected to follow, never for one person's taste in style"
        }
        MemoryType::Project => "private or team, but strongly bias toward team",
        MemoryType::Reference => "usually team",
    }
}

struct TypeText {
    description: &'static str,
    when_to_save: &'static str,
    how_to_use: &'static str,
    body_structure: Option<&'static str>,
    /// `(user says, assistant saves)` pairs; `{scope}` is replaced by `private ` / `team ` / ``.
    examples: &'static [(&'static str, &'static str, &'static str)],
}

fn type_text(memory_type: MemoryType, combined: bool) -> TypeText {
    match memory_type {
        MemoryType::User => TypeText {
            description: "Facts about the person you are helping: their role, what they are \
                trying to achieve, what they already know well and where they are new. These let \
                you pitch explanations and suggestions at the right level. Keep them factual and \
                useful; leave out opinions or judgements about the person.",
            when_to_save: "When you learn something about the user's role, responsibilities, \
                expertise or goals that should change how you work with them.",
            how_to_use: if combined {
                "Let it shape how you explain things to this particular user and what you assume \
                 they know. Other people can read the team directory, so facts about one person \
                 stay in private memory."
            } else {
                "Let it shape how you explain things and what you assume. Someone meeting a \
                 language for the first time needs different help from the person who has \
                 maintained code in it for years."
            },
            body_structure: None,
            examples: &[
                (
                    "I mostly do data science; this is the first Rust service I've had to touch.",
                    "private",
                    "works mainly in data science and is new to Rust; explain borrow-checker \
                     problems with Python analogies",
                ),
                (
                    "I'm the on-call lead for the payments team this quarter.",
                    "private",
                    "on-call lead for payments this quarter; weighs incident risk in payment \
                     code heavily",
                ),
            ],
        },
        MemoryType::Feedback => TypeText {
            description: if combined {
                "Guidance from the user about how you should work: corrections when you got \
                 something wrong, and confirmations when an approach that was not obvious turned \
                 out right. Save both kinds, always with the reason behind them. Before saving a \
                 private feedback memory, make sure it does not contradict a team one."
            } else {
                "Guidance from the user about how you should work: corrections when you got \
                 something wrong, and confirmations when an approach that was not obvious turned \
                 out right. Save both kinds, always with the reason behind them, so you can \
                 handle the next similar case without asking again."
            },
            when_to_save: "Whenever the user corrects what you did or how you did it, or clearly \
                approves of a choice they might well have rejected. Phrase it as a rule you can \
                apply to the next case.",
            how_to_use: if combined {
                "Follow it from then on so nobody has to repeat it. Team feedback binds everyone \
                 working on the project; private feedback is about this user alone."
            } else {
                "Follow it from then on, so the user never has to say it twice."
            },
            body_structure: Some(
                "The rule itself first. Then a **Why:** line with the reason the user gave \
                 (often an earlier mistake or a firm preference), and a **How to apply:** line \
                 saying when and where the rule comes into play.",
            ),
            examples: if combined {
                &[
                    (
                        "Stop adding a summary at the end of every answer, I can read the diff.",
                        "private",
                        "no closing recap of changes. Why: the user reads the diff. How to \
                         apply: stop after the last change unless asked. Personal taste, so \
                         private",
                    ),
                    (
                        "Every migration in this repo has to be reversible, that's a team rule.",
                        "team",
                        "each database migration ships with a tested down step. Why: the team \
                         relies on safe rollbacks. How to apply: write the reverse migration \
                         with every schema change. Binds all contributors, so team",
                    ),
                ]
            } else {
                &[
                    (
                        "Stop adding a summary at the end of every answer, I can read the diff.",
                        "",
                        "no closing recap of changes. Why: the user reads the diff. How to \
                         apply: stop after the last change unless asked",
                    ),
                    (
                        "Good call putting that behind a feature flag instead of changing the \
                         default.",
                        "",
                        "risky behaviour changes go behind a feature flag rather than changing \
                         a default; the user confirmed this approach",
                    ),
                ]
            },
        },
        MemoryType::Project => TypeText {
            description: "What is going on in the project that neither the code nor the git \
                history tells you: goals, who is working on what, deadlines, incidents, \
                decisions and the reasons for them. Relative dates go stale, so turn them into \
                absolute ones when you save (\"next Thursday\" becomes the actual date).",
            when_to_save: "When you learn about ongoing work, goals, constraints or events that \
                will matter in later conversations and cannot be read off the repository.",
            how_to_use: if combined {
                "Use it to see why a request is being made and what surrounds it. Team project \
                 memories are what your colleagues know as well; rely on them when other \
                 people's work is involved."
            } else {
                "Use it to see why a request is being made and what surrounds it, so your \
                 suggestions fit the bigger picture."
            },
            body_structure: Some(
                "The fact or decision first. Then a **Why:** line with the motivation (a \
                 deadline, a stakeholder, a constraint), and a **How to apply:** line saying \
                 how it should change your suggestions.",
            ),
            examples: &[
                (
                    "We're freezing the public API on 2025-03-14 so the SDK team can cut a release.",
                    "team",
                    "public API frozen from 2025-03-14 for the SDK release. Why: the SDK team \
                     needs a stable surface. How to apply: flag any change to public signatures \
                     after that date",
                ),
                (
                    "Don't bother with the old billing module, the ledger service replaces it \
                     this quarter.",
                    "team",
                    "billing module is being replaced by the ledger service this quarter; do not \
                     invest in the old module",
                ),
            ],
        },
        MemoryType::Reference => TypeText {
            description: "Where information lives outside this repository: issue trackers, \
                dashboards, chat channels, documents. A reference memory is a pointer that tells \
                you where to look later.",
            when_to_save: "When the user mentions an outside system or place and what it is \
                used for.",
            how_to_use: "When the user talks about something outside the code, or you need \
                facts the repository does not hold, use these pointers to know where to look.",
            body_structure: None,
            examples: &[
                (
                    "Flaky test reports go to the QA board in Jira, project FLAKE.",
                    "team",
                    "flaky tests are tracked in Jira project FLAKE (QA board)",
                ),
                (
                    "If latency looks off, the service-health dashboard in Datadog is what \
                     on-call watches.",
                    "team",
                    "the Datadog \"service-health\" dashboard is the on-call view of latency",
                ),
            ],
        },
    }
}

fn type_block(memory_type: MemoryType, combined: bool) -> Vec<String> {
    let name = memory_type.as_str();
    let text = type_text(memory_type, combined);
    let mut lines = vec!["<type>".to_owned(), format!("{INDENT}<name>{name}</name>")];
    if combined {
        lines.push(format!(
            "{INDENT}<scope>{}</scope>",
            scope_label(memory_type)
        ));
    }
    lines.push(format!(
        "{INDENT}<description>{}</description>",
        text.description
    ));
    lines.push(format!(
        "{INDENT}<when_to_save>{}</when_to_save>",
        text.when_to_save
    ));
    lines.push(format!(
        "{INDENT}<how_to_use>{}</how_to_use>",
        text.how_to_use
    ));
    if let Some(body) = text.body_structure {
        lines.push(format!("{INDENT}<body_structure>{body}</body_structure>"));
    }
    lines.push(format!("{INDENT}<examples>"));
    for (i, (said, scope, saved)) in text.examples.iter().enumerate() {
        if i > 0 {
            lines.push(String::new());
        }
        let scope = if combined {
            format!("{scope} ")
        } else {
            String::new()
        };
        lines.push(format!("{INDENT}user: {said}"));
        lines.push(format!(
            "{INDENT}assistant: [saves {scope}{name} memory: {saved}]"
        ));
    }
    lines.push(format!("{INDENT}</examples>"));
    lines.push("</type>".to_owned());
    lines
}

/// The types section: individual (`combined = false`) or with `<scope>` lines (`true`).
///
/// ```
/// let lines = memdir::prompt::types_section(true);
/// assert_eq!(lines[0], "## Types of memory");
/// assert!(lines.contains(&"    <scope>always private</scope>".to_owned()));
/// ```
pub fn types_section(combined: bool) -> Vec<String> {
    let intro = if combined {
        "Every memory has one of the four types below. Each type also names a <scope>: whether \
         it belongs in your private directory or in the shared team one."
    } else {
        "Every memory has one of the four types below; pick the one that fits what you are \
         saving."
    };
    let mut lines = vec![
        "## Types of memory".to_owned(),
        String::new(),
        intro.to_owned(),
        String::new(),
        "<types>".to_owned(),
    ];
    for memory_type in MemoryType::ALL {
        lines.extend(type_block(memory_type, combined));
    }
    lines.push("</types>".to_owned());
    lines
}
