//! cargo-fuzz target: `memdir_fuzz::checks::check_sanitize_path_key` on every input (run: `scripts/fuzz.sh sanitize_path_key`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| memdir_fuzz::checks::check_sanitize_path_key(data));
