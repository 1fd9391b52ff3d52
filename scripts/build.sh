#!/usr/bin/env bash
# Build the npm package in pkg/: cargo (release, size profile) → wasm-bindgen (web target) →
# wasm-opt -Oz (npm binaryen) → size report and gate. Usage: scripts/build.sh [--dev]
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE_BUDGET_GZIP=153600   # 150 KB gzipped, design §7

if [ "${1:-}" = "--dev" ]; then
  cargo build --lib --target wasm32-unknown-unknown
  wasm="target/wasm32-unknown-unknown/debug/memdir.wasm"
else
  cargo build --lib --release --target wasm32-unknown-unknown
  wasm="target/wasm32-unknown-unknown/release/memdir.wasm"
fi

rm -rf pkg/dist
wasm-bindgen --target web --out-dir pkg/dist --out-name memdir "$wasm"
if [ "${1:-}" != "--dev" ]; then
  scripts/node_modules/.bin/wasm-opt -Oz --strip-debug --strip-producers \
    pkg/dist/memdir_bg.wasm -o pkg/dist/memdir_bg.wasm
fi
cp README.md pkg/README.md

raw=$(stat -c %s pkg/dist/memdir_bg.wasm)
gz=$(gzip -9 -c pkg/dist/memdir_bg.wasm | wc -c)
printf 'wasm size: %d bytes raw, %d bytes gzip (budget %d gzip)\n' "$raw" "$gz" "$SIZE_BUDGET_GZIP"
if [ "${1:-}" != "--dev" ] && [ "$gz" -gt "$SIZE_BUDGET_GZIP" ]; then
  echo "wasm size: over budget" >&2
  exit 1
fi
