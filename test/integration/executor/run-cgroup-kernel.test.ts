/**
 * A run's cgroup on a real kernel (executor/run-cgroup.ts, issue 24): the run's first process joins its
 * cgroup v2 cgroup before it execs anything (joinLine), so bwrap, its PID namespace and everything the
 * command forks are in it, as root drops to the sandbox's user; the cgroup is empty, and removable,
 * once the run is gone; and a cgroup the run cannot join stops it before any command, with the
 * sentence the executor takes as its own fault (tried again, not the PR failing).
 *
 * This machine's cgroup v2 hierarchy holds no memory, pids or cpu controller (they are on cgroup v1),
 * so the limits a run's cgroup carries (memory.max, pids.max, cpu.weight) are checked on a fake tree
 * only (test/unit/runners/run-cgroup.test.ts); here the kernel's side of the join. The test makes its
 * cgroups under the cgroup2 mount and removes them. Needs root, a cgroup2 mount and bwrap.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CGROUP_JOIN_FAILED, joinLine } from '../../../executor/run-cgroup';
import { executorFault } from '../../../executor/run-job';
import { DEFAULT_SANDBOX, sandboxedCommand } from '../../../executor/sandbox';
import { probeSandbox } from '../../../executor/sandbox-probe';
import { INSTALL, requireTool } from '../../support/required-tool';

jest.setTimeout(60_000);

/** Where cgroup2 is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid), from mountinfo. */
function cgroup2Mount(): string | null {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [mounts, fs] = line.split(' - ');
    if (fs?.startsWith('cgroup2 ')) return mounts?.split(' ')[4] ?? null;
  }
  return null;
}

const mount = cgroup2Mount();
const bwrap = requireTool({
  tool: 'bwrap',
  probe: probeSandbox('bwrap'),
  install: INSTALL.bwrap,
  neededBy: 'the run cgroup kernel suite (run-cgroup-kernel.test.ts)',
});
const cgroups =
  bwrap &&
  requireTool({
    tool: 'a cgroup v2 hierarchy',
    probe:
      process.getuid?.() !== 0
        ? { kind: 'unavailable', reason: 'making cgroups needs root' }
        : mount === null
          ? { kind: 'unavailable', reason: 'no cgroup2 mount in /proc/self/mountinfo' }
          : { kind: 'available' },
    install: 'run the tests as root on a kernel with cgroup v2 mounted (systemd does)',
    neededBy: 'the run cgroup kernel suite (run-cgroup-kernel.test.ts)',
  });

(cgroups ? describe : describe.skip)('a run in its cgroup, on this kernel', () => {
  let scratch: string;
  let checkout: string;
  const made: string[] = [];
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'railyard-cgroup-kernel-'));
    chmodSync(scratch, 0o711); // searchable by the sandbox's user (bwrap runs as it under root)
    checkout = join(scratch, 'checkout');
    mkdirSync(checkout, { mode: 0o777 });
  });
  afterAll(() => {
    for (const dir of made.reverse()) rmdirSync(dir);
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A cgroup of this test's own under the cgroup2 mount (removed after). */
  const cgroup = (name: string) => {
    const dir = join(mount!, `railyard-test-${process.pid}-${name}`);
    mkdirSync(dir);
    made.push(dir);
    return dir;
  };

  /** The sandboxed `command` started as a run with a cgroup starts: joinLine around bwrap's line. */
  const start = (cg: string, command: string) => {
    const line = sandboxedCommand(
      { ...DEFAULT_SANDBOX, bwrap: 'bwrap', network: false },
      { command, checkout, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
    );
    const joined = joinLine(cg, line);
    const child = spawn(joined.file, joined.args, {
      cwd: '/',
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    let done = false;
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => {
        done = true;
        resolve(code);
      }),
    );
    return { pid: child.pid!, exited, output: () => output, done: () => done };
  };

  it('every process of the run, bwrap and its PID namespace included, is in its cgroup; empty and removable after', async () => {
    const cg = cgroup('run');
    const marker = String(700_000 + process.pid);
    const run = start(cg, `sleep 30.${marker} & sleep 30.${marker}; wait`);
    // Both sleeps started: the run's whole tree exists.
    let tree: number[] = [];
    for (let i = 0; i < 200 && !run.done(); i++) {
      tree = descendants(run.pid);
      if (tree.filter((p) => commandOf(p).startsWith(`sleep 30.${marker}`)).length >= 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const sleeps = tree.filter((p) => commandOf(p).startsWith(`sleep 30.${marker}`));
    const members = procsOf(cg);
    const bwraps = tree.filter((p) => commandOf(p).startsWith('bwrap '));
    try {
      expect({ sleeps: sleeps.length, output: run.output() }).toEqual({ sleeps: 2, output: '' });
      expect(bwraps.length).toBeGreaterThanOrEqual(1); // the sleeps are inside its PID namespace
      expect([run.pid, ...tree].filter((p) => alive(p) && !members.includes(p))).toEqual([]);
      // The sandbox's processes run as its user, not root, although root joined the cgroup.
      expect(sleeps.map((p) => uidOf(p))).toEqual([DEFAULT_SANDBOX.runAs.uid, DEFAULT_SANDBOX.runAs.uid]);
      // And the test process itself stayed where it was.
      expect(readFileSync('/proc/self/cgroup', 'utf8')).not.toContain(cg.slice(mount!.length));
    } finally {
      // Killing the run takes its tree down with it (death signals): one seen alive here may be gone
      // by its turn (ESRCH, seen under load).
      for (const p of [run.pid, ...tree]) if (alive(p)) killIfThere(p);
    }
    await run.exited;
    for (let i = 0; i < 100 && procsOf(cg).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(procsOf(cg)).toEqual([]);
    rmdirSync(cg); // what createRunCgroup does with an earlier run's empty cgroup
    made.splice(made.indexOf(cg), 1);
  });

  it('a cgroup the run cannot join stops it before any command: the executor-fault sentence, exit 125', async () => {
    const cg = cgroup('gone');
    rmdirSync(cg); // removed under the executor (its service's cgroup was reset, say)
    made.splice(made.indexOf(cg), 1);
    const run = start(cg, 'echo the-command-ran');
    const code = await run.exited;
    expect({ code, output: run.output() }).toEqual({
      code: 125,
      output: expect.stringContaining(CGROUP_JOIN_FAILED) as string,
    });
    expect(run.output()).not.toContain('the-command-ran');
    expect(executorFault(code, run.output())).toEqual({
      kind: 'sandbox_setup_failed',
      message: CGROUP_JOIN_FAILED,
    });
  });
});

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function procsOf(cg: string): number[] {
  return read(join(cg, 'cgroup.procs')).split('\n').filter(Boolean).map(Number);
}

function commandOf(pid: number): string {
  return read(`/proc/${pid}/cmdline`).replaceAll('\0', ' ');
}

function uidOf(pid: number): number {
  return Number(/^Uid:\s+(\d+)/m.exec(read(`/proc/${pid}/status`))?.[1]);
}

/** SIGKILL to `pid` unless it is already gone. */
function killIfThere(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

function alive(pid: number): boolean {
  const stat = read(`/proc/${pid}/stat`);
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** Every process below `pid` (by parent pid). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    const stat = read(`/proc/${name}/stat`);
    if (!stat) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of parents.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}
