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

// ---------------------------------------------------------------------------------------------
// Per-rule conformance (issue #18): for each of the 36 rules, the canonical token, a longer
// tail, the token followed by a space / a newline / a non-ASCII letter, and a near miss. The
// expected outcomes are the reference regexes' (checked once against them in Node): a rule that
// requires a delimiter after the token (`` ` ' " ; `` whitespace, `\n`, end) ignores a token
// glued to more text, a rule without one catches the prefix and leaves the rest in place.
// ---------------------------------------------------------------------------------------------

/// `n` characters cycling through `alphabet` (fixed, obviously fake tokens).
fn cyc(alphabet: &str, n: usize) -> String {
    alphabet.chars().cycle().take(n).collect()
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const WORD_DASH: &str = "aB3_x-Yz9";
const BASE64: &str = "Ab9+/zQ";

/// What the reference does with the token followed by one more character of its alphabet.
#[derive(Clone, Copy, Debug)]
enum Longer {
    /// Nothing: the rule needs a delimiter (or a word boundary) where the token ends.
    Missed,
    /// The token is replaced and the extra character stays (the rule has no tail).
    Prefix,
    /// The whole run is replaced (the rule's last part is open-ended).
    Whole,
}

struct RuleCase {
    id: &'static str,
    token: String,
    extra: &'static str,
    longer: Longer,
    /// Is the token still caught when a non-ASCII letter follows it?
    before_non_ascii: bool,
    near_miss: String,
}

fn case(
    id: &'static str,
    token: String,
    extra: &'static str,
    longer: Longer,
    before_non_ascii: bool,
    near_miss: String,
) -> RuleCase {
    RuleCase {
        id,
        token,
        extra,
        longer,
        before_non_ascii,
        near_miss,
    }
}

fn rule_cases() -> Vec<RuleCase> {
    use Longer::{Missed, Prefix, Whole};
    let azure = "aZ0_~.-";
    let pem = |body: usize| {
        format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----",
            cyc(BASE64, body)
        )
    };
    let sentry = |tail: usize| {
        format!(
            "sntrys_eyJpYXQiO{}LCJyZWdpb25fdXJs{}==_{}",
            cyc(BASE64, 20),
            cyc(BASE64, 20),
            cyc(BASE64, tail)
        )
    };
    vec![
        case(
            "aws-access-token",
            "AKIAZYXWVUTSRQPONM27".into(),
            "A",
            Missed,
            true,
            "AKIAZYXWVUTSRQPONM2".into(),
        ),
        case(
            "gcp-api-key",
            format!("AIza{}", cyc(WORD_DASH, 35)),
            "x",
            Missed,
            false,
            format!("AIza{}", cyc(WORD_DASH, 34)),
        ),
        case(
            "azure-ad-client-secret",
            format!("abc1Q~{}", cyc(azure, 34)),
            "x",
            Missed,
            false,
            format!("abc1Q~{}", cyc(azure, 30)),
        ),
        case(
            "digitalocean-pat",
            format!("dop_v1_{}", cyc(HEX_LOWER, 64)),
            "a",
            Missed,
            false,
            format!("dop_v1_{}", cyc(HEX_LOWER, 63)),
        ),
        case(
            "digitalocean-access-token",
            format!("doo_v1_{}", cyc(HEX_LOWER, 64)),
            "a",
            Missed,
            false,
            format!("doo_v1_{}", cyc(HEX_LOWER, 63)),
        ),
        case(
            "anthropic-api-key",
            format!("sk-ant-api03-{}AA", cyc(WORD_DASH, 93)),
            "A",
            Missed,
            false,
            format!("sk-ant-api03-{}AA", cyc(WORD_DASH, 92)),
        ),
        case(
            "anthropic-admin-api-key",
            format!("sk-ant-admin01-{}AA", cyc(WORD_DASH, 93)),
            "A",
            Missed,
            false,
            format!("sk-ant-admin01-{}AA", cyc(WORD_DASH, 92)),
        ),
        case(
            "openai-api-key",
            format!("sk-proj-{}T3BlbkFJ{}", cyc(WORD_DASH, 74), cyc(ALNUM, 74)),
            "x",
            Missed,
            false,
            format!("sk-proj-{}T3BlbkFJ{}", cyc(WORD_DASH, 73), cyc(ALNUM, 74)),
        ),
        case(
            "huggingface-access-token",
            format!("hf_{}", cyc(LOWER, 34)),
            "x",
            Missed,
            false,
            format!("hf_{}", cyc(LOWER, 33)),
        ),
        case(
            "github-pat",
            format!("ghp_{}", cyc(ALNUM, 36)),
            "x",
            Prefix,
            true,
            format!("ghp_{}", cyc(ALNUM, 35)),
        ),
        case(
            "github-fine-grained-pat",
            format!("github_pat_{}", cyc("aB_9", 82)),
            "x",
            Prefix,
            true,
            format!("github_pat_{}", cyc("aB_9", 81)),
        ),
        case(
            "github-app-token",
            format!("ghs_{}", cyc(ALNUM, 36)),
            "x",
            Prefix,
            true,
            format!("ghs_{}", cyc(ALNUM, 35)),
        ),
        case(
            "github-oauth",
            format!("gho_{}", cyc(ALNUM, 36)),
            "x",
            Prefix,
            true,
            format!("gho_{}", cyc(ALNUM, 35)),
        ),
        case(
            "github-refresh-token",
            format!("ghr_{}", cyc(ALNUM, 36)),
            "x",
            Prefix,
            true,
            format!("ghr_{}", cyc(ALNUM, 35)),
        ),
        case(
            "gitlab-pat",
            format!("glpat-{}", cyc(WORD_DASH, 20)),
            "x",
            Prefix,
            true,
            format!("glpat-{}", cyc(WORD_DASH, 19)),
        ),
        case(
            "gitlab-deploy-token",
            format!("gldt-{}", cyc(WORD_DASH, 20)),
            "x",
            Prefix,
            true,
            format!("gldt-{}", cyc(WORD_DASH, 19)),
        ),
        case(
            "slack-bot-token",
            format!("xoxb-1234567890-1234567890123{}", cyc("aZ9-", 24)),
            "x",
            Whole,
            true,
            "xoxb-123456789-1234567890abc".into(),
        ),
        case(
            "slack-user-token",
            format!(
                "xoxp-1234567890-123456789012-1234567890123-{}",
                cyc("aZ9-", 34)
            ),
            "x",
            Prefix,
            true,
            format!(
                "xoxp-1234567890-123456789012-1234567890123-{}",
                cyc("aZ9-", 27)
            ),
        ),
        case(
            "slack-app-token",
            format!("xapp-1-A1B2C3D4E5-1234567890-{}", cyc("a0z9", 64)),
            "x",
            Whole,
            true,
            "xapp-1-A1B2C3D4E5-1234567890-".into(),
        ),
        case(
            "twilio-api-key",
            format!("SK{}", cyc(HEX_MIXED, 32)),
            "a",
            Prefix,
            true,
            format!("SK{}", cyc(HEX_MIXED, 31)),
        ),
        case(
            "sendgrid-api-token",
            format!("SG.{}.{}", cyc(WORD_DASH, 22), cyc("aZ=9", 43)),
            "x",
            Missed,
            false,
            format!("SG.{}.{}", cyc(WORD_DASH, 22), cyc("aZ=9", 42)),
        ),
        case(
            "npm-access-token",
            format!("npm_{}", cyc(ALNUM, 36)),
            "x",
            Missed,
            false,
            format!("npm_{}", cyc(ALNUM, 35)),
        ),
        case(
            "pypi-upload-token",
            format!("pypi-AgEIcHlwaS5vcmc{}", cyc(WORD_DASH, 1000)),
            "x",
            Prefix,
            true,
            format!("pypi-AgEIcHlwaS5vcmc{}", cyc(WORD_DASH, 49)),
        ),
        case(
            "databricks-api-token",
            format!("dapi{}", cyc(HEX_LOWER, 32)),
            "a",
            Missed,
            false,
            format!("dapi{}", cyc(HEX_LOWER, 31)),
        ),
        case(
            "hashicorp-tf-api-token",
            format!("{}.atlasv1.{}", cyc(ALNUM, 14), cyc("aZ9-_=", 70)),
            "x",
            Prefix,
            true,
            format!("{}.atlasv1.{}", cyc(ALNUM, 13), cyc("aZ9-_=", 70)),
        ),
        case(
            "pulumi-api-token",
            format!("pul-{}", cyc(HEX_LOWER, 40)),
            "a",
            Missed,
            false,
            format!("pul-{}", cyc(HEX_LOWER, 39)),
        ),
        case(
            "postman-api-token",
            format!("PMAK-{}-{}", cyc(HEX_MIXED, 24), cyc(HEX_MIXED, 34)),
            "a",
            Missed,
            false,
            format!("PMAK-{}-{}", cyc(HEX_MIXED, 24), cyc(HEX_MIXED, 33)),
        ),
        case(
            "grafana-api-key",
            format!("eyJrIjoi{}", cyc(BASE64, 400)),
            "A",
            Missed,
            false,
            format!("eyJrIjoi{}", cyc(BASE64, 69)),
        ),
        case(
            "grafana-cloud-api-token",
            format!("glc_{}", cyc(BASE64, 400)),
            "A",
            Missed,
            false,
            format!("glc_{}", cyc(BASE64, 31)),
        ),
        case(
            "grafana-service-account-token",
            format!("glsa_{}_{}", cyc(ALNUM, 32), cyc(HEX_MIXED, 8)),
            "a",
            Missed,
            false,
            format!("glsa_{}_{}", cyc(ALNUM, 32), cyc(HEX_MIXED, 7)),
        ),
        case(
            "sentry-user-token",
            format!("sntryu_{}", cyc(HEX_LOWER, 64)),
            "a",
            Missed,
            false,
            format!("sntryu_{}", cyc(HEX_LOWER, 63)),
        ),
        case(
            "sentry-org-token",
            sentry(43),
            "xyz",
            Prefix,
            true,
            sentry(42),
        ),
        case(
            "stripe-access-token",
            format!("sk_live_{}", cyc(ALNUM, 99)),
            "a",
            Missed,
            false,
            format!("sk_live_{}", cyc(ALNUM, 9)),
        ),
        case(
            "shopify-access-token",
            format!("shpat_{}", cyc(HEX_MIXED, 32)),
            "a",
            Prefix,
            true,
            format!("shpat_{}", cyc(HEX_MIXED, 31)),
        ),
        case(
            "shopify-shared-secret",
            format!("shpss_{}", cyc(HEX_MIXED, 32)),
            "a",
            Prefix,
            true,
            format!("shpss_{}", cyc(HEX_MIXED, 31)),
        ),
        case("private-key", pem(64), "-", Prefix, true, pem(61)),
    ]
}

fn only_rule(text: &str) -> Vec<&'static str> {
    scan_for_secrets(text).iter().map(|f| f.rule_id).collect()
}

#[test]
fn the_audit_covers_every_rule_in_order() {
    let ids: Vec<&str> = rule_cases().iter().map(|c| c.id).collect();
    assert_eq!(ids, rule_ids());
}

#[test]
fn each_rule_catches_its_canonical_token_and_keeps_what_follows() {
    for c in rule_cases() {
        let t = &c.token;
        assert_eq!(only_rule(&format!("key: {t}")), [c.id], "{}", c.id);
        assert_eq!(
            redact_secrets(&format!("key: {t}")),
            "key: [REDACTED]",
            "{}",
            c.id
        );
        for after in [" ", "\n", "\r\n", "\t", "\u{3000}"] {
            let text = format!("key: {t}{after}next");
            assert_eq!(only_rule(&text), [c.id], "{} then {after:?}", c.id);
            assert_eq!(
                redact_secrets(&text),
                format!("key: [REDACTED]{after}next"),
                "{} then {after:?}",
                c.id
            );
        }
    }
}

#[test]
fn each_rule_treats_a_following_non_ascii_letter_as_the_reference_does() {
    for c in rule_cases() {
        for after in ["é", "日本", "😀"] {
            let text = format!("key: {}{after} x", c.token);
            if c.before_non_ascii {
                assert_eq!(only_rule(&text), [c.id], "{} then {after}", c.id);
                assert_eq!(
                    redact_secrets(&text),
                    format!("key: [REDACTED]{after} x"),
                    "{} then {after}",
                    c.id
                );
            } else {
                assert_eq!(
                    only_rule(&text),
                    Vec::<&str>::new(),
                    "{} then {after}",
                    c.id
                );
                assert_eq!(redact_secrets(&text), text, "{} then {after}", c.id);
            }
        }
    }
}

#[test]
fn each_rule_treats_a_longer_tail_as_the_reference_does() {
    for c in rule_cases() {
        let text = format!("key: {}{} end", c.token, c.extra);
        let (found, redacted) = (only_rule(&text), redact_secrets(&text));
        match c.longer {
            Longer::Missed => {
                assert_eq!(found, Vec::<&str>::new(), "{}", c.id);
                assert_eq!(redacted, text, "{}", c.id);
            }
            Longer::Prefix => {
                assert_eq!(found, [c.id], "{}", c.id);
                assert_eq!(
                    redacted,
                    format!("key: [REDACTED]{} end", c.extra),
                    "{}",
                    c.id
                );
            }
            Longer::Whole => {
                assert_eq!(found, [c.id], "{}", c.id);
                assert_eq!(redacted, "key: [REDACTED] end", "{}", c.id);
            }
        }
    }
}

#[test]
fn each_rule_ignores_its_near_miss() {
    for c in rule_cases() {
        for text in [
            format!("key: {}", c.near_miss),
            format!("key: {} next", c.near_miss),
        ] {
            assert_eq!(only_rule(&text), Vec::<&str>::new(), "{}: {text}", c.id);
            assert_eq!(redact_secrets(&text), text, "{}", c.id);
        }
    }
}

#[test]
fn sentry_org_tokens_use_the_reference_markers_and_any_tail_length() {
    // The three markers the reference accepts between the two base64 runs; the shorter forms
    // catch tokens whose next characters differ from `,"region_url":` spelled out further.
    for marker in ["LCJyZWdpb25fdXJs", "InJlZ2lvbl91cmwi", "cmVnaW9uX3VybCI6"] {
        for after_marker in ["Q", "Z", "+"] {
            let token = format!(
                "sntrys_eyJpYXQiO{}{marker}{after_marker}{}_{}",
                cyc(BASE64, 12),
                cyc(BASE64, 12),
                cyc(BASE64, 43)
            );
            assert_eq!(
                only_rule(&token),
                ["sentry-org-token"],
                "{marker}{after_marker}"
            );
        }
    }
    // Tails of 44, 60 and 200 characters: caught, the first 43 replaced, the rest kept.
    for tail in [44, 60, 200] {
        let text = format!("t={}", {
            let base = format!(
                "sntrys_eyJpYXQiO{}cmVnaW9uX3VybCI6{}_",
                cyc(BASE64, 12),
                cyc(BASE64, 12)
            );
            format!("{base}{}", cyc(BASE64, tail))
        });
        assert_eq!(only_rule(&text), ["sentry-org-token"], "tail {tail}");
        let rest = cyc(BASE64, tail).split_off(43);
        assert_eq!(
            redact_secrets(&text),
            format!("t=[REDACTED]{rest}"),
            "tail {tail}"
        );
    }
    // The character after the token is never part of what is replaced.
    let token = format!(
        "sntrys_eyJpYXQiO{}InJlZ2lvbl91cmwi{}_{}",
        cyc(BASE64, 12),
        cyc(BASE64, 12),
        cyc(BASE64, 43)
    );
    assert_eq!(redact_secrets(&format!("{token} é")), "[REDACTED] é");
    assert_eq!(redact_secrets(&format!("{token}é")), "[REDACTED]é");
    assert_eq!(redact_secrets(&format!("{token}\n")), "[REDACTED]\n");
    assert_eq!(redact_secrets(&format!("\"{token}\",")), "\"[REDACTED]\",");
}
