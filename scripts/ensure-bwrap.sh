#!/usr/bin/env bash
# Installs Debian's bubblewrap (bwrap), the sandbox every test command runs in
# (activities/runners/sandbox.ts), when it is missing. As root it runs apt-get, like ensure-deps.sh does
# for PostgreSQL; otherwise it prints the command to run and goes on (the sandbox attack suite is then
# skipped, and a worker without bwrap refuses to start unless RAILYARD_EXECUTOR_UNSANDBOXED=1).
# Safe to run repeatedly.
set -euo pipefail

say() { echo "railyard setup: $*" >&2; }

command -v bwrap >/dev/null && exit 0
if ! command -v apt-get >/dev/null; then
  say "bubblewrap (bwrap) is missing and apt-get is not available; install bwrap to sandbox test runs."
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  say "bubblewrap is missing; test runs need it: sudo apt-get install -y --no-install-recommends bubblewrap"
  exit 0
fi
say "installing bubblewrap for the test-run sandbox (apt-get install bubblewrap)..."
apt-get update -qq >&2 || say "apt-get update failed; trying the install with the lists there are."
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap >&2 \
  || say "apt-get install bubblewrap failed; test runs cannot be sandboxed until bwrap is installed."
