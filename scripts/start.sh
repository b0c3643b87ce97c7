#!/usr/bin/env bash
# `npm start`: install what is missing, then run Temporal, PostgreSQL, the worker and the API.
# The supervisor runs as one Node process with railyard's require hook (scripts/lib/ts-node.ts says why
# not the tsx CLI, whose signal relay can SIGKILL it during a shutdown); `exec` leaves no shell in between.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
# The executor runs test commands in bubblewrap (issue 17) and refuses to start without it.
bash scripts/ensure-bwrap.sh
exec node --require "$PWD/scripts/lib/ts-require.cjs" scripts/start.ts "$@"
