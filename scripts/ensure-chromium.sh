#!/usr/bin/env bash
# Installs Debian's Chromium for the dashboard's browser tests (test/browser, driven by playwright-core,
# whose own browser download cannot work offline) when /usr/bin/chromium is missing (the browser tests
# then fail naming it).
set -euo pipefail
source "$(dirname "$0")/lib/ensure-debian-package.sh"
ensure_debian_package chromium /usr/bin/chromium "the browser tests"
