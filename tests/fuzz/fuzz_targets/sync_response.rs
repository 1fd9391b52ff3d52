//! cargo-fuzz target: `memdir_fuzz::checks::check_sync_response` on every input (run: `scripts/fuzz.sh sync_response`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| memdir_fuzz::checks::check_sync_response(data));
