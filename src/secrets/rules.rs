//! The 36 secret rules, in the reference's order, as token shapes for
//! [`super::pattern`].
//!
//! Every shape is written from the token format it describes (prefix, alphabet, length, what
//! may follow), not translated from anyone's regex source. Each rule names one or more
//! *anchors*: literal text every match contains at a fixed distance from where the token
//! starts. The scanner looks for anchors in one pass over the text and only then tries the full
//! shape, which keeps a megabyte of prose to a few milliseconds.
//!
//! Each shape was checked against the reference's pattern of the same id, alphabet by
//! alphabet and length by length (the audit is in `tests/secrets.rs`, one test per rule): they
//! accept the same tokens and redact the same span.

use super::pattern::{is_word, Node, MANY};
use Node::{Alt, Lit, LitNoCase, Opt, Rep, WordBoundary};

/// Where a match may start relative to its token body.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Lead {
    /// Anywhere.
    Any,
    /// After a `\b` (the token starts with a word character, so: not glued to a word).
    WordBoundary,
    /// At the start of the text or after one of `` \ ' " ` `` whitespace `> = : ( , )` (the
    /// delimiter is part of the match).
    Delimited,
}

/// What must follow the token body.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tail {
    /// Anything.
    Any,
    /// A `\b`.
    WordBoundary,
    /// One of `` ` ' " `` `;` whitespace, a literal backslash followed by `n` or `r` (an escaped
    /// newline inside a quoted string), or the end of the text.
    TokenEnd,
    /// The end of the text, or one of `` \ ' " ` `` whitespace `< ) ,`.
    Delimited,
}

/// Literal text found in every match of a rule, `offset` bytes after the token body starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Anchor {
    pub(crate) text: &'static str,
    pub(crate) no_case: bool,
    pub(crate) offset: usize,
}

/// How a rule's matches are found.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Shape {
    /// `lead`, then `body` (the secret itself), then `tail`.
    Token {
        lead: Lead,
        body: &'static [Node],
        tail: Tail,
        /// Redaction replaces only the body (true) or the whole match, delimiters included.
        body_only: bool,
    },
    /// A PEM private key block: a `BEGIN … PRIVATE KEY` line, at least 64 UTF-16 units of
    /// anything, and the first `END … PRIVATE KEY` line after them (case-insensitive).
    PrivateKey,
}

/// One rule.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rule {
    pub(crate) id: &'static str,
    pub(crate) anchors: &'static [Anchor],
    pub(crate) shape: Shape,
}

fn upper_or_digit(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}
fn base32_upper(b: u8) -> bool {
    b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b)
}
fn digit(b: u8) -> bool {
    b.is_ascii_digit()
}
fn alpha(b: u8) -> bool {
    b.is_ascii_alphabetic()
}
fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn alnum_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}
fn word(b: u8) -> bool {
    is_word(b)
}
fn word_dash(b: u8) -> bool {
    is_word(b) || b == b'-'
}
fn hex_lower(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}
fn hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}
fn base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
}
fn equals(b: u8) -> bool {
    b == b'='
}
fn azure_head(b: u8) -> bool {
    is_word(b) || b == b'~' || b == b'.'
}
fn azure_body(b: u8) -> bool {
    azure_head(b) || b == b'-'
}
fn sendgrid_body(b: u8) -> bool {
    word_dash(b) || b == b'=' || b == b'.'
}
fn atlas_body(b: u8) -> bool {
    word_dash(b) || b == b'='
}
fn pem_label(b: u8) -> bool {
    word_dash(b) || b == b' '
}

const fn at(text: &'static str) -> Anchor {
    Anchor {
        text,
        no_case: false,
        offset: 0,
    }
}

const fn token(lead: Lead, body: &'static [Node], tail: Tail, body_only: bool) -> Shape {
    Shape::Token {
        lead,
        body,
        tail,
        body_only,
    }
}

/// A prefix, then exactly `len` bytes of `class`, then nothing required (GitHub style).
macro_rules! bare {
    ($id:literal, $prefix:literal, $class:expr, $len:literal) => {
        Rule {
            id: $id,
            anchors: &[at($prefix)],
            shape: token(
                Lead::Any,
                &[Lit($prefix), Rep($class, $len, $len)],
                Tail::Any,
                false,
            ),
        }
    };
}

/// A word-bounded prefix, then exactly `len` bytes of `class`, then a token end.
macro_rules! ended {
    ($id:literal, $prefix:literal, $class:expr, $len:literal) => {
        Rule {
            id: $id,
            anchors: &[at($prefix)],
            shape: token(
                Lead::WordBoundary,
                &[Lit($prefix), Rep($class, $len, $len)],
                Tail::TokenEnd,
                true,
            ),
        }
    };
}

/// The 58- or 74-character halves around an OpenAI project key's marker.
const OPENAI_HALF: Node = Alt(&[&[Rep(word_dash, 74, 74)], &[Rep(word_dash, 58, 58)]]);

/// Every rule, in the reference's order.
pub(crate) static RULES: [Rule; 36] = [
    Rule {
        id: "aws-access-token",
        anchors: &[at("A3T"), at("AKIA"), at("ASIA"), at("ABIA"), at("ACCA")],
        shape: token(
            Lead::WordBoundary,
            &[
                Alt(&[
                    &[Lit("A3T"), Rep(upper_or_digit, 1, 1)],
                    &[Lit("AKIA")],
                    &[Lit("ASIA")],
                    &[Lit("ABIA")],
                    &[Lit("ACCA")],
                ]),
                Rep(base32_upper, 16, 16),
            ],
            Tail::WordBoundary,
            true,
        ),
    },
    ended!("gcp-api-key", "AIza", word_dash, 35),
    Rule {
        id: "azure-ad-client-secret",
        anchors: &[Anchor {
            text: "Q~",
            no_case: false,
            offset: 4,
        }],
        shape: token(
            Lead::Delimited,
            &[
                Rep(azure_head, 3, 3),
                Rep(digit, 1, 1),
                Lit("Q~"),
                Rep(azure_body, 31, 34),
            ],
            Tail::Delimited,
            true,
        ),
    },
    ended!("digitalocean-pat", "dop_v1_", hex_lower, 64),
    ended!("digitalocean-access-token", "doo_v1_", hex_lower, 64),
    Rule {
        id: "anthropic-api-key",
        anchors: &[at("sk-ant-api03-")],
        shape: token(
            Lead::WordBoundary,
            &[Lit("sk-ant-api03-"), Rep(word_dash, 93, 93), Lit("AA")],
            Tail::TokenEnd,
            true,
        ),
    },
    Rule {
        id: "anthropic-admin-api-key",
        anchors: &[at("sk-ant-admin01-")],
        shape: token(
            Lead::WordBoundary,
            &[Lit("sk-ant-admin01-"), Rep(word_dash, 93, 93), Lit("AA")],
            Tail::TokenEnd,
            true,
        ),
    },
    Rule {
        id: "openai-api-key",
        anchors: &[at("sk-")],
        shape: token(
            Lead::WordBoundary,
            &[Alt(&[
                &[
                    Lit("sk-"),
                    Alt(&[&[Lit("proj")], &[Lit("svcacct")], &[Lit("admin")]]),
                    Lit("-"),
                    OPENAI_HALF,
                    Lit("T3BlbkFJ"),
                    OPENAI_HALF,
                    WordBoundary,
                ],
                &[
                    Lit("sk-"),
                    Rep(alnum, 20, 20),
                    Lit("T3BlbkFJ"),
                    Rep(alnum, 20, 20),
                ],
            ])],
            Tail::TokenEnd,
            true,
        ),
    },
    ended!("huggingface-access-token", "hf_", alpha, 34),
    bare!("github-pat", "ghp_", alnum, 36),
    bare!("github-fine-grained-pat", "github_pat_", word, 82),
    Rule {
        id: "github-app-token",
        anchors: &[at("ghu_"), at("ghs_")],
        shape: token(
            Lead::Any,
            &[Alt(&[&[Lit("ghu_")], &[Lit("ghs_")]]), Rep(alnum, 36, 36)],
            Tail::Any,
            false,
        ),
    },
    bare!("github-oauth", "gho_", alnum, 36),
    bare!("github-refresh-token", "ghr_", alnum, 36),
    bare!("gitlab-pat", "glpat-", word_dash, 20),
    bare!("gitlab-deploy-token", "gldt-", word_dash, 20),
    Rule {
        id: "slack-bot-token",
        anchors: &[at("xoxb-")],
        shape: token(
            Lead::Any,
            &[
                Lit("xoxb-"),
                Rep(digit, 10, 13),
                Lit("-"),
                Rep(digit, 10, 13),
                Rep(alnum_dash, 0, MANY),
            ],
            Tail::Any,
            false,
        ),
    },
    Rule {
        id: "slack-user-token",
        anchors: &[at("xoxp-"), at("xoxe-")],
        shape: token(
            Lead::Any,
            &[
                Alt(&[&[Lit("xoxp-")], &[Lit("xoxe-")]]),
                Rep(digit, 10, 13),
                Lit("-"),
                Rep(digit, 10, 13),
                Lit("-"),
                Rep(digit, 10, 13),
                Lit("-"),
                Rep(alnum_dash, 28, 34),
            ],
            Tail::Any,
            false,
        ),
    },
    Rule {
        id: "slack-app-token",
        anchors: &[Anchor {
            text: "xapp-",
            no_case: true,
            offset: 0,
        }],
        shape: token(
            Lead::Any,
            &[
                LitNoCase("xapp-"),
                Rep(digit, 1, 1),
                Lit("-"),
                Rep(alnum, 1, MANY),
                Lit("-"),
                Rep(digit, 1, MANY),
                Lit("-"),
                Rep(alnum, 1, MANY),
            ],
            Tail::Any,
            false,
        ),
    },
    bare!("twilio-api-key", "SK", hex, 32),
    ended!("sendgrid-api-token", "SG.", sendgrid_body, 66),
    ended!("npm-access-token", "npm_", alnum, 36),
    Rule {
        id: "pypi-upload-token",
        anchors: &[at("pypi-AgEIcHlwaS5vcmc")],
        shape: token(
            Lead::Any,
            &[Lit("pypi-AgEIcHlwaS5vcmc"), Rep(word_dash, 50, 1000)],
            Tail::Any,
            false,
        ),
    },
    Rule {
        id: "databricks-api-token",
        anchors: &[at("dapi")],
        shape: token(
            Lead::WordBoundary,
            &[
                Lit("dapi"),
                Rep(hex_lower, 32, 32),
                Opt(&[Lit("-"), Rep(digit, 1, 1)]),
            ],
            Tail::TokenEnd,
            true,
        ),
    },
    Rule {
        id: "hashicorp-tf-api-token",
        anchors: &[Anchor {
            text: ".atlasv1.",
            no_case: false,
            offset: 14,
        }],
        shape: token(
            Lead::Any,
            &[
                Rep(alnum, 14, 14),
                Lit(".atlasv1."),
                Rep(atlas_body, 60, 70),
            ],
            Tail::Any,
            false,
        ),
    },
    ended!("pulumi-api-token", "pul-", hex_lower, 40),
    Rule {
        id: "postman-api-token",
        anchors: &[at("PMAK-")],
        shape: token(
            Lead::WordBoundary,
            &[Lit("PMAK-"), Rep(hex, 24, 24), Lit("-"), Rep(hex, 34, 34)],
            Tail::TokenEnd,
            true,
        ),
    },
    Rule {
        id: "grafana-api-key",
        anchors: &[at("eyJrIjoi")],
        shape: token(
            Lead::WordBoundary,
            &[Lit("eyJrIjoi"), Rep(base64, 70, 400), Rep(equals, 0, 3)],
            Tail::TokenEnd,
            true,
        ),
    },
    Rule {
        id: "grafana-cloud-api-token",
        anchors: &[at("glc_")],
        shape: token(
            Lead::WordBoundary,
            &[Lit("glc_"), Rep(base64, 32, 400), Rep(equals, 0, 3)],
            Tail::TokenEnd,
            true,
        ),
    },
    Rule {
        id: "grafana-service-account-token",
        anchors: &[at("glsa_")],
        shape: token(
            Lead::WordBoundary,
            &[Lit("glsa_"), Rep(alnum, 32, 32), Lit("_"), Rep(hex, 8, 8)],
            Tail::TokenEnd,
            true,
        ),
    },
    ended!("sentry-user-token", "sntryu_", hex_lower, 64),
    Rule {
        id: "sentry-org-token",
        anchors: &[at("sntrys_eyJpYXQiO")],
        shape: token(
            Lead::WordBoundary,
            &[
                // `sntrys_` + base64 of a JSON claims object: `{"iat":…,"region_url":…}`.
                Lit("sntrys_eyJpYXQiO"),
                Rep(base64, 10, 200),
                // `region_url` (with a quote or comma before it) at each of the three base64
                // alignments.
                Alt(&[
                    &[Lit("LCJyZWdpb25fdXJs")],
                    &[Lit("InJlZ2lvbl91cmwi")],
                    &[Lit("cmVnaW9uX3VybCI6")],
                ]),
                Rep(base64, 10, 200),
                Rep(equals, 0, 2),
                Lit("_"),
                // The secret part: 43 base64 characters. Nothing is required after it, so a
                // longer run is caught too (its first 43 characters are what is replaced).
                Rep(base64, 43, 43),
            ],
            Tail::Any,
            false,
        ),
    },
    Rule {
        id: "stripe-access-token",
        anchors: &[at("sk_"), at("rk_")],
        shape: token(
            Lead::WordBoundary,
            &[
                Alt(&[&[Lit("sk_")], &[Lit("rk_")]]),
                Alt(&[&[Lit("test_")], &[Lit("live_")], &[Lit("prod_")]]),
                Rep(alnum, 10, 99),
            ],
            Tail::TokenEnd,
            true,
        ),
    },
    bare!("shopify-access-token", "shpat_", hex, 32),
    bare!("shopify-shared-secret", "shpss_", hex, 32),
    Rule {
        id: "private-key",
        anchors: &[Anchor {
            text: "-----BEGIN",
            no_case: true,
            offset: 0,
        }],
        shape: Shape::PrivateKey,
    },
];

/// `-----BEGIN <label> PRIVATE KEY[ BLOCK]-----`, case-insensitive.
pub(crate) static PEM_BEGIN: [Node; 5] = [
    LitNoCase("-----BEGIN"),
    Rep(pem_label, 0, 100),
    LitNoCase("PRIVATE KEY"),
    Opt(&[LitNoCase(" BLOCK")]),
    Lit("-----"),
];

/// `-----END <label> PRIVATE KEY[ BLOCK]-----`, case-insensitive.
pub(crate) static PEM_END: [Node; 5] = [
    LitNoCase("-----END"),
    Rep(pem_label, 0, 100),
    LitNoCase("PRIVATE KEY"),
    Opt(&[LitNoCase(" BLOCK")]),
    Lit("-----"),
];

/// Least UTF-16 units between a PEM header and its footer.
pub(crate) const PEM_MIN_BODY_UNITS: usize = 64;
