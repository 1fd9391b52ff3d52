#!/usr/bin/env bash
# JS tests against the packed package, as a user gets it: npm pack → install the tarball into a
# fresh project → run tests/js there with node --test → type-check the .d.ts with tsc.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tarball=$(cd pkg && npm pack --silent --pack-destination "$work" | tail -n1)
mkdir -p "$work/app"
cp tests/js/*.mjs tests/js/*.ts tests/js/tsconfig.json "$work/app/" 2>/dev/null || true
cp -r tests/fixtures "$work/app/fixtures"
cd "$work/app"
printf '{ "name": "memdir-consumer", "private": true, "type": "module" }\n' > package.json
npm install --no-audit --no-fund --loglevel=error "$work/$tarball" >/dev/null
ln -s "$root/scripts/node_modules/@types" node_modules/@types
for p in @anthropic-ai @modelcontextprotocol ai zod; do ln -s "$root/scripts/agents/node_modules/$p" "node_modules/$p"; done  # the agent SDKs (mcp/agents tests)

MEMDIR_REPO="$root" node --test --test-reporter=tap ./*.test.mjs

"$root/scripts/node_modules/.bin/tsc" -p tsconfig.json && echo "tsc: ok"

# Recall quality with the real local model as the embedder (printed, not a pass/fail line: the
# lexical targets are asserted in tests/recall_eval.rs; the plumbing in semantic.test.mjs).
echo "== recall evaluation with all-MiniLM-L6-v2 (the packed package, memoryFs)"
MEMDIR_REPO="$root" node recall-eval.mjs --report --system lexical,semantic || echo "recall-eval: could not run"
