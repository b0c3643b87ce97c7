#!/usr/bin/env bash
# `npm run fuzz`: schemathesis (pinned, from PyPI, installed into .tools/fuzz-venv by ensure-schemathesis.sh)
# against the OpenAPI document the API serves, with an API key, checking that no response is a server
# error or breaks the document. Starts its own stack (PostgreSQL, Temporal, worker, API) unless given
# --url and --key of a running one. Options go to scripts/fuzz/run.ts (--help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-deps.sh
bash scripts/ensure-schemathesis.sh

exec node_modules/.bin/tsx scripts/fuzz/run.ts "$@"
