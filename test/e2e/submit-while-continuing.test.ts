/**
 * A submit that arrives while the queue continues as new is answered at once and carried to the next
 * run, which reads it (ADR 0027). Before, it was refused as `continuing` until the continue-as-new
 * ended, and on a saturated machine that outlasted the queue client's busy budget (stop 45's
 * bench:continuous: 85 of 1,200 submits failed so).
 *
 * Without relying on timing: the queue runs on a task queue of this test whose worker holds PR 1's
 * read at a gate, and is due to continue as new at its next task (the threshold is the length of an
 * idle first run, measured on a twin queue). So PR 1's submit starts a read and the queue closes,
 * waiting for it; PR 2 is submitted then. Its answer must come while the first run still waits, its
 * read must not start in that run, and once the gate opens both PRs are admitted, PR 2 read by the next
 * run.
 */
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { getAdmissionsQuery, getQueueQuery, submitUpdate } from '../../contract';
import { settledHistoryLength, useTaskQueueStories } from '../support/task-queue-worker';

const EventType = temporal.api.enums.v1.EventType;

const stories = useTaskQueueStories();

test('a submit while the queue continues as new is answered at once, and the next run reads and admits it', async () => {
  const taskQueue = `continuing-${randomUUID()}`;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const reads: number[] = [];
  const d = stories.deployment();
  const worker = await stories.startWorker({
    taskQueue,
    identity: 'continuing',
    wrap: (real) => ({
      ...real,
      readPullRequest: async (input) => {
        reads.push(input.pr);
        if (input.pr === 1) await gate;
        return real.readPullRequest(input);
      },
    }),
  });
  const h = await d.newQueue({ command: 'true' });
  const twin = await d.newQueue({ command: 'true' });
  const start = (key: typeof h.key, continueAsNewAfterEvents: number) =>
    stories.startQueue(taskQueue, key, continueAsNewAfterEvents);
  try {
    // An idle first run's length, from a twin never due: the queue is due at its next task after it.
    await start(twin.key, 10_000);
    const idle = await settledHistoryLength(d, twin.workflowId);
    await start(h.key, idle);
    expect(await settledHistoryLength(d, h.workflowId)).toBe(idle);
    const queue = d.client.workflow.getHandle(h.workflowId);
    const firstRun = (await queue.describe()).runId;
    h.openPr(1, { 'one.txt': '1\n' });
    h.openPr(2, { 'two.txt': '2\n' });

    const submit = (pr: number) =>
      queue.executeUpdate(submitUpdate, {
        args: [{ pr, priority: null, noBatch: false }],
        updateId: randomUUID(),
      });
    // PR 1's read starts and is held: the queue, due, closes and waits for it.
    const one = await submit(1);
    await h.waitFor('PR 1 read', () => Promise.resolve(reads.includes(1)));
    const two = await submit(2);
    expect(two.resubmitted).toBe(false);
    expect(await queue.query(getAdmissionsQuery, [one.submissionId, two.submissionId])).toEqual({
      [one.submissionId]: { state: 'pending' },
      [two.submissionId]: { state: 'pending' },
    });
    // Answered while the first run still waits for PR 1's read, without starting PR 2's.
    expect((await queue.describe()).runId).toBe(firstRun);
    expect(reads).toEqual([1]);

    release();
    // Both admitted: the next run read PR 2 and queued it after PR 1. (Their test runs need an
    // executor for this task queue, which this story has none of: admission is what it checks.)
    await h.waitFor('both PRs in the queue', async () => {
      const { enqueued } = await queue.query(getQueueQuery);
      return enqueued.map((e) => e.pr).join(',') === '1,2';
    });
    // Settled once each PR's first transition reached its workflow (admission.ts).
    await h.waitFor('both submissions settled', async () => {
      const states = await queue.query(getAdmissionsQuery, [one.submissionId, two.submissionId]);
      return Object.values(states).every((s) => s.state === 'settled');
    });
    expect(reads).toEqual([1, 2]);
    // PR 2's read ran in a later run than the first: the first run scheduled one read, PR 1's.
    const first = await d.client.workflow.getHandle(h.workflowId, firstRun).fetchHistory();
    const readsScheduled = (first.events ?? []).filter(
      (e) =>
        e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        e.activityTaskScheduledEventAttributes?.activityType?.name === 'readPullRequest',
    );
    expect(readsScheduled).toHaveLength(1);
    expect((await queue.describe()).runId).not.toBe(firstRun);
  } finally {
    release();
    await worker.stop();
    await h.close();
    await twin.close();
  }
}, 120_000);
