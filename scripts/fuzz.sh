#!/usr/bin/env bash
# Fuzz memdir's parsers with cargo-fuzz (libFuzzer + ASan), design §8 / issue #8.
#
#   scripts/fuzz.sh                      # every target, 600 s each, one after another
#   scripts/fuzz.sh parse_frontmatter    # one target (names: scripts/fuzz.sh --list)
#   FUZZ_SECONDS=60 scripts/fuzz.sh      # shorter runs
#
# Targets live in tests/fuzz (a separate crate with its own empty [workspace]); their invariant
# checks are tests/fuzz/src/checks.rs, replayed natively on stable by tests/fuzz_regressions.rs.
# cargo-fuzz needs nightly features: on a stable toolchain this sets RUSTC_BOOTSTRAP=1, which
# is enough for -Zsanitizer=address (rustc 1.95). Set FUZZ_SANITIZER=none to fuzz without ASan.
#
# New corpus entries and crashes go to $FUZZ_WORK (default /tmp/memdir-fuzz), not the repo:
# the checked-in seeds in tests/fuzz/corpus/<target>/ are only read. A crash input is printed
# with the libFuzzer log ($FUZZ_WORK/<target>.log); minimise it with
#   cargo fuzz tmin --fuzz-dir tests/fuzz <target> <crash-file>
# then copy it to tests/fuzz/regressions/<target>/ so `cargo test --test fuzz_regressions`
# replays it forever. Exit status: non-zero if any target found a crash.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(parse_frontmatter frontmatter_forms truncate_entrypoint parse_index_entry sanitize_path_key scan_for_secrets parse_selector_reply parse_json sync_response)
if [ "${1:-}" = "--list" ]; then printf '%s\n' "${TARGETS[@]}"; exit 0; fi
[ $# -gt 0 ] && TARGETS=("$@")

SECONDS_EACH="${FUZZ_SECONDS:-600}"
WORK="${FUZZ_WORK:-/tmp/memdir-fuzz}"
SANITIZER="${FUZZ_SANITIZER:-address}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/tests/fuzz/target}"
rustc --version | grep -q nightly || export RUSTC_BOOTSTRAP=1

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
cargo fuzz build --fuzz-dir tests/fuzz -s "$SANITIZER"

status=0
for target in "${TARGETS[@]}"; do
  mkdir -p "$WORK/corpus/$target" "$WORK/artifacts/$target"
  log="$WORK/$target.log"
  echo "fuzz: $target for ${SECONDS_EACH}s (log $log)"
  if cargo fuzz run --fuzz-dir tests/fuzz -s "$SANITIZER" "$target" \
      "$WORK/corpus/$target" "tests/fuzz/corpus/$target" -- \
      -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
      -artifact_prefix="$WORK/artifacts/$target/" >"$log" 2>&1; then
    echo "fuzz: $target ok: $(grep -E '^stat::number_of_executed_units' "$log" | tail -1)"
  else
    status=1
    echo "fuzz: $target FOUND A CRASH:"; grep -E 'panicked|ERROR|Test unit written' "$log" | head -5
  fi
done
exit "$status"
