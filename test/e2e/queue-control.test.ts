/** Priorities, cancel, restart, pause and drain, timeouts, direct merge and mode switch on the real stack. */
import fs from 'node:fs';
import path from 'node:path';
import { cancelUpdate, restartUpdate, updateQueueUpdate } from '../../contract';
import { useQueueHarness, type QueueHarness } from '../support/queue-harness';

const newQueue = useQueueHarness();
let h: QueueHarness;

/** Runs wait until `$GATE/go` exists, so a test can hold PRs in `testing`. */
const HELD = 'test ! -e BROKEN && while [ ! -e $GATE/go ]; do sleep 0.1; done';
const release = () => fs.writeFileSync(path.join(h.gate, 'go'), '');
const handle = () => h.client.workflow.getHandle(h.workflowId);
const testing = (n: number) =>
  h.waitFor(`PR #${n} testing`, async () =>
    (await h.queue()).enqueued.find((p) => p.pr === n && p.state === 'testing'),
  );

test('an urgent PR interrupts the running test and merges first', async () => {
  h = await newQueue({ command: HELD });
  await h.createQueue({ concurrency: 1 });
  h.openPr(1, { 'f1.txt': '1\n' });
  h.openPr(2, { 'f2.txt': '2\n' });
  await h.submit(1);
  await testing(1);
  await h.submit(2, { priority: 0 });
  await testing(2);
  release();
  expect((await h.settled(2)).state).toBe('merged');
  const one = await h.settled(1);
  expect(one.state).toBe('merged');
  expect(one.timeline.map((t) => t.reason)).toContain('SKIP_THE_LINE_INTERRUPTED');
  expect(h.mainLog()).toEqual(['PR 2 (#2)', 'PR 1 (#1)']);
}, 120_000);

test('cancelling a PR while it tests restarts the PR behind it, which then merges', async () => {
  h = await newQueue({ command: HELD });
  await h.createQueue({ concurrency: 2 });
  h.openPr(1, { 'f1.txt': '1\n' });
  h.openPr(2, { 'f2.txt': '2\n' });
  await h.submit(1);
  await h.submit(2);
  await testing(2);
  await handle().executeUpdate(cancelUpdate, { args: [{ pr: 1 }] });
  release();
  const one = await h.settled(1);
  expect(one).toMatchObject({ state: 'cancelled', reason: 'USER_REQUESTED' });
  const two = await h.settled(2);
  expect(two.state).toBe('merged');
  expect(two.timeline.map((t) => t.reason)).toContain('PREREQUISITE_MERGE_ITEM_CANCELLED');
  expect(h.mainLog()).toEqual(['PR 2 (#2)']);
}, 120_000);

test('restarting tests restarts the run in place', async () => {
  h = await newQueue({ command: HELD });
  await h.createQueue({ concurrency: 1 });
  h.openPr(1, { 'f1.txt': '1\n' });
  await h.submit(1);
  await testing(1);
  await handle().executeUpdate(restartUpdate, { args: [{ pr: 1 }] });
  release();
  const one = await h.settled(1);
  expect(one.state).toBe('merged');
  expect(one.timeline.map((t) => t.reason)).toContain('TESTS_RESTARTED_BY_API_REQUEST');
}, 120_000);

test('paused: nothing starts; draining with a run in flight: it finishes and merges, nothing new starts; running: the rest merges', async () => {
  h = await newQueue({ command: HELD });
  // Concurrency 2: while running, a PR submitted behind a testing one starts testing on top of it at once.
  await h.createQueue({ concurrency: 2 });
  const setState = async (state?: 'paused' | 'draining' | 'running') =>
    (await handle().executeUpdate(updateQueueUpdate, { args: [{ config: {}, ...(state ? { state } : {}) }] }))
      .state;
  /**
   * The queue's state once it has decided on everything it has heard: an update is applied in a
   * workflow task of its own, after the events before it, and every task ends with the engine's
   * decision (what to start), so the snapshot read after it shows whatever that decision started.
   */
  const decided = async () => {
    await setState();
    return h.queue();
  };

  expect(await setState('paused')).toBe('paused');
  h.openPr(1, { 'f1.txt': '1\n' });
  await h.submit(1);
  const paused = await decided();
  expect(paused.enqueued).toMatchObject([{ pr: 1, state: 'pending' }]);
  expect(paused.testRunsInProgress).toEqual([]);

  expect(await setState('running')).toBe('running');
  await testing(1);
  // The drain starts while PR 1's run is in flight; PR 2 arrives during it.
  expect(await setState('draining')).toBe('draining');
  h.openPr(2, { 'f2.txt': '2\n' });
  await h.submit(2);
  const draining = await decided();
  expect(draining.settings.state).toBe('draining');
  expect(draining.enqueued).toMatchObject([
    { pr: 1, state: 'testing' },
    { pr: 2, state: 'pending' },
  ]);
  expect(draining.testRunsInProgress).toHaveLength(1);

  // The run in flight finishes and its PR merges while the queue drains...
  release();
  const one = await h.settled(1);
  expect(one.state).toBe('merged');
  expect(h.mainLog()).toEqual(['PR 1 (#1)']);
  // ...and nothing new starts: PR 2 waits, untested, with no run in progress.
  await h.waitFor('the queue to see PR 1 merged', async () =>
    (await h.queue()).enqueued.every((p) => p.pr !== 1),
  );
  const drained = await decided();
  expect(drained.settings.state).toBe('draining');
  expect(drained.enqueued).toMatchObject([{ pr: 2, state: 'pending' }]);
  expect(drained.testRunsInProgress).toEqual([]);
  expect((await h.pr(2))?.timeline.map((t) => t.to)).not.toContain('testing');

  expect(await setState('running')).toBe('running');
  expect((await h.settled(2)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['PR 1 (#1)', 'PR 2 (#2)']);
}, 120_000);

test('a run that exceeds the testing timeout fails with TEST_RUN_TIMEOUT', async () => {
  h = await newQueue({ command: 'sleep 60' });
  await h.createQueue({ concurrency: 1, testingTimeoutMinutes: 0.05 });
  h.openPr(1, { 'f1.txt': '1\n' });
  await h.submit(1);
  const one = await h.settled(1, 60_000);
  expect(one).toMatchObject({ state: 'failed', reason: 'TEST_RUN_TIMEOUT' });
  expect(h.mainLog()).toEqual([]);
}, 90_000);

test('direct merge: a PR based on the tip with an idle queue merges without a test run', async () => {
  h = await newQueue({ command: 'exit 1' });
  await h.createQueue({ directMergeMode: 'always' });
  h.openPr(1, { 'f1.txt': '1\n' });
  await h.submit(1);
  const one = await h.settled(1);
  expect(one).toMatchObject({ state: 'merged', reason: 'MERGE_GRAPH_DIRECT_MERGE' });
  expect(one.timeline.map((t) => t.to)).not.toContain('testing');
  expect(h.mainLog()).toEqual(['PR 1 (#1)']);
}, 60_000);

test('switching modes with a PR in flight goes through switching_modes', async () => {
  h = await newQueue({ command: HELD });
  await h.createQueue({ concurrency: 1 });
  h.openPr(1, { 'f1.txt': '1\n' });
  await h.submit(1);
  await testing(1);
  const during = await handle().executeUpdate(updateQueueUpdate, {
    args: [{ config: { mode: 'parallel' } }],
  });
  expect(during.state).toBe('switching_modes');
  release();
  expect((await h.settled(1)).state).toBe('merged');
  const after = await h.waitFor('mode switched', async () => {
    const q = await h.queue();
    return q.settings.state === 'running' && q.settings.mode === 'parallel' ? q : undefined;
  });
  expect(after.settings.mode).toBe('parallel');
}, 120_000);
