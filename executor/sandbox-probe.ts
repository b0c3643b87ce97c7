/**
 * The sandbox probe: whether this machine can run the sandbox of sandbox.ts (bwrap with user and PID
 * namespaces and a sized /tmp), whether a network-on run can get a network of its own (pasta and
 * iproute2's `ip`, with the run's address rules), and which per-run cgroup limits the host delegates.
 * The executor probes once at start and says the answer in its log and on /readyz.
 *
 * A failure is believed only after PROBE_TRIALS trial runs: one bwrap set-up failure on a loaded
 * machine must not report a working sandbox as missing for the executor's whole life.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { probeRunCgroups, type RunLimits } from './run-cgroup';
import { DEFAULT_SANDBOX, systemLinks, type SandboxSettings } from './sandbox';
import { addressRules, currentPolicy } from './sandbox-addresses';
import {
  ipCommand,
  NO_IP,
  NO_TUN,
  pastaForm,
  pastaSpawn,
  ROUTE_WAIT,
  type PastaForm,
} from './sandbox-network';

export type SandboxProbe =
  | {
      kind: 'available';
      version: string;
      isolatedNetwork: NetworkProbe;
      /** Per-run cgroup limits, or why they are per process only (probed when absent). */
      limits?: RunLimits;
    }
  | { kind: 'unavailable'; reason: string };

/** Whether a network-on run can get a network of its own (pasta), and how it is started. */
export type NetworkProbe = { kind: 'available'; form: PastaForm } | { kind: 'unavailable'; reason: string };

/** Namespaces and mounts enough to run bash and coreutils, and a sized /tmp: the probes' trial runs. */
function trialOptions(): string[] {
  return [
    '--unshare-user',
    '--unshare-pid',
    '--die-with-parent',
    '--ro-bind',
    '/usr',
    '/usr',
    ...systemLinks(),
  ].concat(['--proc', '/proc', '--dev', '/dev', '--size', '1048576', '--tmpfs', '/tmp']);
}

/** Trial runs a probe makes before it believes a failure. */
const PROBE_TRIALS = 3;

/**
 * A probe's trial run, tried again when it fails: bwrap sometimes fails to set a sandbox up on a loaded
 * machine ("loopback: Failed RTM_NEWADDR: No child processes", see sandboxSetupFailure), and one such
 * failure must not report a working sandbox or network as missing for the executor's whole life.
 */
function trials(run: () => SpawnSyncReturns<string>): SpawnSyncReturns<string> {
  let result = run();
  for (let i = 1; i < PROBE_TRIALS && (result.error || result.status !== 0); i++) result = run();
  return result;
}

/**
 * Whether `bwrap` runs here with the namespaces the sandbox needs (one short run of `true`), and whether
 * `pasta` gives a network-on run a network of its own (one short run that waits for its route). `ip`
 * finds iproute2's `ip` (tests make it find none).
 */
export function probeSandbox(
  bwrap: string,
  pasta = 'pasta',
  ip: () => string | null = ipCommand,
): SandboxProbe {
  const settings: SandboxSettings = { ...DEFAULT_SANDBOX, bwrap };
  const version = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  if (version.error || version.status !== 0)
    return { kind: 'unavailable', reason: `${bwrap} is not installed (Debian package bubblewrap)` };
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const trial = trials(() =>
    spawnSync(bwrap, [...trialOptions(), '--', 'true'], {
      encoding: 'utf8',
      timeout: 10_000,
      env: {},
      ...(root ? { uid: settings.runAs.uid, gid: settings.runAs.gid } : {}),
    }),
  );
  if (trial.error || trial.status !== 0) {
    const said = (trial.stderr || String(trial.error)).trim();
    // A run's /tmp is a size-limited tmpfs (--size, bubblewrap 0.5 and later): without it, no sandbox.
    if (/--size/.test(said))
      return { kind: 'unavailable', reason: `${bwrap} cannot size a run's /tmp (--size: ${said})` };
    return { kind: 'unavailable', reason: `bwrap cannot create user and PID namespaces here (${said})` };
  }
  return {
    kind: 'available',
    version: version.stdout.trim(),
    isolatedNetwork: probeNetwork(bwrap, pasta, root, settings.runAs, ip()),
    limits: probeRunCgroups(),
  };
}

function probeNetwork(
  bwrap: string,
  pasta: string,
  root: boolean,
  runAs: SandboxSettings['runAs'],
  ip: string | null,
): NetworkProbe {
  const version = spawnSync(pasta, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  if (version.error || version.status !== 0)
    return { kind: 'unavailable', reason: `${pasta} is not installed (Debian package passt)` };
  const form = pastaForm(root, runAs);
  if (form === null) return { kind: 'unavailable', reason: NO_TUN };
  if (ip === null) return { kind: 'unavailable', reason: NO_IP };
  // The trial sets the same rules a run gets (without an allow-list): a kernel that refuses them shows here.
  const line = pastaSpawn(form, {
    pasta,
    bwrap,
    bwrapOptions: trialOptions(),
    command: ['bash', '-c', `${ROUTE_WAIT}true`],
    runAs,
    root,
    ip,
    rules: addressRules(currentPolicy([], [])),
    log: false,
  });
  // timeout(1) signals its whole process group (pasta and bwrap too), which spawnSync would not.
  const trial = trials(() =>
    spawnSync('timeout', ['-k', '2', '15', line.file, ...line.args], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      ...(line.ids ?? {}),
    }),
  );
  if (trial.error || trial.status !== 0) {
    // Where there is no /dev/log every message comes with a line saying so: those say nothing here.
    const said = (trial.stderr || String(trial.error))
      .split('\n')
      .filter((l) => l.trim() && !/to syslog$/.test(l))
      .join('; ');
    return { kind: 'unavailable', reason: `pasta could not give a run a network of its own (${said})` };
  }
  return { kind: 'available', form };
}
