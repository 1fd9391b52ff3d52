//! cargo-fuzz target: `memdir_fuzz::checks::check_frontmatter_forms` on every input: the bytes
//! choose a frontmatter block in the forms the fast paths read, which must agree with serde_yaml
//! (run: `scripts/fuzz.sh frontmatter_forms`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| memdir_fuzz::checks::check_frontmatter_forms(data));
