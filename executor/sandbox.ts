/**
 * The sandbox of one test run (issue 17): the command line that runs a pull request's test command
 * inside bubblewrap (`bwrap`, Debian's `bubblewrap` package). Whether this machine can run it is
 * sandbox-probe.ts.
 *
 * What the command sees and may do (each line is a bwrap option or a limit set below):
 *  - its own user namespace, as an unprivileged uid/gid; when the worker runs as root, bwrap itself is
 *    started as `runAs` (default nobody, 65534) so that no process of the run is root outside either
 *    and RLIMIT_NPROC applies (the kernel never applies it to real uid 0);
 *  - its own PID namespace (`--unshare-pid`, `--die-with-parent`, `--new-session`): the worker's
 *    processes are invisible, and killing bwrap kills every descendant, `setsid` daemons included;
 *  - an environment of exactly `env` (`--clearenv`); bwrap itself is spawned with that same environment,
 *    because its PID 1 inside the namespace keeps the environment it was started with in
 *    /proc/1/environ, readable from inside;
 *  - the system read-only (/usr and the merged-/usr links, a short list of /etc files), the Node.js
 *    install the worker runs on, its own /proc, a minimal /dev, a private size-bounded /tmp holding
 *    HOME, and the root remounted read-only;
 *  - the checkout as the only writable path (plus `writablePaths`, which only tests use); the checkout
 *    must own its objects (the runner repacks a `clone --shared` and drops its alternates), so no
 *    bare repository is visible at all and `git update-ref` on a target branch cannot happen;
 *  - bwrap run as `runAs` opens the checkout by path: the work root's parent folders must be
 *    searchable (mode o+x) by that user, or the run fails with bwrap's "Permission denied";
 *  - limits set by bash's `ulimit` before the command starts: address space, processes, file size
 *    (every file the command writes, its log included, is cut at `maxFileBytes` by SIGXFSZ); and, where
 *    the host delegates a cgroup v2 one (`runCgroups`), a cgroup of its own holding the whole run to
 *    `memoryBytes` of memory and `maxProcesses` processes together, with an equal CPU weight
 *    (run-cgroup.ts; elsewhere the executor says the limits are per process only);
 *  - with `network: false` a network of its own with only a loopback (`--unshare-net`); with the
 *    network on and `pasta` set, a network of its own that reaches public addresses through pasta and
 *    nothing of the neighbourhood: not the host's loopback, private or link-local ranges, this machine's
 *    subnets or the API, except the operator's `networkAllow` (sandbox-network.ts and
 *    sandbox-addresses.ts say how); with the network on and no pasta, no network at all: the run is
 *    refused, saying which tool is missing (`unisolatedNetwork`), unless the operator allowed the
 *    worker's own network, loopback included (RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow).
 * Nothing else of the host is mounted: not the data folder, the git root, other checkouts, the project.
 */
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRunCgroup, joinLine } from './run-cgroup';
import { addressRules, currentPolicy, type AddressRange } from './sandbox-addresses';
import {
  ipCommand,
  NO_IP,
  NO_TUN,
  parentChecked,
  pastaForm,
  pastaSpawn,
  ROUTE_WAIT,
  type NetworkKind,
  type UnisolatedNetwork,
} from './sandbox-network';

export interface SandboxSettings {
  /** The bwrap executable. */
  bwrap: string;
  /** false: a network namespace of its own (no access to the host's services or the internet). */
  network: boolean;
  /**
   * The pasta executable (Debian's passt): with `network` on, the run's network is its own, reaching
   * the internet but not the host's loopback. Absent: see `unisolatedNetwork`.
   */
  pasta?: string;
  /**
   * Without `pasta`, what a network-on run gets: refused (also when absent, saying only that no pasta
   * was given), or the host's network where the operator allowed it.
   */
  unisolatedNetwork?: UnisolatedNetwork;
  /** With pasta: ranges opened in front of the closed ones (the operator's allow-list). */
  networkAllow?: readonly AddressRange[];
  /** With pasta: ranges closed besides the non-public ones and this machine's subnets (the API's). */
  networkDeny?: readonly AddressRange[];
  /** RLIMIT_AS of every process of the run. */
  memoryBytes: number;
  /** RLIMIT_NPROC inside the run's user namespace. */
  maxProcesses: number;
  /** RLIMIT_FSIZE: the largest file the command may write. */
  maxFileBytes: number;
  /** Size of the private /tmp (a tmpfs, in memory). */
  tmpBytes: number;
  /** A delegated cgroup v2 cgroup each run gets a cgroup of its own under (run-cgroup.ts). */
  runCgroups?: string;
  /** The host uid/gid bwrap runs as when the worker is root. */
  runAs: { uid: number; gid: number };
  /** Extra read-only paths (toolchains outside /usr), absolute. */
  readOnlyPaths?: readonly string[];
  /** Extra writable paths: for tests only (a gate directory the e2e stories use). */
  writablePaths?: readonly string[];
}

export const DEFAULT_SANDBOX: Omit<SandboxSettings, 'bwrap'> = {
  network: true,
  memoryBytes: 8 * 1024 ** 3,
  maxProcesses: 512,
  maxFileBytes: 1024 ** 3,
  tmpBytes: 512 * 1024 ** 2,
  runAs: { uid: 65534, gid: 65534 },
};

/** Inside the sandbox: uid/gid of the command, where the checkout is, HOME. */
const INSIDE_ID = 1000;
export const SANDBOX_CHECKOUT = '/work/checkout';
export const SANDBOX_HOME = '/tmp/home';

const ETC_FILES = [
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'passwd',
  'group',
  'hosts',
  'resolv.conf',
  'nsswitch.conf',
  'host.conf',
  'localtime',
  'ssl',
  'ca-certificates',
  'mime.types',
];

export interface SandboxedSpawn {
  file: string;
  args: string[];
  /** The host uid/gid to spawn bwrap as (only when the worker is root). */
  ids?: { uid: number; gid: number };
}

/** The bwrap command line running `command` with `bash -c` in `checkout` under `settings`. */
export function sandboxedCommand(
  settings: SandboxSettings,
  spec: { command: string; checkout: string; env: Record<string, string> },
): SandboxedSpawn {
  if (existsSync(join(spec.checkout, '.git', 'objects', 'info', 'alternates')))
    throw new Error('a sandboxed checkout must own its objects (no .git/objects/info/alternates)');
  const refusal = networkRefusal(settings);
  if (refusal !== null) throw new Error(refusal);
  const kind = networkKind(settings);
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const options = [
    '--unshare-user',
    '--uid',
    String(INSIDE_ID),
    '--gid',
    String(INSIDE_ID),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(kind === 'none' ? ['--unshare-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    ...Object.entries(spec.env).flatMap(([name, value]) => ['--setenv', name, value]),
    '--ro-bind',
    '/usr',
    '/usr',
    ...systemLinks(),
    ...etcBinds(),
    ...roBinds(nodeInstall()),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(settings.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--dir',
    SANDBOX_HOME,
    // After the tmpfs: a read-only path under /tmp would otherwise be hidden by it.
    ...roBinds(settings.readOnlyPaths ?? []),
    '--bind',
    spec.checkout,
    SANDBOX_CHECKOUT,
    ...(settings.writablePaths ?? []).flatMap((dir) => ['--bind', dir, dir]),
    '--chdir',
    SANDBOX_CHECKOUT,
    '--remount-ro',
    '/',
  ];
  const command = [
    'bash',
    '-c',
    // Limits first, then the command as `bash -c` would have run it. ulimit -v is in KiB, -f in
    // 1024-byte blocks (bash, not POSIX mode); soft and hard both, so the command cannot raise them.
    (kind === 'isolated' ? ROUTE_WAIT : '') +
      'ulimit -S -H -v "$1" && ulimit -S -H -u "$2" && ulimit -S -H -f "$3" && exec bash -c "$4"',
    'railyard-sandbox',
    String(Math.floor(settings.memoryBytes / 1024)),
    String(settings.maxProcesses),
    String(Math.floor(settings.maxFileBytes / 1024)),
    spec.command,
  ];
  if (kind === 'isolated') {
    const form = pastaForm(root, settings.runAs);
    if (form === null) throw new Error(NO_TUN);
    const ip = ipCommand();
    if (ip === null) throw new Error(NO_IP);
    const line = pastaSpawn(form, {
      pasta: settings.pasta!,
      bwrap: settings.bwrap,
      bwrapOptions: options,
      command,
      runAs: settings.runAs,
      root,
      ip,
      rules: addressRules(currentPolicy(settings.networkAllow ?? [], settings.networkDeny ?? [])),
    });
    // pasta (wrap) or the coordinator (helper) is what the executor starts here, not bwrap, whose
    // --die-with-parent then follows it: it must die with the executor too, or a killed executor's run
    // would go on, orphaned. PR_SET_PDEATHSIG survives exec (neither program is set-user-ID), and
    // PARENT_CHECK closes the window before setpriv set it (sandbox-network.ts).
    return inRunCgroup(settings, {
      ...line,
      file: 'setpriv',
      args: ['--pdeathsig', 'KILL', '--', ...parentChecked(process.pid, [line.file, ...line.args])],
    });
  }
  return inRunCgroup(settings, {
    file: settings.bwrap,
    args: [...options, '--', ...command],
    ...(root ? { ids: settings.runAs } : {}),
  });
}

/** `line` started in a cgroup of the run's own when the settings name a delegated one. */
function inRunCgroup(settings: SandboxSettings, line: SandboxedSpawn): SandboxedSpawn {
  if (!settings.runCgroups) return line;
  const cgroup = createRunCgroup(settings.runCgroups, {
    memoryBytes: settings.memoryBytes,
    maxProcesses: settings.maxProcesses,
  });
  return joinLine(cgroup, line);
}

type NetworkSettings = Pick<SandboxSettings, 'network' | 'pasta' | 'unisolatedNetwork'>;

/** Which network a run under `settings` gets (see the header): no pasta is a refusal unless allowed. */
export function networkKind(settings: NetworkSettings): NetworkKind {
  if (!settings.network) return 'none';
  if (settings.pasta) return 'isolated';
  return settings.unisolatedNetwork?.kind === 'host' ? 'host' : 'refused';
}

/**
 * Why a run under `settings` is refused — its network is on and cannot be isolated here, naming the
 * missing tool — or null when it may run. The run's failure carries this sentence (run-job.ts).
 */
export function networkRefusal(settings: NetworkSettings): string | null {
  if (networkKind(settings) !== 'refused') return null;
  const reason = settings.unisolatedNetwork?.reason ?? 'no pasta was given to the sandbox';
  return (
    `railyard sandbox: this run has the network on, and this executor cannot give it a network of its own ` +
    `(${reason}); it is refused rather than run on the executor's network, where it would reach its ` +
    'loopback services and private network. Install passt and iproute2 on the executor ' +
    "(bash scripts/ensure-bwrap.sh), turn the queue's testNetwork off, or set " +
    'RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow on the executor (unsafe).'
  );
}

/** /bin, /lib… are links into /usr on merged-/usr systems, directories elsewhere. */
export function systemLinks(): string[] {
  const out: string[] = [];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    const info = lstatSync(dir, { throwIfNoEntry: false });
    if (!info) continue;
    if (info.isSymbolicLink()) out.push('--symlink', readlinkSync(dir), dir);
    else out.push('--ro-bind', dir, dir);
  }
  return out;
}

function etcBinds(): string[] {
  return ETC_FILES.flatMap((name) => ['--ro-bind-try', `/etc/${name}`, `/etc/${name}`]);
}

function roBinds(paths: readonly string[]): string[] {
  return paths.filter((p) => !p.startsWith('/usr/')).flatMap((p) => ['--ro-bind-try', p, p]);
}

/** The Node.js install the worker runs on (its prefix), for commands that run npm or node. */
function nodeInstall(): string[] {
  return [resolve(dirname(process.execPath), '..')];
}
