#!/usr/bin/env bash
# Install everything the build and the tests need on a fresh machine of this kind. Idempotent:
# each step checks first, so a warm machine passes through in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130   # must equal the `=` pin of wasm-bindgen in Cargo.toml

step() { printf '\n== setup: %s\n' "$*"; }

step "rust target wasm32-unknown-unknown"
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown

step "wasm-bindgen-cli $WASM_BINDGEN_VERSION"
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
  # Not --locked: the registry mirror here lacks a crate version the lock file names.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

step "chromium + chromedriver (browser tests)"
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
fi
# Debian's binaryen (wasm-opt 108) corrupts wasm-bindgen output; we only ever call the npm one.

step "npm dev tools (binaryen, typescript, playwright-core, baselines)"
if [ ! -f scripts/node_modules/.package-lock.json ] || [ scripts/package-lock.json -nt scripts/node_modules/.package-lock.json ]; then
  (cd scripts && npm ci --no-audit --no-fund --loglevel=error)
fi
step "toolchain matrix tools (esbuild, webpack, Vite, Vitest, Jest, jsdom, TypeScript 5 and 7)"
[ -f scripts/matrix/node_modules/.package-lock.json ] && [ ! scripts/matrix/package-lock.json -nt scripts/matrix/node_modules/.package-lock.json ] || (cd scripts/matrix && npm ci --no-audit --no-fund --loglevel=error)
step "agent SDKs for the integration tests (scripts/agents: MCP SDK, Anthropic SDK, AI SDK)"; [ -f scripts/agents/node_modules/.package-lock.json ] && [ ! scripts/agents/package-lock.json -nt scripts/agents/node_modules/.package-lock.json ] || (cd scripts/agents && npm ci --no-audit --no-fund --loglevel=error)
step "isomorphic-git for the demo's team sync (www/vendor, pinned; the package gets it as an optional dependency)"
[ -f www/vendor/node_modules/.package-lock.json ] && [ ! www/vendor/package-lock.json -nt www/vendor/node_modules/.package-lock.json ] || (cd www/vendor && npm ci --no-audit --no-fund --loglevel=error)
step "bench tools (scripts/bench-tools: esbuild for the browser start-up bench)"; [ -f scripts/bench-tools/node_modules/.package-lock.json ] && [ ! scripts/bench-tools/package-lock.json -nt scripts/bench-tools/node_modules/.package-lock.json ] || (cd scripts/bench-tools && npm ci --no-audit --no-fund --loglevel=error)
step "local sentence model for the semantic recall evaluation (all-MiniLM-L6-v2, offline)"
scripts/install-model.sh || echo "setup: the local model could not be installed; the semantic evaluation will say so and its tests skip"
echo "setup: ok"
