//! Prompt builders (reference §8, §3.3, §16.25–27) and `Memdir::load_prompt` (§8.6, §14).

mod common;

use common::{block_on, Event, Op, Recorder, Tap, TestClock};
use memdir::host::FsCapabilities;
use memdir::prompt::{
    build_consolidation_prompt, build_extract_prompt, build_memory_prompt, how_to_save,
    searching_past_context, types_section, unknown_section_ids, AgentScope, IndexUsage,
    PromptConfig, PromptMode, PromptOptions, SearchForm, ToolNames, EMPTY_INDEX_NOTICE,
    EXTRACT_RESPONSE_SCHEMA, SECTION_IDS,
};
use memdir::{
    EntryKind, FieldValue, FileSystem, MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry, Telemetry,
    WriteMode,
};
use std::cell::RefCell;

const DIR: &str = "/home/u/.claude/projects/p/memory/";

fn options(mode: PromptMode) -> PromptOptions {
    PromptOptions::new(mode, DIR)
}

fn headings(prompt: &str) -> Vec<&str> {
    prompt.split('\n').filter(|l| l.starts_with('#')).collect()
}

/// Index of the line equal to `line`.
fn line_index(prompt: &str, line: &str) -> usize {
    prompt
        .split('\n')
        .position(|l| l == line)
        .unwrap_or_else(|| panic!("no line {line:?} in:\n{prompt}"))
}

fn line_at(prompt: &str, i: usize) -> &str {
    prompt.split('\n').nth(i).unwrap()
}

/// Occurrences of `word` not touching other alphanumerics.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

const INDIVIDUAL_HEADINGS: [&str; 7] = [
    "# auto memory",
    "## Types of memory",
    "## What NOT to save in memory",
    "## How to save memories",
    "## When to access memories",
    "## Before recommending from memory",
    "## Memory and other forms of persistence",
];

// ---------------------------------------------------------------- individual

#[test]
fn individual_sections_in_reference_order() {
    let prompt = build_memory_prompt(&options(PromptMode::Individual));
    assert_eq!(headings(&prompt), INDIVIDUAL_HEADINGS);
    assert!(prompt.starts_with("# auto memory\n\n"));
    // Line 3 names the directory and says it exists (reference §8.2 item 2).
    let location = line_at(&prompt, 2);
    assert!(location.contains(&format!("`{DIR}`")), "{location}");
    assert!(location.contains("Write tool"), "{location}");
    assert_eq!(line_at(&prompt, 3), "");
    assert!(!prompt.contains("<scope>"));
    assert!(!prompt.contains("## Memory scope"));
    assert!(!prompt.contains("## Searching past context"));
}

#[test]
fn individual_blank_line_placement() {
    let prompt = build_memory_prompt(&options(PromptMode::Individual));
    // Headings followed by a blank line …
    for heading in [
        "## Types of memory",
        "## What NOT to save in memory",
        "## How to save memories",
        "## Before recommending from memory",
    ] {
        assert_eq!(
            line_at(&prompt, line_index(&prompt, heading) + 1),
            "",
            "{heading}"
        );
    }
    // … and the two that are not.
    for heading in [
        "## When to access memories",
        "## Memory and other forms of persistence",
    ] {
        assert_ne!(line_at(&prompt, line_index(&prompt, heading) + 1), "");
    }
    // Every `##` heading has exactly one blank line before it.
    for heading in &INDIVIDUAL_HEADINGS[1..] {
        let i = line_index(&prompt, heading);
        assert_eq!(line_at(&prompt, i - 1), "", "{heading}");
        assert_ne!(line_at(&prompt, i - 2), "", "{heading}");
    }
    // `</types>` is followed by one blank then the next heading.
    let close = line_index(&prompt, "</types>");
    assert_eq!(line_at(&prompt, close + 1), "");
    assert_eq!(line_at(&prompt, close + 2), "## What NOT to save in memory");
    // No guidelines: the reference still emits the blank after them (§16.27) → two blanks at the end.
    assert!(prompt.ends_with("instead of memory.\n\n"), "{prompt}");
    assert!(!prompt.ends_with("\n\n\n"));
}

#[test]
fn individual_extra_guidelines_blank_before_and_after() {
    let mut o = options(PromptMode::Individual);
    o.extra_guidelines = vec!["- Host rule one.".to_owned(), "- Host rule two.".to_owned()];
    let prompt = build_memory_prompt(&o);
    assert!(
        prompt.ends_with("instead of memory.\n\n- Host rule one.\n- Host rule two.\n"),
        "{prompt}"
    );
}

#[test]
fn blank_extra_guidelines_are_dropped() {
    let mut o = options(PromptMode::Individual);
    o.extra_guidelines = vec!["  ".to_owned(), "\u{FEFF}\n".to_owned(), String::new()];
    assert_eq!(
        build_memory_prompt(&o),
        build_memory_prompt(&options(PromptMode::Individual))
    );
}

#[test]
fn individual_how_to_save_with_and_without_index() {
    let with = build_memory_prompt(&options(PromptMode::Individual));
    let step1 = line_index(&with, "## How to save memories") + 4;
    assert!(line_at(&with, step1).starts_with("**Step 1** — "));
    assert!(line_at(&with, step1).ends_with("frontmatter:"));
    assert_eq!(line_at(&with, step1 + 1), "");
    assert_eq!(line_at(&with, step1 + 2), "```markdown");
    assert!(with.contains("`- [Title](file.md) — one-line hook`"));
    assert!(with.contains("\n**Step 2** — "));
    assert!(with.contains("- MEMORY.md is always loaded into your context"));
    assert!(with.contains("lines past 200"));

    let mut o = options(PromptMode::Individual);
    o.skip_index = true;
    let without = build_memory_prompt(&o);
    assert_eq!(headings(&without), INDIVIDUAL_HEADINGS);
    assert!(!without.contains("**Step"));
    assert!(!without.contains("one-line hook"));
    assert!(!without.contains("always loaded"));
    let intro = line_index(&without, "## How to save memories") + 2;
    assert!(line_at(&without, intro).ends_with("frontmatter:"));
    // The four upkeep bullets remain (reference §8.2 item 6).
    let section = how_to_save(false, true);
    assert_eq!(section.iter().filter(|l| l.starts_with("- ")).count(), 4);
    assert_eq!(
        how_to_save(false, false)
            .iter()
            .filter(|l| l.starts_with("- "))
            .count(),
        5
    );
}

#[test]
fn frontmatter_example_placeholders() {
    let prompt = build_memory_prompt(&options(PromptMode::Individual));
    let start = line_index(&prompt, "```markdown");
    let block: Vec<&str> = prompt.split('\n').skip(start).take(9).collect();
    assert_eq!(block[1], "---");
    assert_eq!(block[2], "name: {{memory name}}");
    assert!(block[3].starts_with("description: {{") && block[3].ends_with("}}"));
    assert_eq!(block[4], "type: {{user, feedback, project, reference}}");
    assert_eq!(block[5], "---");
    assert_eq!(block[6], "");
    assert!(block[7].starts_with("{{") && block[7].contains("**Why:**"));
    assert!(block[7].contains("**How to apply:**"));
    assert_eq!(block[8], "```");
}

#[test]
fn types_section_structure() {
    let lines = types_section(false);
    assert_eq!(
        lines[..5],
        ["## Types of memory", "", lines[2].as_str(), "", "<types>"]
    );
    assert_eq!(lines.last().unwrap(), "</types>");
    let names: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("    <name>"))
        .collect();
    assert_eq!(
        names,
        [
            "user</name>",
            "feedback</name>",
            "project</name>",
            "reference</name>"
        ]
    );
    assert_eq!(lines.iter().filter(|l| *l == "<type>").count(), 4);
    assert_eq!(lines.iter().filter(|l| *l == "</type>").count(), 4);
    // Only feedback and project carry a body structure with Why / How to apply.
    let bodies: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("    <body_structure>"))
        .collect();
    assert_eq!(bodies.len(), 2);
    assert!(bodies
        .iter()
        .all(|b| b.contains("**Why:**") && b.contains("**How to apply:**")));
    for tag in ["description", "when_to_save", "how_to_use"] {
        let open = format!("    <{tag}>");
        let close = format!("</{tag}>");
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with(&open) && l.ends_with(&close))
                .count(),
            4,
            "{tag}"
        );
    }
    // Example pairs: user line then assistant line, pairs separated by a blank line.
    let user_lines = lines.iter().filter(|l| l.starts_with("    user: ")).count();
    let saves = lines
        .iter()
        .filter(|l| l.starts_with("    assistant: [saves ") && l.ends_with(']'))
        .count();
    assert_eq!((user_lines, saves), (8, 8));
    assert!(lines.contains(&"    assistant: [saves user memory: works mainly in data science and is new to Rust; explain borrow-checker problems with Python analogies]".to_owned()));
}

// ---------------------------------------------------------------- combined

#[test]
fn combined_sections_scope_lines_and_secrets() {
    let prompt = build_memory_prompt(&options(PromptMode::Combined));
    assert_eq!(
        headings(&prompt),
        [
            "# Memory",
            "## Memory scope",
            "## Types of memory",
            "## What NOT to save in memory",
            "## How to save memories",
            "## When to access memories",
            "## Before recommending from memory",
            "## Memory and other forms of persistence",
        ]
    );
    let team = format!("{DIR}team/");
    assert!(line_at(&prompt, 2).contains(&format!("`{DIR}`")));
    assert!(line_at(&prompt, 2).contains(&format!("`{team}`")));
    // Scope block: heading, blank, sentence, blank, two bullets, blank.
    let scope = line_index(&prompt, "## Memory scope");
    assert_eq!(line_at(&prompt, scope + 1), "");
    assert_eq!(line_at(&prompt, scope + 3), "");
    assert!(line_at(&prompt, scope + 4).starts_with("- private: "));
    assert!(line_at(&prompt, scope + 4).contains(&format!("`{DIR}`")));
    assert!(line_at(&prompt, scope + 5).starts_with("- team: "));
    assert!(line_at(&prompt, scope + 5).contains(&format!("`{team}`")));
    assert_eq!(line_at(&prompt, scope + 6), "");
    // <scope> right after <name>, per type.
    for (name, scope) in [
        ("user", "always private"),
        ("project", "private or team, but strongly bias toward team"),
        ("reference", "usually team"),
    ] {
        assert!(
            prompt.contains(&format!(
                "    <name>{name}</name>\n    <scope>{scope}</scope>\n"
            )),
            "{name}"
        );
    }
    assert!(prompt.contains("    <name>feedback</name>\n    <scope>private by default."));
    assert!(prompt.contains("[saves private feedback memory: "));
    assert!(prompt.contains("[saves team feedback memory: "));
    // The secrets bullet closes the what-not-to-save section, then a blank line.
    let secrets = prompt
        .split('\n')
        .position(|l| l.starts_with("- You MUST NOT put sensitive data"))
        .unwrap();
    assert!(line_at(&prompt, secrets - 1).starts_with("These exclusions hold"));
    assert_eq!(line_at(&prompt, secrets + 1), "");
    assert_eq!(line_at(&prompt, secrets + 2), "## How to save memories");
    // Combined first bullet of when-to-access differs from individual.
    let when = line_index(&prompt, "## When to access memories");
    assert!(line_at(&prompt, when + 1).contains("the team's"));
    assert!(prompt.contains("- Both MEMORY.md indexes are always loaded"));
    assert!(prompt.contains("each directory keeps its own index"));
    let individual = build_memory_prompt(&options(PromptMode::Individual));
    assert!(!individual.contains("sensitive data"));
}

#[test]
fn combined_extra_guidelines_have_no_blank_before() {
    let mut o = options(PromptMode::Combined);
    o.extra_guidelines = vec!["- Host rule.".to_owned()];
    let prompt = build_memory_prompt(&o);
    assert!(
        prompt.ends_with("instead of memory.\n- Host rule.\n"),
        "{prompt}"
    );
    let none = build_memory_prompt(&options(PromptMode::Combined));
    assert!(none.ends_with("instead of memory.\n"), "{none}");
}

#[test]
fn combined_skip_index_and_custom_team_dir() {
    let mut o = options(PromptMode::Combined);
    o.skip_index = true;
    o.team_dir = Some("/shared/team/".to_owned());
    let prompt = build_memory_prompt(&o);
    assert!(!prompt.contains("**Step"));
    assert!(!prompt.contains("Both MEMORY.md indexes"));
    assert!(prompt.contains("`/shared/team/`"));
    assert!(!prompt.contains(&format!("{DIR}team/")));
}

// ---------------------------------------------------------------- daily log

#[test]
fn daily_log_structure_and_literal_pattern() {
    let prompt = build_memory_prompt(&options(PromptMode::DailyLog));
    assert_eq!(
        headings(&prompt),
        [
            "# auto memory",
            "## What to log",
            "## What NOT to save in memory",
            "## MEMORY.md"
        ]
    );
    let path = line_index(&prompt, &format!("`{DIR}logs/YYYY/MM/YYYY-MM-DD.md`"));
    assert_eq!(path, 6);
    assert_eq!(line_at(&prompt, path - 1), "");
    assert_eq!(line_at(&prompt, path + 1), "");
    assert!(line_at(&prompt, 2).ends_with(&format!("`{DIR}`")));
    assert!(!prompt.contains("Write tool"), "no dir-exists guidance");
    let what = line_index(&prompt, "## What to log");
    let bullets: Vec<&str> = prompt
        .split('\n')
        .skip(what + 1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(bullets.len(), 5);
    assert!(bullets.iter().all(|b| b.starts_with("- ")));
    let index = line_index(&prompt, "## MEMORY.md");
    assert_ne!(line_at(&prompt, index + 1), "");
    assert!(prompt.ends_with("instead.\n"));
    assert!(!prompt.contains("## Types of memory"));

    let mut o = options(PromptMode::DailyLog);
    o.skip_index = true;
    let skipped = build_memory_prompt(&o);
    assert!(!skipped.contains("## MEMORY.md"));
    assert!(
        skipped.ends_with("that part is worth keeping.\n"),
        "{skipped}"
    );
}

// ---------------------------------------------------------------- agent

#[test]
fn agent_mode_with_and_without_index() {
    let mut o = options(PromptMode::Agent);
    o.agent_scope = Some(AgentScope::Local);
    o.agent_index = Some("- [A](a.md) — hook".to_owned());
    let prompt = build_memory_prompt(&o);
    assert!(prompt.starts_with("# Persistent Agent Memory\n\n"));
    let mut expected = INDIVIDUAL_HEADINGS.to_vec();
    expected[0] = "# Persistent Agent Memory";
    expected.push("## MEMORY.md");
    assert_eq!(headings(&prompt), expected);
    assert!(prompt.contains(
        "instead of memory.\n\n- This memory has local scope and stays out of version control"
    ));
    assert!(
        prompt.ends_with("machine.\n\n## MEMORY.md\n\n- [A](a.md) — hook"),
        "{prompt}"
    );
    // skip_index does not apply to agent memory.
    o.skip_index = true;
    assert_eq!(build_memory_prompt(&o), prompt);

    for index in [None, Some(" \n\u{FEFF}".to_owned())] {
        let mut o = options(PromptMode::Agent);
        o.agent_index = index;
        let empty = build_memory_prompt(&o);
        assert!(
            empty.ends_with(&format!(
                "instead of memory.\n\n\n## MEMORY.md\n\n{EMPTY_INDEX_NOTICE}"
            )),
            "{empty}"
        );
    }
}

#[test]
fn agent_scope_notes_differ() {
    let notes: Vec<String> = [AgentScope::User, AgentScope::Project, AgentScope::Local]
        .into_iter()
        .map(|s| memdir::prompt::agent_scope_note(s).to_owned())
        .collect();
    assert!(notes
        .iter()
        .all(|n| n.starts_with("- ") && !n.contains('\n')));
    assert!(notes[0].contains("user scope"));
    assert!(notes[1].contains("project scope"));
    assert!(notes[2].contains("local scope"));
}

// ---------------------------------------------------------------- searching

#[test]
fn searching_section_shell_and_tool_forms() {
    let shell = searching_past_context(
        SearchForm::Shell,
        &ToolNames::default(),
        "/m/",
        Some("/c/projects/-p"),
    );
    assert_eq!(shell[0], "## Searching past context");
    assert_eq!(shell[1], "");
    assert!(shell[3].starts_with("1. "));
    assert_eq!(
        shell[4..7],
        [
            "```",
            "grep -rn \"<search term>\" /m/ --include=\"*.md\"",
            "```"
        ]
    );
    assert!(shell[7].starts_with("2. "));
    assert_eq!(
        shell[8..11],
        [
            "```",
            "grep -rn \"<search term>\" /c/projects/-p/ --include=\"*.jsonl\"",
            "```"
        ]
    );
    assert_eq!(shell.len(), 12);

    let tools = ToolNames {
        grep: "Search".to_owned(),
        ..ToolNames::default()
    };
    let tool = searching_past_context(SearchForm::Tool, &tools, "/m/", None);
    assert_eq!(
        tool[5],
        "Search with pattern=\"<search term>\" path=\"/m/\" glob=\"*.md\""
    );
    assert_eq!(
        tool.len(),
        8,
        "no transcript step without a transcripts dir"
    );
}

#[test]
fn searching_section_placement_per_mode() {
    for (mode, before) in [
        (PromptMode::Individual, "instead of memory.\n\n\n"),
        (PromptMode::Combined, "instead of memory.\n\n"),
        (PromptMode::DailyLog, "instead.\n\n"),
    ] {
        let mut o = options(mode);
        o.searching_past_context = Some(SearchForm::Shell);
        let prompt = build_memory_prompt(&o);
        assert!(
            prompt.contains(&format!("{before}## Searching past context\n\n")),
            "{mode:?}: {prompt}"
        );
        assert!(prompt.ends_with("a function name.\n"), "{mode:?}");
    }
}

// ---------------------------------------------------------------- tools and overrides

#[test]
fn renamed_tools_leave_no_default_tool_names() {
    let tools = ToolNames {
        write: "SaveFile".to_owned(),
        edit: "PatchFile".to_owned(),
        read: "OpenFile".to_owned(),
        grep: "FindText".to_owned(),
        glob: "FindFiles".to_owned(),
        bash: "Shell".to_owned(),
    };
    for mode in [
        PromptMode::Individual,
        PromptMode::Combined,
        PromptMode::DailyLog,
        PromptMode::Agent,
    ] {
        let mut o = options(mode);
        o.tool_names = tools.clone();
        o.searching_past_context = Some(SearchForm::Tool);
        o.transcripts_dir = Some("/t".to_owned());
        o.agent_scope = Some(AgentScope::Project);
        let prompt = build_memory_prompt(&o);
        for default in ["Write", "Edit", "Read", "Grep", "Glob", "Bash"] {
            assert!(!has_word(&prompt, default), "{mode:?} mentions {default}");
        }
        assert!(prompt.contains("FindText with pattern="), "{mode:?}");
        if mode != PromptMode::DailyLog {
            assert!(prompt.contains("SaveFile tool"), "{mode:?}");
            assert!(
                prompt.contains("search for it with the FindText tool"),
                "{mode:?}"
            );
        }
    }
    let dream = build_consolidation_prompt("/m/", Some("/t"), None, &tools);
    assert!(dream.contains("SaveFile tool"));
    let extract = build_extract_prompt(3, "", true, false);
    for default in ["Write", "Edit", "Read", "Grep", "Glob", "Bash"] {
        assert!(!has_word(&dream, default), "dream mentions {default}");
        assert!(!has_word(&extract, default), "extract mentions {default}");
    }
}

#[test]
fn default_tool_names_appear() {
    let mut o = options(PromptMode::Individual);
    o.searching_past_context = Some(SearchForm::Tool);
    let prompt = build_memory_prompt(&o);
    assert!(prompt.contains("with the Write tool"));
    assert!(prompt.contains("with the Grep tool"));
    assert!(prompt.contains("Grep with pattern=\"<search term>\""));
}

#[test]
fn section_override_replaces_exactly_that_section() {
    let base = build_memory_prompt(&options(PromptMode::Individual));
    let types_text = types_section(false).join("\n");
    assert_eq!(base.matches(&types_text).count(), 1);

    let mut o = options(PromptMode::Individual);
    o.section_overrides
        .insert("types".to_owned(), "## Kinds\n\nCUSTOM".to_owned());
    assert_eq!(
        build_memory_prompt(&o),
        base.replace(&types_text, "## Kinds\n\nCUSTOM")
    );

    // Empty override drops the section and its following blank line.
    o.section_overrides
        .insert("types".to_owned(), String::new());
    let dropped = build_memory_prompt(&o);
    assert_eq!(dropped, base.replace(&format!("{types_text}\n\n"), ""));
    assert!(!dropped.contains("<types>"));

    // Every section of every mode can be overridden; the marker shows up once.
    for mode in [
        PromptMode::Individual,
        PromptMode::Combined,
        PromptMode::DailyLog,
        PromptMode::Agent,
    ] {
        for id in SECTION_IDS {
            let mut o = options(mode);
            o.searching_past_context = Some(SearchForm::Shell);
            o.section_overrides
                .insert((*id).to_owned(), format!("OVERRIDE {id}"));
            let prompt = build_memory_prompt(&o);
            let applies = match *id {
                "memory-scope" => mode == PromptMode::Combined,
                "what-to-log" | "daily-log-index" => mode == PromptMode::DailyLog,
                "types" | "how-to-save" | "when-to-access" | "trusting-recall" | "persistence" => {
                    mode != PromptMode::DailyLog
                }
                // Only when the index nears its caps (no usage given here).
                "index-compaction" => false,
                _ => true,
            };
            assert_eq!(
                prompt.matches(&format!("OVERRIDE {id}")).count(),
                usize::from(applies),
                "{mode:?} {id}"
            );
        }
    }
}

#[test]
fn override_of_absent_section_adds_nothing() {
    let mut o = options(PromptMode::Individual);
    o.section_overrides
        .insert("searching-past-context".to_owned(), "X".to_owned());
    assert_eq!(
        build_memory_prompt(&o),
        build_memory_prompt(&options(PromptMode::Individual))
    );
    assert_eq!(
        unknown_section_ids(&o.section_overrides),
        Vec::<&str>::new()
    );
    o.section_overrides
        .insert("type".to_owned(), "X".to_owned());
    assert_eq!(unknown_section_ids(&o.section_overrides), ["type"]);
}

// ---------------------------------------------------------------- serde

#[test]
fn options_deserialize_from_camel_case() {
    let json = r#"{"mode":"daily-log","memoryDir":"/m/","skipIndex":true,
        "extraGuidelines":["- a"],"searchingPastContext":"tool","transcriptsDir":"/t",
        "toolNames":{"write":"SaveFile"},"sectionOverrides":{"what-to-log":"W"},
        "agentScope":"local","displayName":"mem"}"#;
    let o: PromptOptions = serde_yaml::from_str(json).unwrap();
    assert_eq!(o.mode, PromptMode::DailyLog);
    assert!(o.skip_index);
    assert_eq!(o.extra_guidelines, ["- a"]);
    assert_eq!(o.searching_past_context, Some(SearchForm::Tool));
    assert_eq!(o.tool_names.write, "SaveFile");
    assert_eq!(o.tool_names.grep, "Grep");
    assert_eq!(o.agent_scope, Some(AgentScope::Local));
    assert_eq!(o.display_name(), "mem");
    assert!(serde_yaml::from_str::<PromptOptions>(r#"{"mode":"individual"}"#).is_err());
    assert!(
        serde_yaml::from_str::<PromptOptions>(r#"{"memoryDir":"/m/","skipindex":true}"#).is_err()
    );
    let c: PromptConfig = serde_yaml::from_str(r#"{"team":true}"#).unwrap();
    assert_eq!(c.effective_mode(), PromptMode::Combined);
    let c: PromptConfig = serde_yaml::from_str(r#"{"team":true,"mode":"agent"}"#).unwrap();
    assert_eq!(c.effective_mode(), PromptMode::Agent);
}

// ---------------------------------------------------------------- extraction, consolidation

#[test]
fn extract_prompt_structure() {
    let manifest = "- [user] user_role.md (2023-11-14T22:13:20.123Z): Senior Go dev";
    let prompt = build_extract_prompt(7, manifest, false, false);
    let paragraphs: Vec<&str> = prompt.split("\n\n").take(4).collect();
    assert!(paragraphs[0].contains("~7 messages"));
    assert!(paragraphs[1].contains("{\"operations\":[…]}"));
    assert!(paragraphs[1].contains("`create`, `update` or `delete`"));
    assert!(paragraphs[2].contains("{\"operations\":[]}"));
    assert!(paragraphs[3].starts_with("You MUST draw only on what the last ~7 messages"));
    assert!(prompt.contains(&format!("\n\n## Existing memory files\n\n{manifest}\n\n")));
    assert_eq!(
        headings(&prompt),
        [
            "## Existing memory files",
            "## Types of memory",
            "## What NOT to save in memory",
            "## How to save memories"
        ]
    );
    assert!(prompt.contains("\n**Step 2** — "));
    assert!(prompt.contains("- MEMORY.md is always loaded into your system prompt"));
    assert!(prompt.contains("```json\n{\n  \"operations\": [\n"));
    assert!(!prompt.contains("\"scope\""));
    assert!(!prompt.contains("<scope>"));
    assert!(!prompt.contains("Keep the name, description and type"));

    let combined = build_extract_prompt(2, "", true, true);
    assert!(!combined.contains("## Existing memory files"));
    assert!(combined.contains("<scope>always private</scope>"));
    assert!(combined.contains("Set `scope` to `team`"));
    assert!(combined.contains("\"scope\": \"{{private or team"));
    assert!(combined.contains("- You MUST NOT put sensitive data"));
    assert!(!combined.contains("**Step"));
    assert!(!combined.contains("always loaded"));
}

#[test]
fn extract_schema_is_json() {
    let schema: serde_yaml::Value = serde_yaml::from_str(EXTRACT_RESPONSE_SCHEMA).unwrap();
    let ops = &schema["properties"]["operations"]["items"];
    assert_eq!(ops["required"][0].as_str(), Some("op"));
    assert_eq!(ops["properties"]["scope"]["enum"][1].as_str(), Some("team"));
    assert_eq!(ops["properties"]["op"]["enum"][2].as_str(), Some("delete"));
}

#[test]
fn consolidation_prompt_structure() {
    let prompt = build_consolidation_prompt("/m/", Some("/t"), None, &ToolNames::default());
    assert_eq!(
        headings(&prompt),
        [
            "# Dream: Memory Consolidation",
            "## Phase 1 — Orient",
            "## Phase 2 — Gather recent signal",
            "## Phase 3 — Consolidate",
            "## Phase 4 — Prune and index",
        ]
    );
    assert_eq!(prompt.matches("\n---\n").count(), 2);
    assert!(prompt.contains("\nMemory directory: `/m/`\n"));
    assert!(prompt.contains("\nSession transcripts: `/t/` ("));
    assert!(prompt.contains("under 200 lines AND about 25KB"));
    assert!(!prompt.contains("## Additional context"));
    assert_eq!(
        build_consolidation_prompt("/m/", Some("/t"), Some(""), &ToolNames::default()),
        prompt
    );
    let with = build_consolidation_prompt(
        "/m/",
        None,
        Some("Sessions since last consolidation (1):\n- abc"),
        &ToolNames::default(),
    );
    assert!(with
        .ends_with("\n\n## Additional context\n\nSessions since last consolidation (1):\n- abc"));
    assert!(!with.contains("Session transcripts"));
    assert!(!with.contains("grep -rn"));
}

// ---------------------------------------------------------------- load_prompt

/// A MemFs whose `mkdir` always fails, offering only the required methods.
fn no_mkdir_fs() -> Tap<Box<MemFs>> {
    let mut fs = Tap::with_caps(Box::new(MemFs::new()), FsCapabilities::default());
    fs.denied = vec![Op::Mkdir];
    fs
}

fn config(write_mode: WriteMode, prompt: PromptConfig) -> MemdirConfig {
    MemdirConfig {
        write_mode,
        prompt,
        ..MemdirConfig::new("/m/")
    }
}

fn memdir_with<F: FileSystem, T: Telemetry>(
    fs: F,
    telemetry: T,
    config: MemdirConfig,
) -> Memdir<F, TestClock, NoLlm, T> {
    Memdir::new(fs, TestClock::new(0.0), None::<NoLlm>, telemetry, config)
}

fn str_field(s: &str) -> FieldValue {
    FieldValue::Str(s.to_owned())
}

fn loaded(memory_type: &str, files: f64, dirs: f64) -> Event {
    (
        "memdir_loaded".to_owned(),
        vec![
            ("memory_type".to_owned(), str_field(memory_type)),
            ("total_file_count".to_owned(), FieldValue::Num(files)),
            ("total_subdir_count".to_owned(), FieldValue::Num(dirs)),
        ],
    )
}

#[test]
fn load_individual_creates_dir_and_reports_counts() {
    let fs = MemFs::new();
    fs.insert_file("/m/MEMORY.md", "- [A](a.md) — hook");
    fs.insert_file("/m/a.md", "---\nname: a\n---\nbody");
    fs.insert_file("/m/logs/2025/01/2025-01-01.md", "- x");
    fs.insert_file("/m/team/t.md", "t");
    let rec = Recorder::default();
    let m = memdir_with(
        fs,
        rec.clone(),
        config(WriteMode::Auto, PromptConfig::default()),
    );
    let prompt = block_on(m.load_prompt()).unwrap().unwrap();
    assert_eq!(
        prompt,
        build_memory_prompt(&PromptOptions::new(PromptMode::Individual, "/m/"))
    );
    assert_eq!(rec.events(), [loaded("auto", 2.0, 2.0)]);

    let fresh = memdir_with(
        MemFs::new(),
        rec.clone(),
        config(WriteMode::Auto, PromptConfig::default()),
    );
    block_on(fresh.load_prompt()).unwrap().unwrap();
    assert_eq!(
        block_on(fresh.fs().stat("/m/")).unwrap().kind,
        EntryKind::Dir
    );
    assert_eq!(rec.events()[1], loaded("auto", 0.0, 0.0));
}

#[test]
fn load_off_returns_none_and_reports_disabled() {
    let rec = Recorder::default();
    let prompt_config = PromptConfig {
        team: true,
        ..PromptConfig::default()
    };
    let m = memdir_with(
        MemFs::new(),
        rec.clone(),
        config(WriteMode::Off, prompt_config),
    );
    assert_eq!(block_on(m.load_prompt()).unwrap(), None);
    assert_eq!(
        rec.events(),
        [
            (
                "memdir_disabled".to_owned(),
                vec![("disabled_by_setting".to_owned(), FieldValue::Bool(true))]
            ),
            ("team_memdir_disabled".to_owned(), vec![]),
        ]
    );
    assert!(block_on(m.fs().stat("/m/")).is_err(), "nothing created");

    let solo = Recorder::default();
    let m = memdir_with(
        MemFs::new(),
        solo.clone(),
        config(WriteMode::Off, PromptConfig::default()),
    );
    assert_eq!(block_on(m.load_prompt()).unwrap(), None);
    assert_eq!(solo.events().len(), 1);
}

#[test]
fn load_combined_creates_both_dirs() {
    let rec = Recorder::default();
    let prompt_config = PromptConfig {
        team: true,
        skip_index: true,
        extra_guidelines: vec!["- Host rule.".to_owned()],
        ..PromptConfig::default()
    };
    let m = memdir_with(
        MemFs::new(),
        rec.clone(),
        config(WriteMode::Confirm, prompt_config.clone()),
    );
    let prompt = block_on(m.load_prompt()).unwrap().unwrap();
    assert_eq!(prompt, build_memory_prompt(&prompt_config.options("/m/")));
    assert!(prompt.starts_with("# Memory\n"));
    assert!(prompt.ends_with("instead of memory.\n- Host rule.\n"));
    assert_eq!(
        block_on(m.fs().stat("/m/team/")).unwrap().kind,
        EntryKind::Dir
    );
    assert_eq!(
        rec.events(),
        [loaded("auto", 0.0, 1.0), loaded("team", 0.0, 0.0)]
    );
}

#[test]
fn load_read_only_creates_nothing_but_still_prompts() {
    let rec = Recorder::default();
    let m = memdir_with(
        MemFs::new(),
        rec.clone(),
        config(WriteMode::ReadOnly, PromptConfig::default()),
    );
    let prompt = block_on(m.load_prompt()).unwrap().unwrap();
    assert!(prompt.starts_with("# auto memory\n"));
    assert!(block_on(m.fs().stat("/m/")).is_err());
    // The listing failed, so the counts are left out.
    assert_eq!(
        rec.events(),
        [(
            "memdir_loaded".to_owned(),
            vec![("memory_type".to_owned(), str_field("auto"))]
        )]
    );
}

#[test]
fn load_survives_failing_mkdir() {
    let rec = Recorder::default();
    let prompt_config = PromptConfig {
        mode: PromptMode::Combined,
        ..PromptConfig::default()
    };
    let m = memdir_with(
        no_mkdir_fs(),
        rec.clone(),
        config(WriteMode::Auto, prompt_config.clone()),
    );
    let prompt = block_on(m.load_prompt()).unwrap().unwrap();
    assert_eq!(prompt, build_memory_prompt(&prompt_config.options("/m/")));
    assert_eq!(rec.events().len(), 2);
}

#[test]
fn load_agent_embeds_truncated_index() {
    let fs = MemFs::new();
    let index: Vec<String> = (0..250)
        .map(|i| format!("- [M{i}](m{i}.md) — hook"))
        .collect();
    fs.insert_file("/m/MEMORY.md", index.join("\n"));
    let rec = Recorder::default();
    let prompt_config = PromptConfig {
        mode: PromptMode::Agent,
        agent_scope: Some(AgentScope::User),
        ..PromptConfig::default()
    };
    let m = memdir_with(fs, rec.clone(), config(WriteMode::Auto, prompt_config));
    let prompt = block_on(m.load_prompt()).unwrap().unwrap();
    assert!(prompt.starts_with("# Persistent Agent Memory\n"));
    assert!(prompt.contains("\n## MEMORY.md\n\n- [M0](m0.md) — hook\n"));
    assert!(prompt
        .contains("- [M199](m199.md) — hook\n\n> WARNING: MEMORY.md is 250 lines (limit: 200)."));
    assert!(!prompt.contains("[M200]"));
    let units = index.join("\n").encode_utf16().count();
    assert_eq!(
        rec.events(),
        [(
            "memdir_loaded".to_owned(),
            vec![
                ("memory_type".to_owned(), str_field("agent")),
                ("content_length".to_owned(), FieldValue::Num(units as f64)),
                ("line_count".to_owned(), FieldValue::Num(250.0)),
                ("was_truncated".to_owned(), FieldValue::Bool(true)),
                ("was_byte_truncated".to_owned(), FieldValue::Bool(false)),
            ]
        )]
    );
}

#[test]
fn load_agent_without_index_shows_notice() {
    let rec = Recorder::default();
    let prompt_config = PromptConfig {
        mode: PromptMode::Agent,
        ..PromptConfig::default()
    };
    let m = memdir_with(
        MemFs::new(),
        rec.clone(),
        config(WriteMode::Auto, prompt_config),
    );
    let prompt = block_on(m.load_prompt()).unwrap().unwrap();
    assert!(prompt.ends_with(&format!("## MEMORY.md\n\n{EMPTY_INDEX_NOTICE}")));
    assert!(
        rec.events().is_empty(),
        "no loaded event for an empty agent index"
    );
    assert_eq!(block_on(m.fs().stat("/m/")).unwrap().kind, EntryKind::Dir);
}

/// A sink that panics would be a host bug; this one misbehaves in every way it can without
/// panicking (drops, re-enters, records garbage) and must not change the result.
struct ChaoticTelemetry(RefCell<u32>);

impl Telemetry for ChaoticTelemetry {
    fn emit(&self, event: &str, fields: &[(&str, FieldValue)]) {
        let mut n = self.0.borrow_mut();
        *n = n.wrapping_add(u32::try_from(event.len() + fields.len()).unwrap_or(0));
        drop(n);
        self.0.replace(u32::MAX);
    }
}

#[test]
fn telemetry_cannot_change_the_prompt() {
    let make_fs = || {
        let fs = MemFs::new();
        fs.insert_file("/m/MEMORY.md", "- [A](a.md) — hook");
        fs
    };
    for mode in [
        PromptMode::Individual,
        PromptMode::Combined,
        PromptMode::Agent,
    ] {
        let pc = PromptConfig {
            mode,
            ..PromptConfig::default()
        };
        let quiet = memdir_with(make_fs(), NoTelemetry, config(WriteMode::Auto, pc.clone()));
        let chaotic = memdir_with(
            make_fs(),
            ChaoticTelemetry(RefCell::new(0)),
            config(WriteMode::Auto, pc.clone()),
        );
        let recorded = memdir_with(make_fs(), Recorder::default(), config(WriteMode::Auto, pc));
        let a = block_on(quiet.load_prompt()).unwrap();
        assert_eq!(a, block_on(chaotic.load_prompt()).unwrap(), "{mode:?}");
        assert_eq!(a, block_on(recorded.load_prompt()).unwrap(), "{mode:?}");
    }
}

#[test]
fn load_prompt_uses_config_options() {
    let mut overrides = memdir::str_map::StrMap::new();
    overrides.insert(
        "persistence".to_owned(),
        "## Persistence\nCUSTOM".to_owned(),
    );
    let pc = PromptConfig {
        searching_past_context: Some(SearchForm::Shell),
        transcripts_dir: Some("/t".to_owned()),
        section_overrides: overrides,
        tool_names: ToolNames {
            write: "SaveFile".to_owned(),
            ..ToolNames::default()
        },
        ..PromptConfig::default()
    };
    let m = memdir_with(MemFs::new(), NoTelemetry, config(WriteMode::Auto, pc));
    let prompt = block_on(m.load_prompt()).unwrap().unwrap();
    assert!(prompt.contains("\n## Persistence\nCUSTOM\n\n\n## Searching past context\n"));
    assert!(prompt.contains("grep -rn \"<search term>\" /t/ --include=\"*.jsonl\""));
    assert!(prompt.contains("SaveFile tool"));
}

// ---------- the compaction reminder (reference 2.1.186) ----------

fn usage(line_count: usize, unit_count: usize) -> IndexUsage {
    IndexUsage {
        line_count,
        unit_count,
        max_lines: 200,
        max_units: 25_000,
    }
}

#[test]
fn the_prompt_reminds_to_compact_an_index_near_its_caps() {
    let heading = "## MEMORY.md is nearly full";
    for mode in [
        PromptMode::Individual,
        PromptMode::Combined,
        PromptMode::DailyLog,
        PromptMode::Agent,
    ] {
        let mut o = options(mode);
        let plain = build_memory_prompt(&o);
        assert!(!plain.contains(heading));
        o.index_usage = Some(usage(159, 19_999));
        assert_eq!(
            build_memory_prompt(&o),
            plain,
            "{mode:?}: below 80 % nothing changes"
        );
        for near in [usage(160, 10), usage(10, 20_000), usage(250, 30_000)] {
            o.index_usage = Some(near);
            let prompt = build_memory_prompt(&o);
            assert_eq!(prompt.matches(heading).count(), 1, "{mode:?} {near:?}");
            assert!(prompt.contains(&format!("{} of its 200 lines", near.line_count)));
            // Only the reminder (and its blank line) was added.
            assert!(
                !prompt.contains("\n\n\n"),
                "{mode:?}: one blank line between sections"
            );
            let mut lines: Vec<&str> = prompt.split('\n').collect();
            let at = lines.iter().position(|l| *l == heading).unwrap();
            assert_eq!((lines[at + 1], lines[at + 3]), ("", ""));
            lines.drain(at..at + 4);
            // The rest is the plain prompt (one blank line fewer where two closed it).
            let squeeze = |t: &str| t.replace("\n\n\n", "\n\n").trim_end().to_owned();
            assert_eq!(squeeze(&lines.join("\n")), squeeze(&plain), "{mode:?}");
        }
        // The host may reword or drop it like any section.
        o.section_overrides
            .insert("index-compaction".into(), "TIDY THE INDEX".into());
        assert!(build_memory_prompt(&o).contains("TIDY THE INDEX"));
        o.section_overrides
            .insert("index-compaction".into(), String::new());
        assert_eq!(build_memory_prompt(&o), plain);
        // Without the index steps there is nothing to compact (agent mode always embeds it).
        let mut skipped = options(mode);
        skipped.skip_index = true;
        let skipped_plain = build_memory_prompt(&skipped);
        skipped.index_usage = Some(usage(199, 0));
        assert_eq!(
            build_memory_prompt(&skipped) == skipped_plain,
            mode != PromptMode::Agent,
            "{mode:?}"
        );
    }
}

#[test]
fn load_prompt_measures_the_loaded_index_for_the_reminder() {
    let entries: String = (0..170)
        .map(|i| format!("- [M{i}](m{i}.md) — hook\n"))
        .collect();
    for (index, near) in [
        (entries.clone(), true),
        // Frontmatter and HTML comments are not loaded, so they do not count.
        (
            format!(
                "---\nname: idx\n---\n<!--\n{}-->\n- [A](a.md) — h\n",
                "note\n".repeat(300)
            ),
            false,
        ),
        (String::new(), false),
    ] {
        let fs = MemFs::new();
        if !index.is_empty() {
            fs.insert_file("/m/MEMORY.md", &index);
        }
        let m = memdir_with(
            fs,
            Recorder::default(),
            config(WriteMode::Auto, PromptConfig::default()),
        );
        let prompt = block_on(m.load_prompt()).unwrap().unwrap();
        assert_eq!(
            prompt.contains("## MEMORY.md is nearly full"),
            near,
            "{near}"
        );
        if near {
            assert!(prompt.contains("170 of its 200 lines"));
        }
    }
}
