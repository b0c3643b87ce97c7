/**
 * Per-run resource limits through cgroup v2 (issue 24): where the host delegates the executor a cgroup
 * with the memory, pids and cpu controllers (systemd `Delegate=yes`, a container with its own cgroup
 * namespace), every test run gets a cgroup of its own under it: `memory.max` (its whole memory, every
 * process together), `pids.max` (its processes together) and `cpu.weight` (each run an equal share of
 * the CPU however many processes it starts). Elsewhere — cgroup v1, a hybrid hierarchy, an undelegated
 * cgroup — the limits are the sandbox's per-process ones only (RLIMIT_AS, RLIMIT_NPROC in the run's user
 * namespace) and the executor says so at start, in its log and /readyz.
 *
 * Layout under the executor's own cgroup P (cgroup v2's "no internal processes" rule):
 *   P/executor   the executor process itself (and anything else in P), moved there before the first run;
 *   P/run-<id>   one per run, created before its spawn, removed when empty (at the next run's start:
 *                a cgroup cannot be removed while any process of the run is still exiting).
 * A run's first process joins its cgroup itself before it execs anything (joinLine), so every process
 * of the run, whatever it forks, is counted from the start.
 */
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

export const CGROUP_CONTROLLERS = ['memory', 'pids', 'cpu'] as const;

/** What the run's log says when its first process could not join its cgroup: an executor fault. */
export const CGROUP_JOIN_FAILED = 'railyard sandbox: the run could not join its cgroup';

export type RunLimits = { kind: 'per-run'; cgroup: string } | { kind: 'per-process'; reason: string };

/** What /readyz and the log say about `limits`. */
export function describeLimits(limits: RunLimits): string {
  switch (limits.kind) {
    case 'per-run':
      return `per run (cgroup v2 ${limits.cgroup}: memory.max, pids.max, cpu.weight)`;
    case 'per-process':
      return `per process only (address space and process count of each process; no per-run memory, process or CPU limit): ${limits.reason}`;
    default: {
      const never: never = limits;
      throw new Error(`unknown limits ${String(never)}`);
    }
  }
}

/**
 * Whether the executor's cgroup is a delegated cgroup v2 one with the three controllers (reads only;
 * the first run prepares it, see prepareParent). `root` is where cgroup2 is mounted.
 */
export function probeRunCgroups(root = '/sys/fs/cgroup', selfCgroup = '/proc/self/cgroup'): RunLimits {
  if (!existsSync(join(root, 'cgroup.controllers')))
    return {
      kind: 'per-process',
      reason: `${root} is not a cgroup v2 hierarchy (this machine uses cgroup v1 or a hybrid)`,
    };
  const own = /^0::(\/.*)$/m.exec(readFileSync(selfCgroup, 'utf8'))?.[1];
  if (own === undefined) return { kind: 'per-process', reason: `${selfCgroup} names no cgroup v2 cgroup` };
  // Already prepared (this process in P/executor): runs go beside it.
  const parent = join(root, own.endsWith('/executor') ? own.slice(0, -'/executor'.length) : own);
  const available = readFileSync(join(parent, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
  const missing = CGROUP_CONTROLLERS.filter((c) => !available.includes(c));
  if (missing.length > 0)
    return {
      kind: 'per-process',
      reason: `the executor's cgroup ${parent} is not delegated the ${missing.join(', ')} controller(s) (systemd: Delegate=yes)`,
    };
  try {
    accessSync(parent, constants.W_OK);
    accessSync(join(parent, 'cgroup.subtree_control'), constants.W_OK);
  } catch {
    return { kind: 'per-process', reason: `the executor cannot write its cgroup ${parent}` };
  }
  return { kind: 'per-run', cgroup: parent };
}

/**
 * Makes `parent` ready for run cgroups once (idempotent): every process in it moves to
 * `parent/executor` (cgroup v2 lets a cgroup enable controllers for children only when it holds no
 * process itself), then the controllers are enabled for its children.
 */
function prepareParent(parent: string): void {
  const enabled = readFileSync(join(parent, 'cgroup.subtree_control'), 'utf8').trim().split(/\s+/);
  if (CGROUP_CONTROLLERS.every((c) => enabled.includes(c))) return;
  const leaf = join(parent, 'executor');
  mkdirSync(leaf, { recursive: true });
  for (const member of readFileSync(join(parent, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean))
    writeFileSync(join(leaf, 'cgroup.procs'), member);
  writeFileSync(join(parent, 'cgroup.subtree_control'), CGROUP_CONTROLLERS.map((c) => `+${c}`).join(' '));
}

export interface RunCgroupLimits {
  memoryBytes: number;
  maxProcesses: number;
}

/** Creates a run's cgroup under `parent` with its limits, after removing empty ones of earlier runs. */
export function createRunCgroup(parent: string, limits: RunCgroupLimits): string {
  prepareParent(parent);
  for (const name of readdirSync(parent).filter((n) => n.startsWith('run-'))) {
    try {
      rmdirSync(join(parent, name)); // EBUSY while a process of that run still exits: next time
    } catch {
      // still populated
    }
  }
  const dir = join(parent, `run-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'memory.max'), String(limits.memoryBytes));
  if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
  writeFileSync(join(dir, 'pids.max'), String(limits.maxProcesses));
  writeFileSync(join(dir, 'cpu.weight'), '100');
  return dir;
}

/**
 * The spawn that first moves itself into `cgroup` (as the executor's user, which may move processes
 * within its delegated cgroup), then becomes `ids` when given, then execs `file args`.
 */
export function joinLine(
  cgroup: string,
  line: { file: string; args: readonly string[]; ids?: { uid: number; gid: number } },
): { file: string; args: string[] } {
  const drop = line.ids
    ? ['setpriv', `--reuid=${line.ids.uid}`, `--regid=${line.ids.gid}`, '--clear-groups', '--']
    : [];
  return {
    file: 'bash',
    args: [
      '--norc',
      '--noprofile',
      '-c',
      `echo 0 >"$1/cgroup.procs" || { echo "${CGROUP_JOIN_FAILED}" >&2; exit 125; }; shift; exec "$@"`,
      'railyard-cgroup',
      cgroup,
      ...drop,
      line.file,
      ...line.args,
    ],
  };
}
