//! The daily-log prompt's own sections. Lines without a trailing blank.

use super::options::with_trailing_slash;

/// The log file pattern, literally (never today's date, so a cached prompt survives midnight).
pub const DAILY_LOG_PATTERN: &str = "logs/YYYY/MM/YYYY-MM-DD.md";

/// `<memory_dir>logs/YYYY/MM/YYYY-MM-DD.md`.
///
/// ```
/// assert_eq!(memdir::prompt::daily_log_path("/m/"), "/m/logs/YYYY/MM/YYYY-MM-DD.md");
/// ```
pub fn daily_log_path(memory_dir: &str) -> String {
    format!("{}{DAILY_LOG_PATTERN}", with_trailing_slash(memory_dir))
}

/// Daily-log intro: location (no dir-exists sentence), the append instruction, the path pattern,
/// the date substitution, and the append-only rules, separated by blank lines.
pub fn daily_log_intro(memory_dir: &str) -> Vec<String> {
    vec![
        format!("Your memory is kept as plain files at: `{memory_dir}`"),
        String::new(),
        "This session runs for a long time, so you record what you learn by appending it to \
         today's log file:"
            .to_owned(),
        String::new(),
        format!("`{}`", daily_log_path(memory_dir)),
        String::new(),
        "Fill in today's date from `currentDate` in your context. When the date changes during \
         the session, move on to the new day's file."
            .to_owned(),
        String::new(),
        "Make each entry a short bullet that starts with a timestamp. Create the file, and any \
         missing parent directories, the first time you add to it. Only ever append: never \
         rewrite or reorder earlier entries. Every night a separate process distils these logs \
         into MEMORY.md and the topic files."
            .to_owned(),
    ]
}

/// `## What to log` (no blank after the heading) and its five bullets.
pub fn what_to_log() -> Vec<String> {
    [
        "## What to log",
        "- Corrections and preferences the user states, such as \"use tabs in this repo\" or \
         \"stop asking before running the tests\".",
        "- Facts about the user: role, goals, expertise.",
        "- Project context the code cannot tell you: deadlines, incidents, decisions and why \
         they were made.",
        "- Pointers to outside systems: trackers, dashboards, channels, documents.",
        "- Anything the user explicitly asks you to remember.",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// `## MEMORY.md` of the daily-log prompt (no blank after the heading): read it, never edit it.
pub fn daily_log_index() -> Vec<String> {
    vec![
        "## MEMORY.md".to_owned(),
        "MEMORY.md is the index the nightly process distils from your logs, and it is loaded for \
         you automatically. Consult it, but leave changes to it alone; log new information \
         instead."
            .to_owned(),
    ]
}
