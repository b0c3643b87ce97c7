#!/usr/bin/env bash
# `npm run fuzz`: schemathesis (pinned, from PyPI, installed into .tools/venv next to the Temporal CLI)
# against the OpenAPI document the API serves, with an API key, checking that no response is a server
# error or breaks the document. Starts its own stack (PostgreSQL, Temporal, worker, API) unless given
# --url and --key of a running one. Options go to scripts/fuzz/run.ts (--help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION="4.32.5"
say() { echo "railyard fuzz: $*" >&2; }
fail() { say "$*"; exit 1; }

bash scripts/ensure-deps.sh

st=.tools/venv/bin/schemathesis
if [ ! -x "$st" ] || ! "$st" --version 2>/dev/null | grep -q "version ${SCHEMATHESIS_VERSION}\$"; then
  command -v python3 >/dev/null || fail "python3 is not installed; install Python 3.9+ (it runs schemathesis)."
  mkdir -p .tools
  [ -x .tools/venv/bin/pip ] || python3 -m venv .tools/venv \
    || fail "python3 -m venv failed; install the python3-venv package and run this again."
  say "installing schemathesis==${SCHEMATHESIS_VERSION} into .tools/venv..."
  .tools/venv/bin/pip install --quiet --disable-pip-version-check "schemathesis==${SCHEMATHESIS_VERSION}" >&2 \
    || fail "pip could not install schemathesis==${SCHEMATHESIS_VERSION}; check that PyPI is reachable."
fi

exec node_modules/.bin/tsx scripts/fuzz/run.ts "$@"
