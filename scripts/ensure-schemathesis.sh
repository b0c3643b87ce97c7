#!/usr/bin/env bash
# Installs schemathesis (pinned, from PyPI) into its own venv, .tools/fuzz-venv, for `npm run fuzz` and
# the short fuzz run in `npm test` (test/integration/fuzz/fuzz.test.ts).
#
# Why its own venv and its own script: `npm test` runs this beside the npm install, before any test
# starts (about 17 CPU-seconds and 30 s of pip), instead of inside the fuzz test, where it ran on a
# machine already busy with the whole suite and once pushed the test past its time limit. Its own venv,
# because pip installs into one venv must not run side by side (ensure-deps.sh puts the Temporal CLI
# into .tools/venv at the same moment). Safe to run repeatedly; each failure says what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION="4.32.5"
venv=.tools/fuzz-venv
fail() { echo "railyard setup: $*" >&2; exit 1; }

st="$venv/bin/schemathesis"
if [ -x "$st" ] && "$st" --version 2>/dev/null | grep -q "version ${SCHEMATHESIS_VERSION}\$"; then
  exit 0
fi
command -v python3 >/dev/null || fail "python3 is not installed; install Python 3.9+ (it runs schemathesis)."
mkdir -p .tools
[ -x "$venv/bin/pip" ] || python3 -m venv "$venv" \
  || fail "python3 -m venv failed; install the python3-venv package and run this again."
echo "railyard setup: installing schemathesis==${SCHEMATHESIS_VERSION} into ${venv}..." >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==${SCHEMATHESIS_VERSION}" >&2 \
  || fail "pip could not install schemathesis==${SCHEMATHESIS_VERSION}; check that PyPI is reachable."
