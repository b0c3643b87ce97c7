#!/usr/bin/env bash
# Installs what the test-run sandbox runs on (executor/sandbox.ts) when missing: Debian's
# bubblewrap (bwrap; without it the sandbox suites fail under CI and skip loudly elsewhere, an executor refuses to start
# unless RAILYARD_EXECUTOR_UNSANDBOXED=1), passt (pasta: a network-on run gets a network of its own
# that cannot reach the host's loopback services, sandbox-network.ts; without it the executor refuses
# such runs, unless RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow gives them the host's network) and iproute2 (ip: the rules in that network that close
# private, link-local and this machine's own ranges, sandbox-addresses.ts; without it, the same as
# without pasta). ip is looked for by path: a user's PATH often lacks /usr/sbin.
set -euo pipefail
source "$(dirname "$0")/lib/ensure-debian-package.sh"
ensure_debian_package bubblewrap bwrap "the test-run sandbox"
ensure_debian_package passt pasta "the test runs' own network (network on, the host's loopback out of reach)"
ip=ip
for candidate in /usr/sbin/ip /sbin/ip /usr/bin/ip /bin/ip; do [ -x "$candidate" ] && ip=$candidate && break; done
ensure_debian_package iproute2 "$ip" "the test runs' address rules (network on, only public addresses reached)"
