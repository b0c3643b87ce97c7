/**
 * The queue's side effects ride along with its git activities (ADR 0028), on a real queue workflow,
 * worker and Temporal server: the effects due when the queue starts PR 1's build go in that build's
 * input instead of a `performSideEffects` call of their own, and are performed (PR 1's first
 * transitions reach its workflow). When the build's git work fails with effects aboard, the activity
 * still completes, with what the effects did: those effects are not sent again, and the build is started
 * again by itself, which succeeds.
 *
 * The queue runs on a task queue of this test whose worker wraps `buildTestRun`. Its test run needs an
 * executor for that task queue, which this story has none of: the build is what it checks.
 */
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Activities } from '../../activities';
import type { SideEffect } from '../../activities/side-effects/types';
import { getAdmissionsQuery, getPullRequestQuery, prWorkflowId, submitUpdate } from '../../contract';
import { createPrRecordStore } from '../../events/store/pr-records';
import { useTaskQueueStories } from '../support/task-queue-worker';

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const stories = useTaskQueueStories();

interface Build {
  effects: SideEffect[] | undefined;
  outcome?: string;
  result?: unknown;
}

/** The inputs of the activities of one kind the queue's history scheduled, decoded. */
function scheduled<T>(events: HistoryEvent[], name: string): T[] {
  return events
    .filter(
      (e) =>
        e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        e.activityTaskScheduledEventAttributes?.activityType?.name === name,
    )
    .map((e) =>
      defaultPayloadConverter.fromPayload<T>(e.activityTaskScheduledEventAttributes!.input!.payloads![0]!),
    );
}

/** An effect's key without the call's numbering (workflows/queue/side-effects.ts). */
const bare = (key: string) => key.slice(key.indexOf(':') + 1);

async function story(failFirstRide: boolean) {
  const taskQueue = `ride-along-${randomUUID()}`;
  const builds: Build[] = [];
  const d = stories.deployment();
  const worker = await stories.startWorker({
    taskQueue,
    identity: 'ride-along',
    wrap: (real): Activities => ({
      ...real,
      buildTestRun: async (input) => {
        const build: Build = { effects: input.sideEffects };
        builds.push(build);
        if (failFirstRide && input.sideEffects && builds.length === 1) {
          // What riding() answers when the git work fails: the effects done, the git work not.
          build.outcome = 'rideFailed';
          return {
            rideFailed: 'planted: the git host refused the build',
            sideEffects: await real.performSideEffects({ effects: input.sideEffects }),
          };
        }
        const r = await real.buildTestRun(input);
        build.outcome = r.kind ?? 'rideFailed';
        build.result = r;
        return r;
      },
    }),
  });
  const h = await d.newQueue({ command: 'true' });
  try {
    await stories.startQueue(taskQueue, h.key, 10_000);
    const queue = d.client.workflow.getHandle(h.workflowId);
    h.openPr(1, { 'one.txt': '1\n' });
    const { submissionId } = await queue.executeUpdate(submitUpdate, {
      args: [{ pr: 1, priority: null, noBatch: false }],
      updateId: randomUUID(),
    });
    await h.waitFor('PR 1 built', () => Promise.resolve(builds.some((b) => b.outcome === 'built')));
    // Settled once PR 1's first transition reached its workflow: the effects aboard were performed.
    await h.waitFor('PR 1 settled', async () => {
      const states = await queue.query(getAdmissionsQuery, [submissionId]);
      return states[submissionId]?.state === 'settled';
    });
    const history = (await queue.fetchHistory()).events ?? [];
    const pr = d.client.workflow.getHandle(prWorkflowId(h.key, 1));
    const record = await pr.query(getPullRequestQuery);
    const prHistory = (await pr.fetchHistory()).events ?? [];
    const projected = (await createPrRecordStore(d.pool).list(h.key, { take: 10 })).records;
    return { builds, history, submissionId, record, prHistory, projected };
  } finally {
    await worker.stop();
    await h.close();
  }
}

test('the effects due when a build starts ride along with it and are performed', async () => {
  const { builds, history, submissionId } = await story(false);
  expect(builds).toHaveLength(1);
  const aboard = builds[0]!.effects ?? [];
  // PR 1's admission: its transitions for the event log and its notices for its workflow.
  expect(aboard.map((e) => e.kind)).toEqual(
    expect.arrayContaining(['appendTransitions', 'notifyPullRequest']),
  );
  expect(aboard.some((e) => e.kind === 'notifyPullRequest' && e.workflow.submissionId === submissionId)).toBe(
    true,
  );
  // No call of their own carried them.
  const sentAlone = scheduled<{ effects: SideEffect[] }>(history, 'performSideEffects').flatMap((c) =>
    c.effects.map((e) => bare(e.key)),
  );
  for (const e of aboard) expect(sentAlone).not.toContain(bare(e.key));
}, 120_000);

test('a build whose git work fails with effects aboard is started again alone; its effects are not sent again', async () => {
  const { builds, history } = await story(true);
  expect(builds.map((b) => [b.effects !== undefined, b.outcome])).toEqual([
    [true, 'rideFailed'],
    [false, 'built'],
  ]);
  const inputs = scheduled<{ sideEffects?: SideEffect[] }>(history, 'buildTestRun');
  expect(inputs.map((i) => i.sideEffects !== undefined)).toEqual([true, false]);
  const aboard = builds[0]!.effects!.map((e) => bare(e.key));
  const sentAgain = [
    ...scheduled<{ effects: SideEffect[] }>(history, 'performSideEffects').flatMap((c) => c.effects),
    ...scheduled<{ sideEffects?: SideEffect[] }>(history, 'readPullRequest').flatMap(
      (c) => c.sideEffects ?? [],
    ),
    ...inputs.slice(1).flatMap((c) => c.sideEffects ?? []),
  ].map((e) => bare(e.key));
  for (const key of aboard) expect(sentAgain).not.toContain(key);
}, 120_000);

test("the build delivers PR 1's testing notice after building, with the commit it built: no details refresh follows", async () => {
  const { builds, history, submissionId, record, prHistory, projected } = await story(false);
  const notice = builds[0]!.effects!.find((e) => e.kind === 'notifyPullRequest' && e.workflow.prNumber === 1);
  expect(notice?.kind === 'notifyPullRequest' && notice.notices.at(-1)!.transition.to).toBe('testing');
  const built = builds[0]!.result as {
    kind: 'built';
    branchName: string;
    headSha: string;
    testedOnNoticed?: number[];
  };
  expect(built.kind).toBe('built');
  expect(built.testedOnNoticed).toEqual([1]);
  const testedOn = { branch: built.branchName, sha: built.headSha };
  // The record knows it from the notice itself, in the PR workflow and in the read projection.
  expect(record.state).toBe('testing');
  expect(record.testedOn).toEqual(testedOn);
  expect(projected.find((r) => r.id === submissionId)?.testedOn).toEqual(testedOn);
  // No refresh was sent: none in a call of the queue, no details signal in PR 1's workflow.
  const refreshes = scheduled<{ effects: SideEffect[] }>(history, 'performSideEffects')
    .flatMap((c) => c.effects)
    .filter((e) => e.kind === 'refreshPullRequestDetails');
  expect(refreshes).toEqual([]);
  const signals = prHistory
    .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
    .map((e) => e.workflowExecutionSignaledEventAttributes?.signalName);
  expect(signals).not.toContain('prDetails');
}, 120_000);
