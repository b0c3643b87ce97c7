/**
 * Where one serial PR's time goes, step by step, read from the event times of its histories (the
 * queue's, its test run's, its own): the plain loop does the same git work in about 160 ms, the queue
 * takes about a second, and this says which steps hold the difference. Measured only for the serial
 * PRs: one at a time, so the queue's events between a submit and its PR's end are that PR's.
 *
 * Rule: a step is the time between two events Temporal recorded (its clock, not the bench's); a PR
 * whose histories lack one of them (a continue-as-new in between, say) adds nothing to that step.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { prWorkflowId, testRunWorkflowId, type QueueKey } from '../../contract';
import { percentile } from './stats';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const { EventType } = temporal.api.enums.v1;

export const SERIAL_STEPS = [
  'submit → read started',
  'read (activity)',
  'read → build started',
  'build (activity, with the effects aboard)',
  'test run: start → executor job (slot and content)',
  'executor job (activity)',
  'result → queue signalled',
  'queue signalled → landing started',
  'landing (activity)',
  'landed → merged notice delivered',
] as const;
export type SerialStep = (typeof SERIAL_STEPS)[number];

const ms = (e: HistoryEvent | undefined): number | undefined =>
  e?.eventTime ? Number(e.eventTime.seconds) * 1000 + Math.round((e.eventTime.nanos ?? 0) / 1e6) : undefined;
const is = (e: HistoryEvent, type: temporal.api.enums.v1.EventType) => Number(e.eventType) === Number(type);

/** The first activity `name` scheduled at or after `from`, and its completion. */
function activity(events: HistoryEvent[], name: string, from: number) {
  const scheduled = events.find(
    (e) =>
      is(e, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) &&
      e.activityTaskScheduledEventAttributes?.activityType?.name === name &&
      (ms(e) ?? 0) >= from,
  );
  const completed = events.find(
    (e) =>
      is(e, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) &&
      String(e.activityTaskCompletedEventAttributes?.scheduledEventId) === String(scheduled?.eventId),
  );
  return { scheduled: ms(scheduled), completed: ms(completed) };
}

const signalled = (events: HistoryEvent[], name: string, from: number) =>
  events
    .filter(
      (e) =>
        is(e, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED) &&
        e.workflowExecutionSignaledEventAttributes?.signalName === name &&
        (ms(e) ?? 0) >= from,
    )
    .map((e) => ms(e)!);

/** The steps of serial PR `pr`, submitted at `t0` and tested in run `runId`, in ms. */
export async function serialSteps(
  client: Client,
  key: QueueKey,
  queueWorkflowId: string,
  pr: number,
  runId: string,
  t0: number,
): Promise<Partial<Record<SerialStep, number>>> {
  const history = async (id: string) => (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const [queue, run, own] = await Promise.all([
    history(queueWorkflowId),
    history(testRunWorkflowId(key, runId)),
    history(prWorkflowId(key, pr)),
  ]);
  const read = activity(queue, 'readPullRequest', t0);
  const build = activity(queue, 'buildTestRun', read.completed ?? t0);
  const job = activity(run, 'executeTestRun', 0);
  const started = ms(run.find((e) => is(e, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)));
  const result = signalled(queue, 'testRunFinished', job.completed ?? Infinity)[0];
  const land = activity(queue, 'land', result ?? Infinity);
  const delivered = signalled(own, 'prTransitions', land.completed ?? Infinity)[0];
  const span = (a?: number, b?: number) => (a !== undefined && b !== undefined && b >= a ? b - a : undefined);
  const steps: [SerialStep, number | undefined][] = [
    ['submit → read started', span(t0, read.scheduled)],
    ['read (activity)', span(read.scheduled, read.completed)],
    ['read → build started', span(read.completed, build.scheduled)],
    ['build (activity, with the effects aboard)', span(build.scheduled, build.completed)],
    ['test run: start → executor job (slot and content)', span(started, job.scheduled)],
    ['executor job (activity)', span(job.scheduled, job.completed)],
    ['result → queue signalled', span(job.completed, result)],
    ['queue signalled → landing started', span(result, land.scheduled)],
    ['landing (activity)', span(land.scheduled, land.completed)],
    ['landed → merged notice delivered', span(land.completed, delivered)],
  ];
  return Object.fromEntries(steps.filter(([, v]) => v !== undefined));
}

/** Each step's median over the PRs that have it, as table rows (step, p50 ms, PRs measured). */
export function stepRows(all: Partial<Record<SerialStep, number>>[]): string[][] {
  return SERIAL_STEPS.map((step) => {
    const values = all.map((s) => s[step]).filter((v): v is number => v !== undefined);
    return [step, values.length > 0 ? String(percentile(values, 50)) : '—', String(values.length)];
  });
}
