//! cargo-fuzz target: `memdir_fuzz::checks::check_parse_selector_reply` on every input (run: `scripts/fuzz.sh parse_selector_reply`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| memdir_fuzz::checks::check_parse_selector_reply(data));
