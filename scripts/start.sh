#!/usr/bin/env bash
# The main command: set up, build the package, show it working on the sample memory directory,
# then serve the demo app on 127.0.0.1 and print its URL. `--no-serve` stops after the tour.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-8080}

scripts/setup.sh >/dev/null
scripts/build.sh
printf '\n'
node scripts/example.mjs

[ "${1:-}" = "--no-serve" ] && exit 0
[ -f www/index.html ] || exit 0
python=$(python3 -c 'import sys; print(sys.executable)')
printf '\nDemo app: http://127.0.0.1:%s/www/  (Ctrl-C to stop)\n' "$PORT"
exec "$python" -m http.server "$PORT" --bind 127.0.0.1 --directory . >/dev/null 2>&1
