#!/usr/bin/env bash
# Runs a project command after making sure node_modules is installed (used by `npm run keys`, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
# TypeScript entry points run in one Node process with railyard's require hook (scripts/lib/ts-node.ts
# says why): the tsx CLI would start two and load slower.
if [ "${1:-}" = tsx ]; then
  shift
  exec node --require "$PWD/scripts/lib/ts-require.cjs" "$@"
fi
exec node_modules/.bin/"$@"
