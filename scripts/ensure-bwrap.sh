#!/usr/bin/env bash
# Installs Debian's bubblewrap (bwrap), the sandbox test commands run in (activities/runners/sandbox.ts),
# when it is missing (the sandbox attack suite is then skipped, and a worker using the sandbox refuses to
# start unless RAILYARD_EXECUTOR_UNSANDBOXED=1).
set -euo pipefail
source "$(dirname "$0")/lib/ensure-debian-package.sh"
ensure_debian_package bubblewrap bwrap "the test-run sandbox"
