#!/usr/bin/env bash
# The toolchain matrix (scripts/matrix/run.mjs): the packed package built and run with esbuild,
# webpack 5, Vite, Vitest, Jest, plain require() and TypeScript 5/7 in their usual set-ups, each
# from a fresh project. Needs the build in pkg/dist (scripts/build.sh) and the tools of
# scripts/matrix (scripts/setup.sh). Usage: scripts/matrix.sh [case-name-filter]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d scripts/matrix/node_modules ] || (cd scripts/matrix && npm ci --no-audit --no-fund --loglevel=error)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$(cd pkg && npm pack --silent --pack-destination "$work" | tail -n1)
node scripts/matrix/run.mjs "$work/$tarball" "$@"
