//! cargo-fuzz target: `memdir_fuzz::checks::check_parse_index_entry` on every input (run: `scripts/fuzz.sh parse_index_entry`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| memdir_fuzz::checks::check_parse_index_entry(data));
