/**
 * The attack suite through the queue (issue 17): pull requests whose own `.railyard/merge-queue.json`
 * runs an attack as the test command, on the real control worker and an executor with the bwrap sandbox
 * (test/support/executor.ts). Each command exits 0 only if its attack failed, so every attack PR must
 * merge (its run reports normally); afterwards nothing the attacker tried is in effect — main moved only
 * by the queue, no process left — and a plain PR still merges. The direct, per-attack suite with the
 * resource attacks (fork bomb, disk, log) is test/integration/security/sandbox-attacks.test.ts.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { probeSandbox } from '../../executor/sandbox-probe';
import { requireTestEnv } from '../support/env';
import { startQueueHarness, type QueueHarness } from '../support/queue-harness';
import { INSTALL, requireTool } from '../support/required-tool';

// Missing bwrap fails these stories under CI, and skips them loudly elsewhere (required-tool.ts).
const sandbox = probeSandbox('bwrap');
const sandboxed = requireTool({
  tool: 'bwrap',
  probe: sandbox,
  install: INSTALL.bwrap,
  neededBy: 'the attack stories (e2e/attacks.test.ts)',
});
const maybe = sandboxed ? describe : describe.skip;

/** The database URL without its password: what an attacker could learn (the port is no secret). */
function passwordless(url: string): string {
  const u = new URL(url);
  u.password = '';
  return u.toString();
}

function hostProcesses(needle: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(needle) && !l.includes('ps -eo'));
}

let h: QueueHarness | undefined;
afterAll(async () => {
  await h?.close();
});

maybe('attack PRs through the queue', () => {
  const attacks: { name: string; command: (h: QueueHarness) => string }[] = [
    {
      name: "read the worker's environment, the data folder and the git root",
      command: (q) =>
        [
          "if cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -q 'DATABASE_URL\\|TEST_PG_ADMIN_URL'; then exit 1; fi",
          `if ls ${q.fx.root} >/dev/null 2>&1; then exit 1; fi`,
          `if ls ${path.resolve(__dirname, '..', '..', '.data')} >/dev/null 2>&1; then exit 1; fi`,
          'exit 0',
        ].join('\n'),
    },
    {
      name: 'move the target branch past the queue',
      command: (q) =>
        [
          `if git --git-dir=${q.fx.bare} update-ref refs/heads/main HEAD 2>/dev/null; then exit 1; fi`,
          `if git push --quiet ${q.fx.bare} HEAD:refs/heads/main 2>/dev/null; then exit 1; fi`,
          'exit 0',
        ].join('\n'),
    },
    {
      name: 'log in to PostgreSQL and reach Temporal',
      command: () =>
        [
          `if PGCONNECT_TIMEOUT=3 psql '${passwordless(requireTestEnv('TEST_PG_ADMIN_URL'))}' -c 'select 1' >/dev/null 2>&1; then exit 1; fi`,
          // With pasta the run has a network of its own: the host's loopback services do not answer.
          sandbox.kind === 'available' && sandbox.isolatedNetwork.kind === 'available'
            ? `if timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/${requireTestEnv('TEST_TEMPORAL_ADDRESS').split(':')[1]}' 2>/dev/null; then exit 1; fi`
            : 'true',
          'exit 0',
        ].join('\n'),
    },
    {
      name: 'leave a daemon behind',
      command: () => 'setsid sleep 3117 </dev/null >/dev/null 2>&1 &\nexit 0',
    },
  ];

  beforeAll(async () => {
    h = await startQueueHarness({ command: 'true' });
    await h.createQueue({ concurrency: 1, mergeMethod: 'squash' });
  }, 60_000);

  attacks.forEach((attack, i) => {
    test(`a PR that tries to ${attack.name} is tested normally and merges; the attack had no effect`, async () => {
      const q = h!;
      const n = i + 1;
      const before = q.fx.tip('main');
      q.openPr(n, {
        '.railyard/merge-queue.json': JSON.stringify({ version: 1, command: attack.command(q) }),
      });
      await q.submit(n);
      const record = await q.settled(n, 90_000);
      expect({ state: record.state, reason: record.reason }).toEqual({
        state: 'merged',
        reason: 'MERGE_GRAPH_MERGE',
      });
      // main moved once, by the queue, to a commit whose parent is the tip before.
      expect(q.fx.bareGit('rev-parse', 'main~1')).toBe(before);
      expect(hostProcesses('sleep 3117')).toEqual([]);
    }, 120_000);
  });

  test('after the attacks a plain PR merges: the queue goes on', async () => {
    const q = h!;
    const n = attacks.length + 1;
    q.openPr(n, {
      'plain.txt': 'plain\n',
      '.railyard/merge-queue.json': JSON.stringify({ version: 1, command: 'true' }),
    });
    await q.submit(n);
    expect((await q.settled(n, 90_000)).state).toBe('merged');
    expect(q.mainLog()).toHaveLength(attacks.length + 1);
  }, 120_000);
});
