#!/usr/bin/env bash
# Installs Debian's Chromium for the dashboard's browser tests (test/browser, driven by playwright-core,
# whose own browser download cannot work offline) when /usr/bin/chromium is missing. As root it runs
# apt-get, like ensure-deps.sh does for PostgreSQL; otherwise it prints the command to run and goes on
# (the browser tests then fail naming it). Safe to run repeatedly.
set -euo pipefail

say() { echo "railyard setup: $*" >&2; }

[ -x /usr/bin/chromium ] && exit 0
if ! command -v apt-get >/dev/null; then
  say "Chromium is missing and apt-get is not available; install Chromium at /usr/bin/chromium for the browser tests."
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  say "Chromium is missing; the browser tests need it: sudo apt-get install -y --no-install-recommends chromium"
  exit 0
fi
say "installing Chromium for the browser tests (apt-get install chromium)..."
apt-get update -qq >&2 || say "apt-get update failed; trying the install with the lists there are."
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2 \
  || say "apt-get install chromium failed; the browser tests will fail until Chromium is at /usr/bin/chromium."
