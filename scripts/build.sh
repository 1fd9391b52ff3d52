#!/usr/bin/env bash
# Build the npm package in pkg/: cargo (release, size profile) → wasm-bindgen (web target) →
# wasm-opt -Os --converge (npm binaryen) → size report and gate. Usage: scripts/build.sh [--dev]
set -euo pipefail
cd "$(dirname "$0")/.."

# The old 150 KB target is retired; the build reports it and fails only on a regression past
# the ceiling. The ceiling was 270,000 until session 4, 315,200 until session 5 and 342,600
# (339,184 + 1 %) until session 6, whose issue #13/#17 work (widened YAML fast path, index cache
# format 2, packed manifest and readIndex, fewer save calls with the journal in the lock file,
# libraryFiles) measured 347,479 B; it was re-based to that figure plus 1 % (351,000), and again
# in session 7, whose #13/#17 work (bulk load of the recall index, the save's overlapped reads and
# journal lines, plain frontmatter from bytes, one host call per batch of heads, host promises
# through one closure) measured 356,672 B merged: 360,300 (README "Size" has the breakdown).
# Session 8's #13/#17 work (index cache format 3 decoded and interned in the stat waits, top-k
# ranking, the scan's headers read in place, heads in one copy, one JSON writer, promise slots
# freed on drop) measured 362,429 B merged: 365,000. Session 9's #17 work (a new index entry
# appended on hosts that append atomically, `find_from`; the scan's listing kept in JS and
# stat'ed by position) measured 366,029 B merged: 369,000.
SIZE_TARGET_GZIP=153600
SIZE_CEILING_GZIP=${MEMDIR_SIZE_CEILING_GZIP:-369000}

if [ "${1:-}" = "--dev" ]; then
  cargo build --lib --target wasm32-unknown-unknown
  wasm="target/wasm32-unknown-unknown/debug/memdir.wasm"
elif [ -n "${MEMDIR_BUILD_STD:-}" ]; then
  # Opt-in, not the default: needs a nightly toolchain with rust-src. The standard library is
  # rebuilt at this profile's opt-level "z" (measured 4.1 KB gzip less); MEMDIR_BUILD_STD=abort
  # also makes a panic an immediate trap (15.1 KB gzip less in all), which drops the panic
  # hook's console message (src/wasm/mod.rs) along with all of core's panic formatting.
  flags=(-Z build-std=std,panic_abort)
  if [ "$MEMDIR_BUILD_STD" = "abort" ]; then
    flags+=(-Z panic-immediate-abort)
    export CARGO_PROFILE_RELEASE_PANIC=immediate-abort
  fi
  CARGO_TARGET_DIR=target/build-std cargo +nightly build "${flags[@]}" --lib --release \
    --target wasm32-unknown-unknown
  wasm="target/build-std/wasm32-unknown-unknown/release/memdir.wasm"
else
  cargo build --lib --release --target wasm32-unknown-unknown
  wasm="target/wasm32-unknown-unknown/release/memdir.wasm"
fi

rm -rf pkg/dist
wasm-bindgen --target web --out-dir pkg/dist --out-name memdir "$wasm"
if [ "${1:-}" != "--dev" ]; then
  # -Os --converge: 1.0 KB gzip less than a single -Oz (measured on 273 KB gzip: -Oz 273,020;
  # -Oz --converge 272,411; -Os 272,327; -Os --converge 271,991; -O3 -Oz, --gufa: no better).
  # --low-memory-unused: the stack sits below the data and grows down from 1 MiB, so the low
  # 1 KiB is never addressed; --zero-filled-memory: the module defines its own (zeroed) memory.
  # --reorder-functions-by-name (run while the name section is still there): functions of one
  # module and their look-alike instances sit next to each other, which gzip's 32 KiB window
  # rewards: 3.6 KB gzip less (324,075 → 320,502), the same code.
  scripts/node_modules/.bin/wasm-opt -Os --converge --low-memory-unused --zero-filled-memory \
    --reorder-functions-by-name --strip-debug --strip-producers \
    pkg/dist/memdir_bg.wasm -o pkg/dist/memdir_bg.wasm
fi
# The delivery forms (the inline entry, CommonJS builds, trimmed self-contained declarations):
# see scripts/matrix/build-forms.mjs; esbuild comes from the matrix's pinned tools (setup.sh).
[ -d scripts/matrix/node_modules/esbuild ] || (cd scripts/matrix && npm ci --no-audit --no-fund --loglevel=error)
node scripts/matrix/build-forms.mjs
cp README.md pkg/README.md

raw=$(stat -c %s pkg/dist/memdir_bg.wasm)
gz=$(gzip -9 -c pkg/dist/memdir_bg.wasm | wc -c)
printf 'wasm size: %d bytes raw, %d bytes gzip (target %d, ceiling %d)\n' "$raw" "$gz" "$SIZE_TARGET_GZIP" "$SIZE_CEILING_GZIP"
[ "$gz" -le "$SIZE_TARGET_GZIP" ] || printf 'wasm size: %d bytes gzip over the 150 KB target\n' $((gz - SIZE_TARGET_GZIP))
if [ "${1:-}" != "--dev" ] && [ "$gz" -gt "$SIZE_CEILING_GZIP" ]; then
  echo "wasm size: over the regression ceiling" >&2
  exit 1
fi
