//! `## Searching past context`. Lines without a trailing blank line.

use super::options::{with_trailing_slash, SearchForm, ToolNames};

fn search_command(form: SearchForm, tools: &ToolNames, path: &str, include: &str) -> String {
    match form {
        SearchForm::Shell => {
            format!("grep -rn \"<search term>\" {path} --include=\"{include}\"")
        }
        SearchForm::Tool => format!(
            "{} with pattern=\"<search term>\" path=\"{path}\" glob=\"{include}\"",
            tools.grep
        ),
    }
}

/// The searching section: memory topic files first, then (when `transcripts_dir` is given) the
/// session transcripts, each with a fenced command in the chosen form.
///
/// ```
/// use memdir::prompt::{searching_past_context, SearchForm, ToolNames};
/// let lines = searching_past_context(SearchForm::Shell, &ToolNames::default(), "/m/", None);
/// assert!(lines.contains(&"grep -rn \"<search term>\" /m/ --include=\"*.md\"".to_owned()));
/// ```
pub fn searching_past_context(
    form: SearchForm,
    tools: &ToolNames,
    memory_dir: &str,
    transcripts_dir: Option<&str>,
) -> Vec<String> {
    let mut lines = vec![
        "## Searching past context".to_owned(),
        String::new(),
        "To dig up context from earlier work:".to_owned(),
        "1. Search the topic files in your memory directory:".to_owned(),
        "```".to_owned(),
        search_command(form, tools, memory_dir, "*.md"),
        "```".to_owned(),
    ];
    if let Some(dir) = transcripts_dir {
        let dir = with_trailing_slash(dir);
        lines.extend([
            "2. Search the session transcripts (a last resort: the files are large and slow to \
             search):"
                .to_owned(),
            "```".to_owned(),
            search_command(form, tools, &dir, "*.jsonl"),
            "```".to_owned(),
        ]);
    }
    lines.push(
        "Keep search terms narrow and specific, such as an error message, a file path or a \
         function name."
            .to_owned(),
    );
    lines
}
