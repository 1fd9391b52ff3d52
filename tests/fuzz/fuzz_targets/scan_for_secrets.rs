//! cargo-fuzz target: `memdir_fuzz::checks::check_scan_for_secrets` on every input (run: `scripts/fuzz.sh scan_for_secrets`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| memdir_fuzz::checks::check_scan_for_secrets(data));
