/**
 * Long-lived queue behaviour on the real stack: continue-as-new keeps every PR and the continued run
 * goes on merging; retried requests are answered with their first result; a PR pushed to or closed
 * while queued is cancelled with Trunk's reason. With RECORD_HISTORIES=1 the histories of these runs
 * are saved under test/histories for the replay test (the determinism guard): the queue's first run
 * and the run it continued as, a merged PR and its test run, a cancelled PR and its queue.
 */
import fs from 'node:fs';
import path from 'node:path';
import { prWorkflowId, submitUpdate, testRunWorkflowId } from '../../contract';
import { recordHistory } from '../support/histories';
import { useQueueHarness, type QueueHarness } from '../support/queue-harness';

const newQueue = useQueueHarness();
let h: QueueHarness;

test('the queue continues as new under load and loses nothing', async () => {
  h = await newQueue({ command: 'true' });
  await h.createQueue({ concurrency: 2 }, {}, { continueAsNewAfterEvents: 40 });
  const firstRun = (await h.client.workflow.getHandle(h.workflowId).describe()).runId;
  for (const n of [1, 2, 3, 4, 5, 6]) h.openPr(n, { [`f${n}.txt`]: `${n}\n` });
  for (const n of [1, 2, 3, 4, 5, 6]) await h.submit(n);
  for (const n of [1, 2, 3, 4, 5, 6]) expect((await h.settled(n, 90_000)).state).toBe('merged');
  const lastRun = (await h.client.workflow.getHandle(h.workflowId).describe()).runId;
  expect(lastRun).not.toBe(firstRun);
  // The run carried across continue-as-new goes on from its state.
  h.openPr(7, { 'f7.txt': '7\n' });
  await h.submit(7);
  expect((await h.settled(7, 60_000)).state).toBe('merged');
  expect(h.mainLog()).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => `PR ${n} (#${n})`));
  recordHistory('queue-first-run', h.workflowId, firstRun);
  recordHistory('queue-continue-as-new', h.workflowId, lastRun);
  recordHistory('pull-request-merged', prWorkflowId(h.key, 6));
  // The queue names each test-run workflow after itself and the run (contract/ids.ts).
  const testRun = (await h.pr(6))?.verifiedByTestRun;
  if (testRun) recordHistory('test-run', testRunWorkflowId(h.key, testRun));
}, 150_000);

test('a retried submit with the same update id is applied once', async () => {
  h = await newQueue({ command: 'sleep 2' });
  await h.createQueue({ concurrency: 1 });
  h.openPr(1, { 'f1.txt': '1\n' });
  const handle = h.client.workflow.getHandle(h.workflowId);
  const args = [{ pr: 1, priority: null, noBatch: false }] as const;
  const first = await handle.executeUpdate(submitUpdate, { args: [...args], updateId: 'req-1' });
  const again = await handle.executeUpdate(submitUpdate, { args: [...args], updateId: 'req-1' });
  expect(again).toEqual(first);
  expect(first.resubmitted).toBe(false);
  expect((await h.settled(1)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['PR 1 (#1)']);
}, 60_000);

test('a PR pushed to while queued is cancelled with PR_PUSHED_TO; a closed PR with PR_CLOSED', async () => {
  h = await newQueue({ command: 'while [ ! -e $GATE/go ]; do sleep 0.1; done' });
  await h.createQueue({ concurrency: 1 });
  h.openPr(1, { 'f1.txt': '1\n' });
  h.openPr(2, { 'f2.txt': '2\n' });
  h.openPr(3, { 'f3.txt': '3\n' });
  for (const n of [1, 2, 3]) await h.submit(n);
  await h.waitFor('PR 1 testing', async () => (await h.pr(1))?.state === 'testing');
  // New commit on PR 2, PR 3 closed, while they wait.
  h.fx.branchFrom('pr-2b', 'pr-2');
  h.fx.pushPr(2, h.fx.commit('PR 2 again', { 'f2.txt': '2b\n' }));
  h.fx.closePr(3);
  fs.writeFileSync(path.join(h.gate, 'go'), '');
  expect((await h.settled(1)).state).toBe('merged');
  expect(await h.settled(2)).toMatchObject({ state: 'cancelled', reason: 'PR_PUSHED_TO' });
  expect(await h.settled(3)).toMatchObject({ state: 'cancelled', reason: 'PR_CLOSED' });
  expect(h.mainLog()).toEqual(['PR 1 (#1)']);
  recordHistory('pull-request-cancelled', prWorkflowId(h.key, 2));
  recordHistory('queue-cancellations', h.workflowId);
}, 90_000);
