/**
 * Per-run cgroup limits (executor/run-cgroup.ts): where they apply, what a run's cgroup holds, how a
 * run joins it, and what the executor says where it cannot (this repository's CI machine has cgroup v1,
 * so the cgroup v2 side is checked on a fake cgroup tree here: files, not a kernel; the join on the
 * real kernel is test/integration/executor/run-cgroup-kernel.test.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX, sandboxedCommand } from '../../../executor/sandbox';
import { type SandboxProbe } from '../../../executor/sandbox-probe';
import {
  createRunCgroup,
  describeLimits,
  joinLine,
  probeRunCgroups,
  type RunLimits,
} from '../../../executor/run-cgroup';
import { buildExecutorHealth } from '../../../worker/executor-health';
import { sandboxOf } from '../../../worker/sandbox-settings';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'railyard-cgroup-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A cgroup2 root with the executor in `/svc` (controllers as given) and its /proc/self/cgroup. */
function fakeTree(controllers: string): { root: string; self: string; parent: string } {
  const root = join(dir, 'cgroup');
  const parent = join(root, 'svc');
  mkdirSync(parent, { recursive: true });
  writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
  writeFileSync(join(parent, 'cgroup.controllers'), `${controllers}\n`);
  writeFileSync(join(parent, 'cgroup.subtree_control'), '');
  writeFileSync(join(parent, 'cgroup.procs'), '4242\n');
  const self = join(dir, 'self-cgroup');
  writeFileSync(self, '0::/svc\n');
  return { root, self, parent };
}

it('cgroup v1 (this machine) or an undelegated cgroup: per process only, saying why', () => {
  expect(probeRunCgroups(join(dir, 'none'))).toEqual({
    kind: 'per-process',
    reason: expect.stringContaining('not a cgroup v2 hierarchy') as string,
  });
  const tree = fakeTree('cpu io');
  expect(probeRunCgroups(tree.root, tree.self)).toEqual({
    kind: 'per-process',
    reason: expect.stringContaining('not delegated the memory, pids controller(s)') as string,
  });
});

it('a delegated cgroup v2 one: each run gets a cgroup of its own with memory, processes and CPU weight', () => {
  const tree = fakeTree('cpu io memory pids');
  expect(probeRunCgroups(tree.root, tree.self)).toEqual({ kind: 'per-run', cgroup: tree.parent });
  const run = createRunCgroup(tree.parent, { memoryBytes: 1024 ** 3, maxProcesses: 64 });
  // The executor left the parent for a leaf, so the parent could enable the controllers for runs.
  expect(readFileSync(join(tree.parent, 'executor', 'cgroup.procs'), 'utf8')).toBe('4242');
  expect(readFileSync(join(tree.parent, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +pids +cpu');
  expect(run.startsWith(join(tree.parent, 'run-'))).toBe(true);
  expect(['memory.max', 'pids.max', 'cpu.weight'].map((f) => readFileSync(join(run, f), 'utf8'))).toEqual([
    String(1024 ** 3),
    '64',
    '100',
  ]);
});

it('a run joins its cgroup before anything else runs, then drops to the sandbox user', () => {
  const line = joinLine('/sys/fs/cgroup/svc/run-1', {
    file: 'bwrap',
    args: ['--', 'true'],
    ids: { uid: 7, gid: 8 },
  });
  expect(line.file).toBe('bash');
  expect(line.args[3]).toMatch(/^echo 0 >"\$1\/cgroup.procs" \|\|/);
  expect(line.args.slice(4)).toEqual([
    'railyard-cgroup',
    '/sys/fs/cgroup/svc/run-1',
    ...['setpriv', '--reuid=7', '--regid=8', '--clear-groups', '--'],
    ...['bwrap', '--', 'true'],
  ]);
  expect(joinLine('/c', { file: 'bwrap', args: [] }).args.slice(4)).toEqual([
    'railyard-cgroup',
    '/c',
    'bwrap',
  ]);
});

it('the sandbox uses the run cgroup only when the settings name one', () => {
  const tree = fakeTree('cpu io memory pids');
  const checkout = join(dir, 'checkout');
  mkdirSync(checkout);
  const spec = { command: 'true', checkout, env: {} };
  expect(sandboxedCommand({ ...DEFAULT_SANDBOX, bwrap: 'bwrap', network: false }, spec).file).toBe('bwrap');
  const line = sandboxedCommand(
    { ...DEFAULT_SANDBOX, bwrap: 'bwrap', network: false, runCgroups: tree.parent },
    spec,
  );
  expect(line).toMatchObject({
    file: 'bash',
    args: expect.arrayContaining(['bwrap', '--unshare-net']) as string[],
  });
  expect(line.ids).toBeUndefined(); // the join runs as the executor; setpriv drops afterwards
});

it('the executor says at start when limits are per process only, and why', () => {
  const warnings: string[] = [];
  const probe = (): SandboxProbe => ({
    kind: 'available',
    version: 'bubblewrap 0.8.0',
    isolatedNetwork: { kind: 'unavailable', reason: 'pasta is not installed' },
    limits: { kind: 'per-process', reason: '/sys/fs/cgroup is not a cgroup v2 hierarchy' },
  });
  const sandbox = sandboxOf(
    {
      RAILYARD_EXECUTOR_UNSANDBOXED: false,
      RAILYARD_SANDBOX_NETWORK: 'on',
      RAILYARD_SANDBOX_NETWORK_UNISOLATED: 'refuse',
      RAILYARD_SANDBOX_MEMORY_MB: 1024,
      RAILYARD_SANDBOX_MAX_PROCESSES: 64,
      RAILYARD_SANDBOX_MAX_FILE_MB: 64,
      RAILYARD_SANDBOX_TMP_MB: 64,
      RAILYARD_EXECUTOR_API_URL: 'http://127.0.0.1:8080',
    },
    probe,
    (m) => warnings.push(m),
  );
  expect(sandbox?.runCgroups).toBeUndefined();
  expect(warnings.join('\n')).toContain(
    "test runs' memory, processes and CPU are limited per process only (address space and process count of each process; no per-run memory, process or CPU limit): /sys/fs/cgroup is not a cgroup v2 hierarchy",
  );
  expect(describeLimits({ kind: 'per-run', cgroup: '/sys/fs/cgroup/svc' })).toMatch(/^per run/);
});

it('/readyz says how runs are limited: per run, per process only and why, or not at all', async () => {
  const health = (sandbox: string, limits: RunLimits) =>
    buildExecutorHealth({
      api: 'https://railyard.example',
      name: 'e1',
      slots: 1,
      sandbox,
      network: 'isolated',
      limits,
      running: () => true,
    });
  const said = async (sandbox: string, limits: RunLimits) => {
    const app = health(sandbox, limits);
    const body = (await app.inject({ url: '/readyz' })).json<{ limits: string }>();
    await app.close();
    return body.limits;
  };
  const v1: RunLimits = { kind: 'per-process', reason: '/sys/fs/cgroup is not a cgroup v2 hierarchy' };
  expect(await said('bubblewrap 0.8.0', v1)).toMatch(
    /^per process only .*: \/sys\/fs\/cgroup is not a cgroup v2/,
  );
  expect(await said('bubblewrap 0.8.0', { kind: 'per-run', cgroup: '/sys/fs/cgroup/svc' })).toMatch(
    /^per run/,
  );
  expect(await said('UNSANDBOXED', v1)).toBe('none (UNSANDBOXED)');
});
