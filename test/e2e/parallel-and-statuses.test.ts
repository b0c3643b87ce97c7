/** Parallel lanes from impacted targets, and the `statuses` runner, on the real stack. */
import fs from 'node:fs';
import path from 'node:path';
import { testBranchName } from '../../git/names';
import { commitStatusSignal, getTestRunQuery, setImpactedTargetsUpdate } from '../../contract';
import { useQueueHarness, type QueueHarness } from '../support/queue-harness';

const newQueue = useQueueHarness();
let h: QueueHarness;

const handle = () => h.client.workflow.getHandle(h.workflowId);

test('parallel mode: disjoint PRs test independently, an overlapping PR on top of both, ALL on everything, [] alone', async () => {
  // Runs wait at the gate until all five PRs are in with their targets: on a loaded machine PR 1 could
  // otherwise merge before PR 3 is built (then built on main, with PR 2 alone ahead of it).
  h = await newQueue({ command: 'while [ ! -e "$GATE/go" ]; do sleep 0.1; done' });
  await h.createQueue({ mode: 'parallel', concurrency: 5 });
  const shas: Record<number, string> = {};
  for (const n of [1, 2, 3, 4, 5]) shas[n] = h.openPr(n, { [`f${n}.txt`]: `${n}\n` });
  const targets: Record<number, string[] | 'ALL'> = {
    1: ['frontend'],
    2: ['backend'],
    3: ['frontend', 'backend'],
    4: 'ALL',
    5: [],
  };
  for (const n of [1, 2, 3, 4, 5]) {
    await h.submit(n);
    await handle().executeUpdate(setImpactedTargetsUpdate, {
      args: [{ pr: n, headSha: shas[n]!, targets: targets[n]! }],
    });
  }
  const runOf = async (n: number) => {
    const q = await h.queue();
    const pr = q.enqueued.find((p) => p.pr === n);
    return pr?.state === 'testing' ? pr : undefined;
  };
  await h.waitFor('PR 3 testing', () => runOf(3));
  fs.writeFileSync(path.join(h.gate, 'go'), '');
  for (const n of [1, 2, 3, 4, 5]) expect((await h.settled(n, 90_000)).state).toBe('merged');
  const three = await h.pr(3);
  const runId = three?.timeline.find((t) => t.to === 'testing')?.testRunId;
  const details = await handle().query(getTestRunQuery, runId!);
  expect(details?.dependentPrs.sort()).toEqual([1, 2]);
  expect(details?.testBranch).toBe(testBranchName(3, runId!));
  expect(h.mainLog().sort()).toEqual(['PR 1 (#1)', 'PR 2 (#2)', 'PR 3 (#3)', 'PR 4 (#4)', 'PR 5 (#5)']);
}, 150_000);

test('parallel mode: a PR without impacted targets for its head stays not_ready', async () => {
  h = await newQueue();
  await h.createQueue({ mode: 'parallel' });
  h.openPr(1, { 'f1.txt': '1\n' });
  await h.submit(1);
  await new Promise((r) => setTimeout(r, 1_500));
  expect((await h.queue()).enqueued).toEqual([]);
  expect((await h.pr(1))?.state).toBe('not_ready');
}, 60_000);

test('statuses runner: the run passes when every required status succeeded, fails on a failed one', async () => {
  h = await newQueue();
  await h.createQueue({ concurrency: 1 }, { requiredStatuses: ['ci/test', 'ci/lint'] });
  h.openPr(1, { 'f1.txt': '1\n' });
  h.openPr(2, { 'f2.txt': '2\n' });
  await h.submit(1);
  const report = async (n: number, context: string, state: 'success' | 'failure' | 'pending') => {
    const record = await h.waitFor(`PR #${n} testing`, async () => {
      const r = await h.pr(n);
      return r?.state === 'testing' ? r : undefined;
    });
    const runId = record.timeline.at(-1)!.testRunId!;
    const details = await h.waitFor('run built', async () => {
      const d = await handle().query(getTestRunQuery, runId);
      return d?.testBranchSha ? d : undefined;
    });
    expect(details.requiredStatuses).toEqual(['ci/test', 'ci/lint']);
    await handle().signal(commitStatusSignal, {
      sha: details.testBranchSha!,
      context,
      state,
      url: null,
      description: null,
    });
  };
  await report(1, 'ci/test', 'success');
  await report(1, 'ci/other', 'failure'); // not required: ignored
  await report(1, 'ci/lint', 'success');
  expect((await h.settled(1)).state).toBe('merged');
  await h.submit(2);
  await report(2, 'ci/test', 'failure');
  expect(await h.settled(2)).toMatchObject({ state: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
  expect(h.mainLog()).toEqual(['PR 1 (#1)']);
}, 120_000);
