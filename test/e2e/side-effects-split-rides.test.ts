/**
 * Builds take their own run's moves to `testing` along (SPLIT_RIDES_PATCH). First story: builds of two
 * runs that start from one pump each take their own run's moves to `testing` along
 * (SPLIT_RIDES_PATCH, workflows/queue/side-effects.ts), on a real queue workflow, worker and Temporal
 * server: the queue, paused with PRs 1 and 2 admitted, is resumed, so one decision starts both runs
 * (concurrency 2). The first build carries the effects due and the append; the second only PR 2's
 * notice. Each build delivers its PR's notice with the commit it built, so no details refresh is sent:
 * none in the queue's calls, no `prDetails` signal in either PR's workflow.
 *
 * Second story: PR 2's build starts while PR 1's build, with the effects due aboard, is held at a gate
 * (the call in flight): PR 2's build still takes PR 2's notice along and delivers it with its commit.
 *
 * The queue runs on a task queue of this test whose worker wraps `buildTestRun`; no executor serves
 * that task queue, so the runs never end: the builds are what it checks.
 */
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Activities } from '../../activities';
import type { BuildRunResult } from '../../activities/merge-queue/types';
import type { SideEffect } from '../../activities/side-effects/types';
import {
  getAdmissionsQuery,
  getPullRequestQuery,
  prWorkflowId,
  submitUpdate,
  updateQueueUpdate,
} from '../../contract';
import { useTaskQueueStories } from '../support/task-queue-worker';

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const stories = useTaskQueueStories();

interface Build {
  runId: string;
  effects: SideEffect[];
  result?: BuildRunResult;
}

/** Every effect the queue's history sent, in calls of their own or aboard git work. */
function sentEffects(events: HistoryEvent[]): SideEffect[] {
  return events
    .filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    .flatMap((e) => {
      const input = defaultPayloadConverter.fromPayload<{
        effects?: SideEffect[];
        sideEffects?: SideEffect[];
      }>(e.activityTaskScheduledEventAttributes!.input!.payloads![0]!);
      return [...(input.effects ?? []), ...(input.sideEffects ?? [])];
    });
}

const notices = (effects: SideEffect[]): Array<[number, string]> =>
  effects.flatMap((e) =>
    e.kind === 'notifyPullRequest'
      ? [[e.workflow.prNumber, e.notices.at(-1)!.transition.to] as [number, string]]
      : [],
  );

/**
 * A worker on a new task queue of this test whose `buildTestRun` records what each build carried and
 * answered; the first build waits for `holdFirst` when given. Also a queue (concurrency 2) on it and a
 * submit of a new PR.
 */
async function recordedQueue(identity: string, holdFirst?: Promise<void>) {
  const taskQueue = `split-rides-${randomUUID()}`;
  const builds: Build[] = [];
  const d = stories.deployment();
  const worker = await stories.startWorker({
    taskQueue,
    identity,
    wrap: (real): Activities => ({
      ...real,
      buildTestRun: async (input) => {
        const build: Build = { runId: input.runId, effects: input.sideEffects ?? [] };
        builds.push(build);
        if (builds.length === 1 && holdFirst) await holdFirst;
        const r = await real.buildTestRun(input);
        if (r.kind) build.result = r;
        return r;
      },
    }),
  });
  const h = await d.newQueue({ command: 'true' });
  await stories.startQueue(taskQueue, h.key, 10_000, { concurrency: 2 }).catch(async (err: unknown) => {
    await worker.stop();
    await h.close();
    throw err;
  });
  const queue = d.client.workflow.getHandle(h.workflowId);
  const submit = async (pr: number): Promise<string> => {
    h.openPr(pr, { [`f${pr}.txt`]: `${pr}\n` });
    const { submissionId } = await queue.executeUpdate(submitUpdate, {
      args: [{ pr, priority: null, noBatch: false }],
      updateId: randomUUID(),
    });
    return submissionId;
  };
  const close = async () => {
    await worker.stop();
    await h.close();
  };
  return { d, h, queue, builds, submit, close };
}

test('two builds started together each deliver their own PR testing notice with its commit: no refresh', async () => {
  const { d, h, queue, builds, submit, close } = await recordedQueue('split-rides');
  try {
    const setState = (state: 'paused' | 'running') =>
      queue.executeUpdate(updateQueueUpdate, { args: [{ config: {}, state }] });
    await setState('paused');
    const submissions = [await submit(1), await submit(2)];
    await h.waitFor('both admitted', async () => {
      const states = await queue.query(getAdmissionsQuery, submissions);
      return submissions.every((s) => states[s]?.state === 'settled');
    });
    expect(builds).toEqual([]);
    await setState('running');
    await h.waitFor('both built', () => Promise.resolve(builds.filter((b) => b.result).length === 2));
    const records = await h.waitFor('both records name their commit', async () => {
      const rs = await Promise.all(
        [1, 2].map((pr) => d.client.workflow.getHandle(prWorkflowId(h.key, pr)).query(getPullRequestQuery)),
      );
      return rs.every((r) => r.state === 'testing' && r.testedOn) ? rs : undefined;
    });

    // One pump started both: the first carried the append, the second only its own PR's notice.
    const [first, second] = builds;
    expect(first!.effects.some((e) => e.kind === 'appendTransitions')).toBe(true);
    expect(second!.effects.map((e) => e.kind)).toEqual(['notifyPullRequest']);
    const prOf = (b: Build) => notices(b.effects).find(([, to]) => to === 'testing')![0];
    expect(notices(second!.effects)).toEqual([[prOf(second!), 'testing']]);
    expect(new Set([prOf(first!), prOf(second!)])).toEqual(new Set([1, 2]));
    for (const b of builds) {
      const built = b.result as Extract<BuildRunResult, { kind: 'built' }>;
      expect(built.testedOnNoticed).toEqual([prOf(b)]);
      const record = records[prOf(b) - 1]!;
      expect(record.testedOn).toEqual({ branch: built.branchName, sha: built.headSha });
    }
    // No refresh went anywhere, and neither PR's workflow took a details signal.
    const history = (await queue.fetchHistory()).events ?? [];
    expect(sentEffects(history).filter((e) => e.kind === 'refreshPullRequestDetails')).toEqual([]);
    for (const pr of [1, 2]) {
      const prHistory =
        (await d.client.workflow.getHandle(prWorkflowId(h.key, pr)).fetchHistory()).events ?? [];
      const signals = prHistory
        .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
        .map((e) => e.workflowExecutionSignaledEventAttributes?.signalName);
      expect(signals).not.toContain('prDetails');
    }
  } finally {
    await close();
  }
}, 120_000);

test("a build started while another build's ride is in flight takes its own PR's testing notice along", async () => {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  // PR 1's build (the first) waits until PR 2's build has started beside it.
  const { d, h, queue, builds, submit, close } = await recordedQueue('split-rides-in-flight', gate);
  try {
    await submit(1);
    await h.waitFor("PR 1's build started", () => Promise.resolve(builds.length === 1));
    await submit(2);
    await h.waitFor("PR 2's build started", () => Promise.resolve(builds.length === 2));
    open();
    await h.waitFor('both built', () => Promise.resolve(builds.filter((b) => b.result).length === 2));
    const second = builds[1]!;
    expect(notices(second.effects)).toEqual([[2, 'testing']]);
    const built = second.result as Extract<BuildRunResult, { kind: 'built' }>;
    expect(built.testedOnNoticed).toEqual([2]);
    const pr2 = d.client.workflow.getHandle(prWorkflowId(h.key, 2));
    const record = await h.waitFor('PR 2 names its commit', async () => {
      const r = await pr2.query(getPullRequestQuery);
      return r.testedOn ? r : undefined;
    });
    expect(record.testedOn).toEqual({ branch: built.branchName, sha: built.headSha });
    const history = (await queue.fetchHistory()).events ?? [];
    expect(
      sentEffects(history).filter((e) => e.kind === 'refreshPullRequestDetails' && e.workflow.prNumber === 2),
    ).toEqual([]);
  } finally {
    open();
    await close();
  }
}, 120_000);
