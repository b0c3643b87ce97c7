#!/usr/bin/env bash
# `npm start`: install what is missing, then run Temporal, PostgreSQL, the worker and the API.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
exec node_modules/.bin/tsx scripts/start.ts "$@"
