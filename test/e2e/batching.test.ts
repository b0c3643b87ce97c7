/** Batching, bisection, optimistic merging and pending failure depth on the real stack. */
import fs from 'node:fs';
import path from 'node:path';
import { updateQueueUpdate, type PullRequestRecord } from '../../contract';
import { useQueueHarness, type QueueHarness } from '../support/queue-harness';

const newQueue = useQueueHarness();
let h: QueueHarness;

test('a bad PR in a batch is isolated by bisection and the rest merge', async () => {
  h = await newQueue();
  await h.createQueue({
    batch: true,
    batchingMinSize: 4,
    batchingMaxWaitTimeMinutes: 0.05,
    concurrency: 1,
    bisectionConcurrency: 2,
  });
  h.openPr(1, { 'f1.txt': '1\n' });
  h.openPr(2, { 'f2.txt': '2\n' });
  h.openPr(3, { BROKEN: 'yes\n' });
  h.openPr(4, { 'f4.txt': '4\n' });
  for (const n of [1, 2, 3, 4]) await h.submit(n);
  const states = [];
  for (const n of [1, 2, 3, 4]) states.push((await h.settled(n, 120_000)).state);
  expect(states).toEqual(['merged', 'merged', 'failed', 'merged']);
  // Each good PR lands once. Their order is not fixed: on a loaded machine the submits outlast the 3 s
  // batching wait, PR 4 goes in a later batch, and the line goes on while the failed batch is bisected
  // beside it, so PR 4 may land before PRs 1 and 2 are cleared.
  expect([...h.mainLog()].sort()).toEqual(['PR 1 (#1)', 'PR 2 (#2)', 'PR 4 (#4)']);
  const failed = await h.pr(3);
  expect(failed?.timeline.some((t) => t.reason === 'BISECTION_REQUIRED' || t.to === 'pending_failure')).toBe(
    true,
  );
  // The culprit's record names the runs that convicted it: the failed batch first, the deciding run too.
  const convictedBy = failed?.convictedBy ?? [];
  expect(convictedBy.length).toBeGreaterThanOrEqual(2);
  expect(convictedBy).toContain(failed?.timeline.at(-1)?.testRunId);
  expect(failed?.timeline.at(-1)?.convictedBy).toEqual(convictedBy);
}, 180_000);

/**
 * Fails the first run of PR 1's own tree (FLAKY_ONCE without PR 2's f2.txt) and passes afterwards; a
 * run of PR 2 on top of PR 1 never flakes, whichever of the two runs starts first.
 */
const FLAKY =
  'test ! -e BROKEN && if [ -e FLAKY_ONCE ] && [ ! -e f2.txt ] && [ ! -e $GATE/flaked ]; then touch $GATE/flaked; exit 1; fi; sleep 1';

test('optimistic merging: a later passing run carries a flaked PR ahead of it', async () => {
  // The runs wait at the gate until both PRs test: on a loaded machine PR 1's run could flake before
  // PR 2 was submitted, with nothing behind it to carry it.
  h = await newQueue({ command: `while [ ! -e $GATE/go ]; do sleep 0.1; done; ${FLAKY}` });
  await h.createQueue({ concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 1 });
  h.openPr(1, { FLAKY_ONCE: 'x\n' });
  h.openPr(2, { 'f2.txt': '2\n' });
  await h.submit(1);
  await h.submit(2);
  await h.waitFor('both PRs testing', async () => {
    const q = await h.queue();
    return q.enqueued.filter((p) => p.state === 'testing').length === 2;
  });
  fs.writeFileSync(path.join(h.gate, 'go'), '');
  const [one, two] = [await h.settled(1), await h.settled(2)];
  expect([one.state, two.state]).toEqual(['merged', 'merged']);
  expect(fs.existsSync(path.join(h.gate, 'flaked'))).toBe(true);
  expect(one.timeline.map((t) => t.to)).toContain('pending_failure');
  expect(h.mainLog()).toEqual(['PR 1 (#1)', 'PR 2 (#2)']);
}, 120_000);

/** The runs a PR was tested in, oldest first. */
const runsOf = (r: PullRequestRecord) => [
  ...new Set(r.timeline.filter((t) => t.to === 'testing').map((t) => t.testRunId)),
];

test('pending failure depth without optimistic merging: a flaked PR is not blamed at once but after its successor is tested; the successor is retested without it', async () => {
  // As FLAKY, and the run of PR 2 on top of PR 1 waits for $GATE/go: the test decides when it ends.
  h = await newQueue({
    command: `${FLAKY.replace('; sleep 1', '')}; if [ -e FLAKY_ONCE ]; then while [ ! -e $GATE/go ]; do sleep 0.1; done; fi`,
  });
  await h.createQueue({ concurrency: 2, pendingFailureDepth: 1 });
  h.openPr(1, { FLAKY_ONCE: 'x\n' });
  h.openPr(2, { 'f2.txt': '2\n' });
  await h.submit(1);
  await h.submit(2);
  const flaked = await h.waitFor('PR 1 flaked', async () => {
    const r = await h.pr(1);
    return r?.timeline.some((t) => t.to === 'pending_failure') ? r : undefined;
  });
  expect(fs.existsSync(path.join(h.gate, 'flaked'))).toBe(true);
  expect(flaked.state).toBe('pending_failure');

  // Not blamed at once: with depth 1 PR 1 waits for the run built on top of it, which is still testing.
  // (A no-op update is a barrier: the queue has decided on everything before it when it answers.)
  await h.client.workflow
    .getHandle(h.workflowId)
    .executeUpdate(updateQueueUpdate, { args: [{ config: {} }] });
  expect((await h.pr(1))?.state).toBe('pending_failure');
  expect((await h.queue()).enqueued).toMatchObject([
    { pr: 1, state: 'pending_failure' },
    { pr: 2, state: 'testing' },
  ]);

  // The successor's run passes; without optimistic merging that does not forgive PR 1: it is blamed now.
  fs.writeFileSync(path.join(h.gate, 'go'), '');
  const one = await h.settled(1);
  const two = await h.settled(2);
  expect(one).toMatchObject({ state: 'failed', reason: 'TEST_RUN_COMMAND_FAILED' });
  expect(one.timeline.map((t) => t.to)).toEqual([
    'not_ready',
    'pending',
    'testing',
    'pending_failure',
    'failed',
  ]);
  expect(runsOf(one)).toHaveLength(1);
  const [onTopOfOne, withoutOne] = runsOf(two);
  const passedOnTop = two.timeline.find((t) => t.to === 'tests_passed' && t.testRunId === onTopOfOne)!;
  expect(passedOnTop).toBeDefined();
  // Blamed only once its successor's run had ended, not when its own run failed.
  expect(one.timeline.at(-1)!.at).toBeGreaterThanOrEqual(passedOnTop.at);

  // The successor passed on a tree that will never exist: it is retested without PR 1, then merges.
  expect(two.state).toBe('merged');
  expect(withoutOne).toBeDefined();
  expect(withoutOne).not.toBe(onTopOfOne);
  expect(two.timeline.map((t) => [t.to, t.reason])).toContainEqual([
    'pending',
    'PREREQUISITE_MERGE_ITEM_FAILED',
  ]);
  expect(two.verifiedByTestRun).toBe(withoutOne);
  expect(h.mainLog()).toEqual(['PR 2 (#2)']);
}, 120_000);
