/**
 * The queue's update protocol (ADR 0005): every update completes in the workflow task that accepted it,
 * so no update is ever accepted-but-unfinished when a task is lost. Checked on the real history of a
 * queue that received every kind of update, plus the admission outcomes a caller waits for.
 */
import { temporal } from '@temporalio/proto';
import {
  cancelUpdate,
  getAdmissionsQuery,
  restartUpdate,
  setImpactedTargetsUpdate,
  submitUpdate,
  updateQueueUpdate,
} from '../../contract';
import { useQueueHarness, type QueueHarness } from '../support/queue-harness';

const EventType = temporal.api.enums.v1.EventType;

const newQueue = useQueueHarness();
let h: QueueHarness;

test('every update of the queue completes in the workflow task that accepted it', async () => {
  h = await newQueue({ command: 'while [ ! -e $GATE/go ]; do sleep 0.1; done' });
  await h.createQueue({ concurrency: 1 });
  const queue = h.client.workflow.getHandle(h.workflowId);
  for (const n of [1, 2, 3]) h.openPr(n, { [`f${n}.txt`]: `${n}\n` });
  for (const n of [1, 2, 3]) await h.submit(n);
  await h.submit(2, { priority: 0 }); // resubmission: priority changed in place
  await queue.executeUpdate(setImpactedTargetsUpdate, { args: [{ pr: 3, headSha: 'x', targets: ['a'] }] });
  // PR 2 is urgent now, so it tests first.
  await h.waitFor('PR 2 testing', async () => (await h.pr(2))?.state === 'testing');
  await queue.executeUpdate(restartUpdate, { args: [{ pr: 2 }] });
  await queue.executeUpdate(cancelUpdate, { args: [{ pr: 3 }] });
  await queue.executeUpdate(updateQueueUpdate, { args: [{ config: { concurrency: 2 } }] });
  // Two submits of one PR in one breath: one submission, answered to both.
  h.openPr(4, { 'f4.txt': '4\n' });
  const [a, b] = await Promise.all([
    queue.executeUpdate(submitUpdate, { args: [{ pr: 4, priority: null, noBatch: false }] }),
    queue.executeUpdate(submitUpdate, { args: [{ pr: 4, priority: 10, noBatch: false }] }),
  ]);
  expect(a.submissionId).toBe(b.submissionId);
  expect([a.resubmitted, b.resubmitted].sort()).toEqual([false, true]);

  const events = (await queue.fetchHistory()).events ?? [];
  const accepted = new Map<string, number>();
  const tasksBetween: Record<string, number> = {};
  let taskStarts = 0;
  for (const e of events) {
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) taskStarts++;
    const acceptedId = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId;
    if (acceptedId) accepted.set(acceptedId, taskStarts);
    const completedId = e.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId;
    if (completedId) tasksBetween[completedId] = taskStarts - (accepted.get(completedId) ?? -1);
  }
  expect(accepted.size).toBeGreaterThanOrEqual(9);
  expect(Object.keys(tasksBetween).sort()).toEqual([...accepted.keys()].sort());
  expect(Object.values(tasksBetween).every((n) => n === 0)).toBe(true);

  // And the admission that followed each first submission settled.
  const states = await queue.query(getAdmissionsQuery, [a.submissionId]);
  expect(states[a.submissionId]?.state).toMatch(/pending|settled/);
  await h.waitFor('PR 4 admitted', async () => (await h.pr(4))?.id === a.submissionId);
}, 90_000);

test('a submit of a PR the host does not know is rejected by its admission, and remembered', async () => {
  h = await newQueue();
  await h.createQueue({ concurrency: 1 });
  const queue = h.client.workflow.getHandle(h.workflowId);
  const { submissionId } = await queue.executeUpdate(submitUpdate, {
    args: [{ pr: 99, priority: null, noBatch: false }],
    updateId: 'submit-99',
  });
  const outcome = await h.waitFor('the admission of #99', async () => {
    const state = (await queue.query(getAdmissionsQuery, [submissionId]))[submissionId];
    return state?.state === 'pending' ? undefined : state;
  });
  expect(outcome).toEqual({
    state: 'rejected',
    rejection: 'not_found',
    message: expect.stringMatching(/^Pull request #99 was not found in /) as unknown,
  });
  // A retry with the same update id gets the same submission, whose rejection is remembered.
  const again = await queue.executeUpdate(submitUpdate, {
    args: [{ pr: 99, priority: null, noBatch: false }],
    updateId: 'submit-99',
  });
  expect(again.submissionId).toBe(submissionId);
  expect((await queue.query(getAdmissionsQuery, [submissionId]))[submissionId]).toEqual(outcome);
  expect((await h.queue()).inQueue).toBe(0);
}, 60_000);
