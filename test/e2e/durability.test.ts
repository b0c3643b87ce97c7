/**
 * Long-lived queue behaviour on the real stack: continue-as-new keeps every PR and answers retried
 * requests with their first result; a PR pushed to or closed while queued is cancelled with Trunk's
 * reason. With RECORD_HISTORIES=1 the histories of these runs are saved under test/histories for the
 * replay test (the determinism guard).
 */
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { requireTestEnv } from '../support/env';
import { prWorkflowId } from '../../workflows/ids';
import { submitUpdate } from '../../workflows/queue/messages';
import { startQueueHarness, type QueueHarness } from '../support/queue-harness';

let h: QueueHarness;
afterEach(async () => {
  await h?.close();
});

function record(name: string, workflowId: string): void {
  if (process.env.RECORD_HISTORIES !== '1') return;
  // The CLI's JSON is the documented input of historyFromJSON (protobufjs objects do not survive jest realms).
  const json = execFileSync(
    requireTestEnv('TEST_TEMPORAL_CLI'),
    [
      'workflow',
      'show',
      '--workflow-id',
      workflowId,
      '--output',
      'json',
      '--address',
      requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const file = path.resolve(__dirname, '..', 'histories', `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ workflowId, history: JSON.parse(json) as unknown }));
}

test('the queue continues as new under load and loses nothing', async () => {
  h = await startQueueHarness({ command: 'true' });
  await h.createQueue({ concurrency: 2 }, {}, { continueAsNewAfterEvents: 40 });
  const firstRun = (await h.client.workflow.getHandle(h.workflowId).describe()).runId;
  for (const n of [1, 2, 3, 4, 5, 6]) h.openPr(n, { [`f${n}.txt`]: `${n}\n` });
  for (const n of [1, 2, 3, 4, 5, 6]) await h.submit(n);
  for (const n of [1, 2, 3, 4, 5, 6]) expect((await h.settled(n, 90_000)).state).toBe('merged');
  const lastRun = (await h.client.workflow.getHandle(h.workflowId).describe()).runId;
  expect(lastRun).not.toBe(firstRun);
  expect(h.mainLog()).toEqual([1, 2, 3, 4, 5, 6].map((n) => `PR ${n} (#${n})`));
  record('queue-continue-as-new', h.workflowId);
  record('pull-request-merged', prWorkflowId(h.key, 6));
}, 150_000);

test('a retried submit with the same update id is applied once', async () => {
  h = await startQueueHarness({ command: 'sleep 2' });
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
  h = await startQueueHarness({ command: 'while [ ! -e $GATE/go ]; do sleep 0.1; done' });
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
  record('pull-request-cancelled', prWorkflowId(h.key, 2));
}, 90_000);
