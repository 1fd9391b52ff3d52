//! Reference vectors (reference §3.1, §4.4, §16, §17) for the text core: file sizes, MEMORY.md
//! truncation, frontmatter; plus hostile inputs that must never panic.

mod common;

use common::Rng;
use memdir::entrypoint::{
    lines_cut, load_index_for_model, prepare_index_for_model, TRUNCATION_ADVICE,
};
use memdir::{
    format_file_size, format_memory_file, parse_frontmatter, truncate_entrypoint, MemoryFields,
    MemoryType, TruncateOptions,
};

// ---------------------------------------------------------------------------------------------
// formatFileSize

#[test]
fn format_file_size_vectors() {
    let cases = [
        (0.0, "0 bytes"),
        (1023.0, "1023 bytes"),
        (1024.0, "1KB"),
        (1075.0, "1KB"),
        (25_000.0, "24.4KB"),
        (25_001.0, "24.4KB"),
        (25_856.0, "25.3KB"),
        (26_000.0, "25.4KB"),
        (30_000.0, "29.3KB"),
        (1_048_576.0, "1MB"),
    ];
    for (n, expected) in cases {
        assert_eq!(format_file_size(n), expected, "formatFileSize({n})");
    }
}

// ---------------------------------------------------------------------------------------------
// truncateEntrypointContent

fn lines_of(count: usize, width: usize) -> String {
    (0..count)
        .map(|i| char::from(b'0' + (i % 10) as u8).to_string().repeat(width))
        .collect::<Vec<_>>()
        .join("\n")
}

fn warning(kept: &str, reason: &str) -> String {
    format!(
        "{kept}\n\n> WARNING: MEMORY.md is {reason}. Only part of it was loaded. {TRUNCATION_ADVICE}"
    )
}

#[test]
fn line_cap_only() {
    let lines: Vec<String> = (0..250).map(|i| format!("- line {i}")).collect();
    let raw = lines.join("\n");
    let t = truncate_entrypoint(&raw, &TruncateOptions::default());
    assert_eq!((t.line_count, t.byte_count), (250, 2639));
    assert!(t.was_line_truncated && !t.was_byte_truncated);
    assert_eq!(
        t.content,
        warning(&lines[..200].join("\n"), "250 lines (limit: 200)")
    );
}

#[test]
fn unit_cap_only_cuts_at_the_last_line_break() {
    let raw = lines_of(100, 500);
    let t = truncate_entrypoint(&raw, &TruncateOptions::default());
    assert_eq!((t.line_count, t.byte_count), (100, 50_099));
    assert!(!t.was_line_truncated && t.was_byte_truncated);
    assert_eq!(
        t.content,
        warning(
            &raw[..24_548],
            "48.9KB (limit: 24.4KB) \u{2014} index entries are too long"
        )
    );
    assert_eq!(lines_cut(&raw, &TruncateOptions::default()), 49..100);
}

#[test]
fn both_caps() {
    let raw = lines_of(300, 201);
    let t = truncate_entrypoint(&raw, &TruncateOptions::default());
    assert_eq!((t.line_count, t.byte_count), (300, 60_599));
    assert!(t.was_line_truncated && t.was_byte_truncated);
    // 200 lines are 40,399 units: the unit cut still applies, at a line break.
    assert_eq!(t.content, warning(&raw[..24_845], "300 lines and 59.2KB"));
    assert_eq!(lines_cut(&raw, &TruncateOptions::default()), 123..300);
}

#[test]
fn line_cap_alone_can_bring_the_size_under_the_cap() {
    let raw = format!("{}\n{}", lines_of(200, 10), "x".repeat(25_000));
    let t = truncate_entrypoint(&raw, &TruncateOptions::default());
    assert!(t.was_line_truncated && t.was_byte_truncated);
    assert_eq!(
        t.content,
        warning(&lines_of(200, 10), "201 lines and 26.6KB")
    );
}

#[test]
fn trims_like_js_and_keeps_carriage_returns() {
    let t = truncate_entrypoint(
        "\u{FEFF}\u{A0} a \r\nb\r\n\u{A0}",
        &TruncateOptions::default(),
    );
    assert_eq!(t.content, "a \r\nb");
    assert_eq!((t.line_count, t.byte_count), (2, 5));
    assert!(!t.was_line_truncated && !t.was_byte_truncated);
}

#[test]
fn empty_index_is_one_line() {
    let t = truncate_entrypoint("", &TruncateOptions::default());
    assert_eq!(t.content, "");
    assert_eq!((t.line_count, t.byte_count), (1, 0));
    assert!(lines_cut("", &TruncateOptions::default()).is_empty());
}

#[test]
fn hard_cut_backs_off_instead_of_splitting_a_surrogate_pair() {
    let raw = format!("{}😀y", "x".repeat(24_999));
    let t = truncate_entrypoint(&raw, &TruncateOptions::default());
    assert_eq!(t.byte_count, 25_002);
    // The reference keeps 25,000 units, ending in a lone high surrogate; we keep 24,999.
    assert_eq!(
        t.content,
        warning(
            &"x".repeat(24_999),
            "24.4KB (limit: 24.4KB) \u{2014} index entries are too long"
        )
    );
}

#[test]
fn unit_cap_counts_utf16_units_not_bytes() {
    // 10,000 CJK characters are 30,000 UTF-8 bytes but 10,000 units: no cut.
    let raw = "日".repeat(10_000);
    let t = truncate_entrypoint(&raw, &TruncateOptions::default());
    assert_eq!(t.byte_count, 10_000);
    assert_eq!(t.content, raw);
}

#[test]
fn caps_are_configurable() {
    let options = TruncateOptions {
        max_lines: 3,
        max_units: 2048,
    };
    let raw = "a\nb\nc\nd";
    let t = truncate_entrypoint(raw, &options);
    assert_eq!(t.content, warning("a\nb\nc", "4 lines (limit: 3)"));
    let raw = "y".repeat(3000);
    let t = truncate_entrypoint(&raw, &options);
    assert_eq!(
        t.content,
        warning(
            &"y".repeat(2048),
            "2.9KB (limit: 2KB) \u{2014} index entries are too long"
        )
    );
}

#[test]
fn index_is_prepared_then_capped() {
    let raw = "---\nupdated: 2026-01-01\n---\n\n<!-- one line per memory -->\n- [A](a.md) — a\n";
    assert_eq!(prepare_index_for_model(raw), "- [A](a.md) — a\n");
    let loaded = load_index_for_model(raw, &TruncateOptions::default());
    assert_eq!(loaded.content, "- [A](a.md) — a");
    // An unclosed comment stays.
    assert_eq!(
        prepare_index_for_model("- a\n<!-- todo\n- b\n"),
        "- a\n<!-- todo\n- b\n"
    );
}

// ---------------------------------------------------------------------------------------------
// Frontmatter (§4.4 with our fixes)

fn description_of(block: &str) -> Option<String> {
    parse_frontmatter(&format!("---\n{block}\n---\nbody"))
        .header
        .description
}

#[test]
fn yaml_edge_cases_table() {
    let cases: &[(&str, Option<&str>)] = &[
        (
            "description: Fix: use the real DB",
            Some("Fix: use the real DB"),
        ),
        ("description: foo #bar", Some("foo")),
        ("description: a#b", Some("a#b")),
        ("description: yes", Some("yes")),
        ("description: no", Some("no")),
        ("description: on", Some("on")),
        ("description: off", Some("off")),
        ("description: true", Some("true")),
        ("description: False", None),
        ("description: null", None),
        ("description: ~", None),
        ("description: 42", Some("42")),
        ("description: 0x1F", Some("31")),
        ("description: 1e3", Some("1000")),
        ("description: 2026-03-05", Some("2026-03-05")),
        ("description: [a, b]", Some("a,b")),
        ("description: {weird}", Some("[object Object]")),
        ("description: @mention", Some("@mention")),
        ("description: `tick", Some("`tick")),
        ("description: %x", Some("%x")),
        ("description: *alias", Some("*alias")),
        ("description:\tx: y", Some("x: y")),
        ("description:", None),
        (
            "description: |\n  line one\n  line two",
            Some("line one\nline two\n"),
        ),
        // Our fix: an embedded `---` no longer ends the frontmatter.
        ("description: a---b", Some("a---b")),
    ];
    for (block, expected) in cases {
        assert_eq!(description_of(block).as_deref(), *expected, "{block:?}");
    }
}

#[test]
fn unrecoverable_lines_are_skipped_and_the_rest_kept() {
    // The reference loses the whole frontmatter here; we keep `name` and name the odd line.
    for block in [
        "name: kept\ndescription: - item",
        "name: kept\ndescription2: a: b",
    ] {
        let parsed = parse_frontmatter(&format!("---\n{block}\n---\nbody"));
        assert_eq!(parsed.frontmatter.len(), 1, "{block:?}");
        assert_eq!(parsed.header.name.as_deref(), Some("kept"));
        assert_eq!(parsed.header.description, None);
        assert_eq!(parsed.body, "body");
        assert_eq!(parsed.diagnostics.len(), 2, "{:?}", parsed.diagnostics);
        assert!(parsed.diagnostics[1].contains("line 2 is not YAML"));
    }
}

#[test]
fn duplicate_keys_keep_the_last_value() {
    let parsed =
        parse_frontmatter("---\ndescription: first\ntype: user\ndescription: second\n---\n");
    assert_eq!(parsed.header.description.as_deref(), Some("second"));
    assert_eq!(parsed.header.memory_type, Some(MemoryType::User));
    assert_eq!(parsed.frontmatter.len(), 2);
    assert_eq!(parsed.diagnostics.len(), 1);
    assert!(parsed.diagnostics[0].contains("description"));
    // Also when the quoting retry is needed.
    let parsed = parse_frontmatter("---\ndescription: a: b\ndescription: c: d\n---\n");
    assert_eq!(parsed.header.description.as_deref(), Some("c: d"));
    assert_eq!(parsed.diagnostics.len(), 2);
}

#[test]
fn crlf_files_parse() {
    let parsed = parse_frontmatter(
        "---\r\nname: Role\r\ndescription: Senior Go dev\r\ntype: user\r\n---\r\n\r\nBody\r\n",
    );
    assert_eq!(parsed.header.name.as_deref(), Some("Role"));
    assert_eq!(parsed.header.description.as_deref(), Some("Senior Go dev"));
    assert_eq!(parsed.header.memory_type, Some(MemoryType::User));
    assert_eq!(parsed.body, "Body\r\n");
    // The quoting retry does not apply to CRLF lines (JS `.` stops at `\r`), as in the reference.
    let parsed = parse_frontmatter("---\r\ndescription: a: b\r\n---\r\n");
    assert!(parsed.frontmatter.is_empty());
}

#[test]
fn bom_before_the_delimiter_means_no_frontmatter() {
    let text = "\u{FEFF}---\ndescription: x\n---\nbody";
    let parsed = parse_frontmatter(text);
    assert!(parsed.frontmatter.is_empty());
    assert_eq!(parsed.body, text);
}

#[test]
fn type_is_case_sensitive() {
    for (value, expected) in [
        ("user", Some(MemoryType::User)),
        ("feedback", Some(MemoryType::Feedback)),
        ("project", Some(MemoryType::Project)),
        ("reference", Some(MemoryType::Reference)),
        ("User", None),
        ("\"user \"", None),
        ("1", None),
    ] {
        let parsed = parse_frontmatter(&format!("---\ntype: {value}\n---\n"));
        assert_eq!(parsed.header.memory_type, expected, "{value}");
    }
}

#[test]
fn opening_delimiter_rules() {
    assert!(parse_frontmatter("----\nname: x\n---\n")
        .frontmatter
        .is_empty());
    assert!(parse_frontmatter("\n---\nname: x\n---\n")
        .frontmatter
        .is_empty());
    let parsed = parse_frontmatter("---  \t\n\nname: x\n---   \nbody");
    assert_eq!(parsed.header.name.as_deref(), Some("x"));
    assert_eq!(parsed.body, "body");
}

#[test]
fn format_then_parse_round_trips() {
    let header = MemoryFields {
        name: Some("--- # : \"quoted\" \\ \n second line".into()),
        description: Some("- [x]: {y} 😀 \u{2028} \t".into()),
        memory_type: Some(MemoryType::Reference),
    };
    let body = "\n---\nnot frontmatter\n";
    let parsed = parse_frontmatter(&format_memory_file(&header, body));
    assert_eq!(parsed.header, header);
    assert_eq!(parsed.body, body);
    assert!(parsed.diagnostics.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Hostile inputs: nothing may panic

fn exercise(text: &str) {
    let parsed = parse_frontmatter(text);
    let _ = format_memory_file(&parsed.header, &parsed.body);
    for options in [
        TruncateOptions::default(),
        TruncateOptions {
            max_lines: 3,
            max_units: 7,
        },
        TruncateOptions {
            max_lines: 0,
            max_units: 0,
        },
    ] {
        let _ = load_index_for_model(text, &options);
        let t = truncate_entrypoint(text, &options);
        assert!(t.line_count >= 1);
        let cut = lines_cut(text, &options);
        assert!(cut.end == t.line_count && cut.start <= cut.end);
        if !t.was_line_truncated && !t.was_byte_truncated {
            assert!(cut.is_empty());
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(7);
    let alphabet: &[u8] = b"---\n\r\t :#\"'\\{}[]-|>!&*%@`<!-->abc\xF0\x9F\x98\x80\xEF\xBB\xBF\xC2\xA0\xE2\x80\xA8\xFF";
    for i in 0..3_000 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                if i % 2 == 0 {
                    alphabet[rng.below(alphabet.len())]
                } else {
                    rng.next() as u8
                }
            })
            .collect();
        let text = String::from_utf8_lossy(&bytes);
        exercise(&text);
        exercise(&format!("---\n{text}\n---\n{text}"));
    }
}

#[test]
fn deep_nesting_never_panics() {
    for depth in [100, 200, 10_000] {
        let flow = format!("---\na: {}{}\n---\n", "[".repeat(depth), "]".repeat(depth));
        exercise(&flow);
        let maps = format!(
            "---\na: {}x{}\n---\n",
            "{a: ".repeat(depth),
            "}".repeat(depth)
        );
        exercise(&maps);
        let block: String = (0..depth.min(500))
            .map(|i| format!("{}k:\n", " ".repeat(i)))
            .collect();
        exercise(&format!("---\n{block}---\n"));
        exercise(&format!("---\ndescription: {}\n---\n", "- ".repeat(depth)));
    }
}

#[test]
fn megabyte_inputs_are_handled() {
    let line = "- [Some memory](some_memory.md) — a hook that is reasonably long 😀\n";
    let index = line.repeat(1_000_000 / line.len() + 1);
    assert!(index.len() > 1_000_000);
    let t = truncate_entrypoint(&index, &TruncateOptions::default());
    assert!(t.was_line_truncated && t.was_byte_truncated);
    assert_eq!(lines_cut(&index, &TruncateOptions::default()).start, 200);
    exercise(&index);

    let huge_value = format!("---\ndescription: {}\n---\nbody", "x: ".repeat(350_000));
    let parsed = parse_frontmatter(&huge_value);
    assert!(parsed.header.description.is_some());
    let no_newlines = "a".repeat(1_100_000);
    exercise(&no_newlines);
    exercise(&format!("---\n{}", "k: v\n".repeat(220_000)));
}

#[test]
fn non_string_keys_become_js_property_names() {
    let parsed =
        memdir::parse_frontmatter("---\n1.5: a\ntrue: b\n~: c\n[x, y]: d\ndescription: ok\n---\n");
    let keys: Vec<String> = parsed
        .frontmatter
        .keys()
        .map(|k| k.as_str().unwrap_or("<not a string>").to_owned())
        .collect();
    assert_eq!(keys, ["1.5", "true", "null", "x,y", "description"]);
    assert_eq!(parsed.header.description.as_deref(), Some("ok"));
}
