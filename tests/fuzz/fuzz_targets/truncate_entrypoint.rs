//! cargo-fuzz target: `memdir_fuzz::checks::check_truncate_entrypoint` on every input (run: `scripts/fuzz.sh truncate_entrypoint`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| memdir_fuzz::checks::check_truncate_entrypoint(data));
