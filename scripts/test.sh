#!/usr/bin/env bash
# `npm test`: install what is missing (Chromium too, for the browser tests), run `npm run check`, then
# every test against private Temporal and PostgreSQL instances started on free ports (stopped again at
# the end).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/ensure-chromium.sh
exec node_modules/.bin/tsx scripts/test.ts "$@"
