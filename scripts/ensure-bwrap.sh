#!/usr/bin/env bash
# Installs what the test-run sandbox runs on (executor/sandbox.ts) when missing: Debian's
# bubblewrap (bwrap; without it the sandbox suites fail under CI and skip loudly elsewhere, an executor refuses to start
# unless RAILYARD_EXECUTOR_UNSANDBOXED=1) and passt (pasta: a network-on run gets a network of its own
# that cannot reach the host's loopback services, sandbox-network.ts; without it such runs share the
# host's network and the executor warns at start).
set -euo pipefail
source "$(dirname "$0")/lib/ensure-debian-package.sh"
ensure_debian_package bubblewrap bwrap "the test-run sandbox"
ensure_debian_package passt pasta "the test runs' own network (network on, the host's loopback out of reach)"
