/**
 * The executor's test-run sandbox from its settings (issue 17): bwrap with the configured limits, or,
 * where bwrap cannot run here, a refusal to start, unless RAILYARD_EXECUTOR_UNSANDBOXED says to run
 * test commands in the executor's own process tree anyway (then the executor says so at start, in its
 * log and in its /readyz).
 *
 * Invariant: an executor never runs a test command unsandboxed without that explicit setting.
 */
import { ConfigError } from '../platform/env';
import { DEFAULT_SANDBOX, probeSandbox, type SandboxSettings } from '../executor/sandbox';
import type { ExecutorConfig } from './executor-config';

const MIB = 1024 * 1024;

type SandboxConfig = Pick<
  ExecutorConfig,
  | 'RAILYARD_EXECUTOR_UNSANDBOXED'
  | 'RAILYARD_SANDBOX_NETWORK'
  | 'RAILYARD_SANDBOX_MEMORY_MB'
  | 'RAILYARD_SANDBOX_MAX_PROCESSES'
  | 'RAILYARD_SANDBOX_MAX_FILE_MB'
  | 'RAILYARD_SANDBOX_TMP_MB'
  | 'RAILYARD_SANDBOX_READ_ONLY_PATHS'
  | 'RAILYARD_SANDBOX_WRITABLE_PATHS'
>;

/** The sandbox to run test commands in; null only when running unsandboxed was asked for. */
export function sandboxOf(
  config: SandboxConfig,
  probe = probeSandbox,
  warn: (message: string) => void = (m) => console.error(m),
): SandboxSettings | null {
  const found = probe('bwrap');
  switch (found.kind) {
    case 'available':
      // Without pasta a network-on run shares this machine's network, loopback services included.
      if (found.isolatedNetwork.kind === 'unavailable')
        warn(
          `railyard executor: test runs with the network on share this machine's network, its loopback ` +
            `services included: ${found.isolatedNetwork.reason}. Install passt (bash scripts/ensure-bwrap.sh).`,
        );
      return {
        ...DEFAULT_SANDBOX,
        bwrap: 'bwrap',
        ...(found.isolatedNetwork.kind === 'available' ? { pasta: 'pasta' } : {}),
        network: config.RAILYARD_SANDBOX_NETWORK === 'on',
        memoryBytes: config.RAILYARD_SANDBOX_MEMORY_MB * MIB,
        maxProcesses: config.RAILYARD_SANDBOX_MAX_PROCESSES,
        maxFileBytes: config.RAILYARD_SANDBOX_MAX_FILE_MB * MIB,
        tmpBytes: config.RAILYARD_SANDBOX_TMP_MB * MIB,
        readOnlyPaths: config.RAILYARD_SANDBOX_READ_ONLY_PATHS ?? [],
        writablePaths: config.RAILYARD_SANDBOX_WRITABLE_PATHS ?? [],
      };
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
