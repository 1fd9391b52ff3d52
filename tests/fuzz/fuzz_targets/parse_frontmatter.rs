//! cargo-fuzz target: `memdir_fuzz::checks::check_parse_frontmatter` on every input (run: `scripts/fuzz.sh parse_frontmatter`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| memdir_fuzz::checks::check_parse_frontmatter(data));
