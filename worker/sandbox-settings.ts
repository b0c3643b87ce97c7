/**
 * The executor's test-run sandbox from its settings (issue 17): bwrap with the configured limits, or,
 * where bwrap cannot run here, a refusal to start, unless RAILYARD_EXECUTOR_UNSANDBOXED says to run
 * test commands in the executor's own process tree anyway (then the executor says so at start, in its
 * log and in its /readyz).
 *
 * The run's network (issue 24): RAILYARD_SANDBOX_NETWORK_ALLOW (addresses, CIDR ranges or host names)
 * opens exactly those ranges in front of the closed ones (executor/sandbox-addresses.ts), and the API's
 * addresses are closed; host names, the API's included, are resolved once, here, at start. Resource
 * limits (issue 24) are per run where the host delegates a cgroup v2 one, and the log says when not.
 * Where a network-on run cannot be isolated (no pasta or ip), such runs are refused, naming the
 * missing tool, unless RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow gives them this machine's network.
 *
 * Invariants: an executor never runs a test command unsandboxed, nor with the network on in its own
 * network, without the explicit setting for it; either is said in its log at start.
 */
import { spawnSync } from 'node:child_process';
import { ConfigError } from '../platform/env';
import { DEFAULT_SANDBOX, type SandboxSettings } from '../executor/sandbox';
import { probeSandbox } from '../executor/sandbox-probe';
import { describeLimits, probeRunCgroups } from '../executor/run-cgroup';
import { parseRange, type AddressRange } from '../executor/sandbox-addresses';
import type { ExecutorConfig } from './executor-config';

/** A host name's addresses (getent ahosts: /etc/hosts and DNS, as the system resolves); [] if none. */
export function resolveHost(name: string): string[] {
  const found = spawnSync('getent', ['ahosts', name], { encoding: 'utf8', timeout: 10_000 });
  if (found.error || found.status !== 0) return [];
  return [
    ...new Set(
      found.stdout
        .split('\n')
        .map((line) => line.split(/\s+/)[0] ?? '')
        .filter(Boolean),
    ),
  ];
}

/** Each entry as ranges: an address or CIDR as it is, a host name as each of its addresses. */
function rangesOf(entries: readonly string[], resolve: (name: string) => string[]): AddressRange[] {
  return entries.flatMap((entry) => {
    const range = parseRange(entry);
    if (range) return [range];
    return resolve(entry)
      .map(parseRange)
      .filter((r): r is AddressRange => r !== null);
  });
}

const MIB = 1024 * 1024;

type SandboxConfig = Pick<
  ExecutorConfig,
  | 'RAILYARD_EXECUTOR_UNSANDBOXED'
  | 'RAILYARD_SANDBOX_NETWORK'
  | 'RAILYARD_SANDBOX_NETWORK_UNISOLATED'
  | 'RAILYARD_SANDBOX_MEMORY_MB'
  | 'RAILYARD_SANDBOX_MAX_PROCESSES'
  | 'RAILYARD_SANDBOX_MAX_FILE_MB'
  | 'RAILYARD_SANDBOX_TMP_MB'
  | 'RAILYARD_SANDBOX_READ_ONLY_PATHS'
  | 'RAILYARD_SANDBOX_WRITABLE_PATHS'
  | 'RAILYARD_SANDBOX_NETWORK_ALLOW'
  | 'RAILYARD_EXECUTOR_API_URL'
>;

/** The sandbox to run test commands in; null only when running unsandboxed was asked for. */
export function sandboxOf(
  config: SandboxConfig,
  probe = probeSandbox,
  warn: (message: string) => void = (m) => console.error(m),
  resolve: (name: string) => string[] = resolveHost,
): SandboxSettings | null {
  const found = probe('bwrap');
  switch (found.kind) {
    case 'available': {
      const network = config.RAILYARD_SANDBOX_NETWORK === 'on';
      const isolation = found.isolatedNetwork;
      if (network && isolation.kind === 'unavailable') warn(unisolatedWarning(config, isolation.reason));
      const limits = found.limits ?? probeRunCgroups();
      // Without a delegated cgroup v2 one run can take the machine's memory with many processes.
      if (limits.kind === 'per-process')
        warn(
          `railyard executor: test runs' memory, processes and CPU are limited ${describeLimits(limits)}.`,
        );
      return {
        ...DEFAULT_SANDBOX,
        bwrap: 'bwrap',
        ...(limits.kind === 'per-run' ? { runCgroups: limits.cgroup } : {}),
        ...(isolation.kind === 'available'
          ? { pasta: 'pasta', ...networkRanges(config, warn, resolve) }
          : {
              unisolatedNetwork: {
                kind: config.RAILYARD_SANDBOX_NETWORK_UNISOLATED === 'allow' ? 'host' : 'refused',
                reason: isolation.reason,
              },
            }),
        network,
        memoryBytes: config.RAILYARD_SANDBOX_MEMORY_MB * MIB,
        maxProcesses: config.RAILYARD_SANDBOX_MAX_PROCESSES,
        maxFileBytes: config.RAILYARD_SANDBOX_MAX_FILE_MB * MIB,
        tmpBytes: config.RAILYARD_SANDBOX_TMP_MB * MIB,
        readOnlyPaths: config.RAILYARD_SANDBOX_READ_ONLY_PATHS ?? [],
        writablePaths: config.RAILYARD_SANDBOX_WRITABLE_PATHS ?? [],
      };
    }
    case 'unavailable':
      if (!config.RAILYARD_EXECUTOR_UNSANDBOXED)
        throw new ConfigError(
          `railyard executor: test commands cannot be sandboxed here: ${found.reason}. Install bubblewrap ` +
            "(bash scripts/ensure-bwrap.sh) or set RAILYARD_EXECUTOR_UNSANDBOXED=1 to run pull requests' " +
            "test commands as the executor's own user, with its files and network (unsafe).",
        );
      warn(
        `railyard executor: UNSANDBOXED: ${found.reason}; test commands run as the executor's own user ` +
          '(RAILYARD_EXECUTOR_UNSANDBOXED=1).',
      );
      return null;
    default: {
      const never: never = found;
      throw new Error(`unknown probe result ${String(never)}`);
    }
  }
}

/** The start's line about network-on runs that cannot be isolated: refused, or allowed on the host's. */
function unisolatedWarning(config: SandboxConfig, reason: string): string {
  const setting = config.RAILYARD_SANDBOX_NETWORK_UNISOLATED;
  switch (setting) {
    case 'refuse':
      return (
        `railyard executor: test runs with the network on are REFUSED: their network cannot be isolated ` +
        `here: ${reason}. Install passt and iproute2 (bash scripts/ensure-bwrap.sh), or set ` +
        "RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow to run them on this machine's network (unsafe)."
      );
    case 'allow':
      return (
        `railyard executor: test runs with the network on share this machine's network, its loopback ` +
        `services, private ranges and cloud metadata included (RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow): ` +
        `${reason}. Install passt and iproute2 (bash scripts/ensure-bwrap.sh).`
      );
    default: {
      const never: never = setting;
      throw new Error(`unknown RAILYARD_SANDBOX_NETWORK_UNISOLATED ${String(never)}`);
    }
  }
}

/** The allow-list's ranges, and the API's addresses to close (an allow-list entry still opens them). */
function networkRanges(
  config: SandboxConfig,
  warn: (message: string) => void,
  resolve: (name: string) => string[],
): Pick<SandboxSettings, 'networkAllow' | 'networkDeny'> {
  const entries = config.RAILYARD_SANDBOX_NETWORK_ALLOW ?? [];
  const networkAllow = rangesOf(entries, resolve);
  const unresolved = entries.filter((e) => parseRange(e) === null && rangesOf([e], resolve).length === 0);
  if (unresolved.length > 0)
    throw new ConfigError(
      `railyard executor: RAILYARD_SANDBOX_NETWORK_ALLOW names ${unresolved.join(', ')}, which ` +
        `${unresolved.length > 1 ? 'do' : 'does'} not resolve here: name an address or a range, or fix the name.`,
    );
  const api = new URL(config.RAILYARD_EXECUTOR_API_URL).hostname.replace(/^\[|\]$/g, '');
  const networkDeny = rangesOf([api], resolve);
  if (networkDeny.length === 0)
    warn(
      `railyard executor: the API's host ${api} does not resolve here; runs are not kept from its addresses.`,
    );
  if (networkAllow.length > 0)
    warn(
      `railyard executor: test runs with the network on may also reach ${networkAllow.map((r) => r.cidr).join(', ')} ` +
        '(RAILYARD_SANDBOX_NETWORK_ALLOW).',
    );
  return { networkAllow, networkDeny };
}
