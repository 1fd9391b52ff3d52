//! The secret scanner against a generated corpus (three or more samples per rule, built from
//! each rule's format; none of them is a real credential) and against ordinary text.

mod common;

use common::XorShift;
use memdir::secrets::{
    check_write_for_secrets, redact_secrets, rule_ids, scan_for_secrets, secret_label, REDACTED,
};
use memdir::Code;

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";
const HEX_LOWER: &str = "0123456789abcdef";
const HEX_MIXED: &str = "0123456789abcdefABCDEF";

/// Draws `n` characters of `alphabet` from the generator (the same corpus on every run).
trait Pick {
    fn pick(&mut self, alphabet: &str, n: usize) -> String;
}

impl Pick for XorShift {
    fn pick(&mut self, alphabet: &str, n: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        (0..n)
            .map(|_| chars[(self.next() % chars.len() as u64) as usize])
            .collect()
    }
}

fn alnum() -> String {
    format!("{UPPER}{LOWER}{DIGITS}")
}
fn word() -> String {
    format!("{}_", alnum())
}
fn word_dash() -> String {
    format!("{}_-", alnum())
}
fn base64() -> String {
    format!("{}+/", alnum())
}

/// Three or more tokens in the format of `rule`, variant `v` changing lengths and prefixes.
fn tokens(rule: &str, g: &mut XorShift) -> Vec<String> {
    let mut out = Vec::new();
    for v in 0..3usize {
        let t = match rule {
            "aws-access-token" => {
                let prefix = ["AKIA", "ASIA", "A3TZ"][v];
                format!("{prefix}{}", g.pick(&format!("{UPPER}234567"), 16))
            }
            "gcp-api-key" => format!("AIza{}", g.pick(&word_dash(), 35)),
            "azure-ad-client-secret" => format!(
                "{}{}Q~{}",
                g.pick(&alnum(), 3),
                g.pick(DIGITS, 1),
                g.pick(&format!("{}~.-", word()), 31 + v)
            ),
            "digitalocean-pat" => format!("dop_v1_{}", g.pick(HEX_LOWER, 64)),
            "digitalocean-access-token" => format!("doo_v1_{}", g.pick(HEX_LOWER, 64)),
            "anthropic-api-key" => {
                format!("sk-ant-api03-{}AA", g.pick(&word_dash(), 93))
            }
            "anthropic-admin-api-key" => {
                format!("sk-ant-admin01-{}AA", g.pick(&word_dash(), 93))
            }
            "openai-api-key" => match v {
                0 => format!(
                    "sk-proj-{}T3BlbkFJ{}",
                    g.pick(&word(), 74),
                    g.pick(&alnum(), 74)
                ),
                1 => format!(
                    "sk-svcacct-{}T3BlbkFJ{}",
                    g.pick(&word(), 58),
                    g.pick(&alnum(), 58)
                ),
                _ => format!(
                    "sk-{}T3BlbkFJ{}",
                    g.pick(&alnum(), 20),
                    g.pick(&alnum(), 20)
                ),
            },
            "huggingface-access-token" => {
                format!("hf_{}", g.pick(&format!("{UPPER}{LOWER}"), 34))
            }
            "github-pat" => format!("ghp_{}", g.pick(&alnum(), 36)),
            "github-fine-grained-pat" => format!("github_pat_{}", g.pick(&word(), 82)),
            "github-app-token" => {
                format!("{}_{}", ["ghu", "ghs", "ghs"][v], g.pick(&alnum(), 36))
            }
            "github-oauth" => format!("gho_{}", g.pick(&alnum(), 36)),
            "github-refresh-token" => format!("ghr_{}", g.pick(&alnum(), 36)),
            "gitlab-pat" => format!("glpat-{}", g.pick(&word_dash(), 20)),
            "gitlab-deploy-token" => format!("gldt-{}", g.pick(&word_dash(), 20)),
            "slack-bot-token" => format!(
                "xoxb-{}-{}{}",
                g.pick(DIGITS, 10 + v),
                g.pick(DIGITS, 13 - v),
                g.pick(&format!("{}-", alnum()), 24)
            ),
            "slack-user-token" => format!(
                "{}-{}-{}-{}-{}",
                ["xoxp", "xoxe", "xoxp"][v],
                g.pick(DIGITS, 10),
                g.pick(DIGITS, 12),
                g.pick(DIGITS, 13),
                g.pick(&format!("{}-", alnum()), 28 + 3 * v)
            ),
            "slack-app-token" => format!(
                "{}-{}-{}-{}-{}",
                ["xapp", "XAPP", "xApp"][v],
                g.pick(DIGITS, 1),
                g.pick(&format!("{UPPER}{DIGITS}"), 11),
                g.pick(DIGITS, 13),
                g.pick(&format!("{LOWER}{DIGITS}"), 64)
            ),
            "twilio-api-key" => format!("SK{}", g.pick(HEX_MIXED, 32)),
            "sendgrid-api-token" => format!(
                "SG.{}.{}",
                g.pick(&word_dash(), 22),
                g.pick(&word_dash(), 43)
            ),
            "npm-access-token" => format!("npm_{}", g.pick(&alnum(), 36)),
            "pypi-upload-token" => format!(
                "pypi-AgEIcHlwaS5vcmc{}",
                g.pick(&word_dash(), [50, 120, 180][v])
            ),
            "databricks-api-token" => {
                let suffix = ["", "-1", "-7"][v];
                format!("dapi{}{suffix}", g.pick(HEX_LOWER, 32))
            }
            "hashicorp-tf-api-token" => format!(
                "{}.atlasv1.{}",
                g.pick(&alnum(), 14),
                g.pick(&format!("{}=", word_dash()), 60 + 5 * v)
            ),
            "pulumi-api-token" => format!("pul-{}", g.pick(HEX_LOWER, 40)),
            "postman-api-token" => {
                format!("PMAK-{}-{}", g.pick(HEX_MIXED, 24), g.pick(HEX_MIXED, 34))
            }
            "grafana-api-key" => format!(
                "eyJrIjoi{}{}",
                g.pick(&base64(), [70, 120, 400][v]),
                "=".repeat(v)
            ),
            "grafana-cloud-api-token" => format!(
                "glc_{}{}",
                g.pick(&base64(), [32, 100, 400][v]),
                "=".repeat(3 - v)
            ),
            "grafana-service-account-token" => {
                format!("glsa_{}_{}", g.pick(&alnum(), 32), g.pick(HEX_MIXED, 8))
            }
            "sentry-user-token" => format!("sntryu_{}", g.pick(HEX_LOWER, 64)),
            "sentry-org-token" => format!(
                "sntrys_eyJpYXQiO{}{}{}{}_{}",
                g.pick(&base64(), 20 + 30 * v),
                [
                    "LCJyZWdpb25fdXJsIjp",
                    "InJlZ2lvbl91cmwiOi",
                    "cmVnaW9uX3VybCI6"
                ][v],
                g.pick(&base64(), 40),
                "=".repeat(v.min(2)),
                g.pick(&base64(), 43)
            ),
            "stripe-access-token" => format!(
                "{}_{}_{}",
                ["sk", "rk", "sk"][v],
                ["live", "test", "prod"][v],
                g.pick(&alnum(), [10, 24, 99][v])
            ),
            "shopify-access-token" => format!("shpat_{}", g.pick(HEX_MIXED, 32)),
            "shopify-shared-secret" => format!("shpss_{}", g.pick(HEX_MIXED, 32)),
            "private-key" => {
                let label = [
                    "RSA PRIVATE KEY",
                    "openssh private key",
                    "PGP PRIVATE KEY BLOCK",
                ][v];
                let body: Vec<String> = (0..3).map(|_| g.pick(&base64(), 64)).collect();
                format!(
                    "-----BEGIN {label}-----\n{}\n-----END {label}-----",
                    body.join("\n")
                )
            }
            other => panic!("no generator for {other}"),
        };
        out.push(t);
    }
    out
}

/// The token placed where a real one would sit: a shell export, a JSON value, the end of prose.
fn in_context(token: &str, v: usize) -> String {
    match v % 3 {
        0 => format!("# env\nexport SERVICE_TOKEN={token}\necho done\n"),
        1 => format!("{{ \"credentials\": {{ \"key\": \"{token}\" }} }}"),
        _ => format!("Remember to rotate {token}"),
    }
}

#[test]
fn every_rule_catches_its_generated_samples_and_nothing_else() {
    let mut g = XorShift(0x9E37_79B9_7F4A_7C15);
    let ids = rule_ids();
    assert_eq!(ids.len(), 36);
    for id in &ids {
        for (v, token) in tokens(id, &mut g).iter().enumerate() {
            let text = in_context(token, v);
            let found = scan_for_secrets(&text);
            let found_ids: Vec<&str> = found.iter().map(|f| f.rule_id).collect();
            assert_eq!(found_ids, vec![*id], "sample {v} of {id}: {text}");
            assert_eq!(found[0].label, secret_label(id));
            let redacted = redact_secrets(&text);
            assert!(
                !redacted.contains(token.as_str()),
                "{id} not redacted: {redacted}"
            );
            assert!(redacted.contains(REDACTED));
            assert!(scan_for_secrets(&redacted).is_empty(), "{id}: {redacted}");
        }
    }
}

#[test]
fn ordinary_prose_and_code_raise_nothing() {
    let text = include_str!("fixtures/secrets/ordinary.txt");
    assert!(text.lines().count() >= 200);
    for (n, line) in text.lines().enumerate() {
        assert_eq!(scan_for_secrets(line), vec![], "line {}: {line}", n + 1);
    }
    assert_eq!(scan_for_secrets(text), vec![]);
    assert_eq!(redact_secrets(text), text);
}

#[test]
fn reference_vector_github_pat() {
    let found = scan_for_secrets(&format!("token ghp_{}", "aB3".repeat(12)));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].rule_id, "github-pat");
    assert_eq!(found[0].label, "GitHub PAT");
    let json = serde_json_like(&found[0]);
    assert_eq!(json, r#"{"ruleId":"github-pat","label":"GitHub PAT"}"#);
}

/// The finding as serde sees it (field names are part of the JS contract).
fn serde_json_like(f: &memdir::secrets::SecretFinding) -> String {
    let yaml = serde_yaml::to_string(f).unwrap();
    let mut parts = Vec::new();
    for line in yaml.lines() {
        let (k, v) = line.split_once(": ").unwrap();
        parts.push(format!("\"{k}\":\"{v}\""));
    }
    format!("{{{}}}", parts.join(","))
}

#[test]
fn boundaries_decide_what_counts() {
    let body36 = "Zx9".repeat(12);
    // Word-bounded and end-delimited rules: glued to a word or followed by a letter, no match.
    assert!(scan_for_secrets(&format!("xnpm_{body36}")).is_empty());
    assert!(scan_for_secrets(&format!("npm_{body36}x")).is_empty());
    assert!(scan_for_secrets(&format!("npm_{body36}.")).is_empty());
    // Escaped newline inside a quoted string, `;`, backtick, U+FEFF and NBSP all end a token.
    for end in ["\\n", "\\r", ";", "`", "\u{FEFF}", "\u{00A0}", "'"] {
        let text = format!("npm_{body36}{end}");
        assert_eq!(scan_for_secrets(&text).len(), 1, "end {end:?}");
    }
    // JS `\b` is ASCII: a non-ASCII letter before the token is a boundary.
    assert_eq!(scan_for_secrets(&format!("é npm_{body36}")).len(), 1);
    assert_eq!(scan_for_secrets(&format!("énpm_{body36}")).len(), 1);
    // Twilio has no boundary at all: it matches inside a longer word.
    let hex32 = "0a1B".repeat(8);
    assert_eq!(
        scan_for_secrets(&format!("xxSK{hex32}yy"))[0].rule_id,
        "twilio-api-key"
    );
    // AWS ids are word-bounded on both sides.
    assert!(scan_for_secrets(&format!("AKIA{}7", "A".repeat(16))).is_empty());
    assert!(scan_for_secrets(&format!("xAKIA{}", "A".repeat(16))).is_empty());
    // Stripe length window 10..=99.
    assert!(scan_for_secrets(&format!("sk_live_{}", "a".repeat(9))).is_empty());
    assert!(scan_for_secrets(&format!("sk_live_{}", "a".repeat(100))).is_empty());
    // A PEM block needs at least 64 units between header and footer.
    let short = format!(
        "-----BEGIN PRIVATE KEY-----{}-----END PRIVATE KEY-----",
        "a".repeat(63)
    );
    assert!(scan_for_secrets(&short).is_empty());
    let long = short.replace(&"a".repeat(63), &"a".repeat(64));
    assert_eq!(scan_for_secrets(&long)[0].rule_id, "private-key");
    // Astral characters count two UTF-16 units toward the 64.
    let astral = short.replace(&"a".repeat(63), &"😀".repeat(32));
    assert_eq!(scan_for_secrets(&astral).len(), 1);
}

#[test]
fn findings_come_once_per_rule_in_rule_order() {
    let pat = format!("ghp_{}", "k".repeat(36));
    let aws = format!("AKIA{}", "B".repeat(16));
    let text = format!("{pat} {pat} {aws}");
    let ids: Vec<&str> = scan_for_secrets(&text).iter().map(|f| f.rule_id).collect();
    assert_eq!(ids, ["aws-access-token", "github-pat"]);
}

#[test]
fn redaction_keeps_delimiters_and_replaces_every_match() {
    let key = format!("npm_{}", "Q".repeat(36));
    assert_eq!(
        redact_secrets(&format!("a=\"{key}\"; b='{key}'")),
        "a=\"[REDACTED]\"; b='[REDACTED]'"
    );
    let pat = format!("ghp_{}", "z".repeat(36));
    assert_eq!(
        redact_secrets(&format!("{pat}{pat}")),
        "[REDACTED][REDACTED]"
    );
    let azure = format!("abc1Q~{}", "d".repeat(32));
    assert_eq!(redact_secrets(&format!("({azure})")), "([REDACTED])");
    let pem = format!(
        "x\n-----BEGIN EC PRIVATE KEY-----\n{}\n-----END EC PRIVATE KEY-----\ny",
        "M".repeat(70)
    );
    assert_eq!(redact_secrets(&pem), "x\n[REDACTED]\ny");
}

#[test]
fn the_guard_names_labels_and_never_the_secret() {
    let mut g = XorShift(42);
    for id in rule_ids() {
        for token in tokens(id, &mut g) {
            let err = memdir::Error::from(
                check_write_for_secrets("team memory", &format!("note: {token}\n")).expect_err(id),
            );
            assert_eq!(err.code, Code::SecretDetected);
            assert!(err.message.contains(&secret_label(id)), "{}", err.message);
            assert!(!err.message.contains(&token));
            assert!(!format!("{err:?}").contains(&token));
            assert!(!err.to_string().contains(&token));
        }
    }
    let two = format!("ghp_{} and AKIA{}", "a".repeat(36), "C".repeat(16));
    let err = memdir::Error::from(check_write_for_secrets("team/notes.md", &two).unwrap_err());
    assert!(err
        .message
        .starts_with("Content contains potential secrets (AWS Access Token, GitHub PAT) and cannot be written to team/notes.md. "));
}

#[test]
fn a_megabyte_scans_quickly() {
    let prose = include_str!("fixtures/secrets/ordinary.txt");
    let mut text = String::new();
    while text.len() < 1_000_000 {
        text.push_str(prose);
    }
    let started = std::time::Instant::now();
    assert!(scan_for_secrets(&text).is_empty());
    let clean = started.elapsed();
    text.push_str(&format!(" glpat-{}", "x".repeat(20)));
    assert_eq!(scan_for_secrets(&text)[0].rule_id, "gitlab-pat");
    // Generous even for an unoptimised debug build; a release build takes a few milliseconds.
    assert!(clean.as_millis() < 1500, "took {clean:?}");
}

#[test]
fn hostile_inputs_stay_linear() {
    // Many PEM headers and no footer, long runs of every anchor's alphabet.
    let mut text = "-----BEGIN RSA PRIVATE KEY-----\n".repeat(5_000);
    text.push_str(&format!("xapp-1-{}", "A".repeat(200_000)));
    text.push_str(&"sk-".repeat(20_000));
    let started = std::time::Instant::now();
    assert!(scan_for_secrets(&text).is_empty());
    let _ = redact_secrets(&text);
    assert!(
        started.elapsed().as_millis() < 3000,
        "{:?}",
        started.elapsed()
    );
}
