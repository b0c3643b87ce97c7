/**
 * History events per merged PR (issue 25's orchestration figure): the events of every run of the queue
 * workflow (followed through continue-as-new from its first run), of the merged PRs' own workflows and
 * of the test-run workflows their timelines name, divided by the number of merged PRs. Also counts the
 * workflow tasks and activities among them, the two things a leaner orchestration removes.
 *
 * Rule: only histories are counted (what Temporal stores and replays), never estimates; the queue's
 * events are shared by all its PRs, so the figure is meaningful only when every PR the queue held in
 * the measured window merged (the bench checks that).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const { EventType, WorkflowTaskFailedCause } = temporal.api.enums.v1;

export interface EventCounts {
  events: number;
  workflowTasks: number;
  activities: number;
  /**
   * Events by kind: the event type, with the activity's name for a scheduled activity, the signal's for
   * a signal and the marker's for a marker (what is left to cut, by where it comes from).
   */
  kinds: Record<string, number>;
}

export interface EventsPerMergedPr {
  merged: number;
  queue: EventCounts;
  pullRequest: EventCounts;
  testRun: EventCounts;
  total: EventCounts;
}

/** An event's kind: its type without the prefix, and the name of what it schedules, signals or marks. */
function kindOf(e: HistoryEvent): string {
  const type = (EventType[Number(e.eventType)] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, '');
  const name =
    e.activityTaskScheduledEventAttributes?.activityType?.name ??
    e.workflowExecutionSignaledEventAttributes?.signalName ??
    e.markerRecordedEventAttributes?.markerName;
  return name ? `${type} ${name}` : type;
}

function countsOf(events: HistoryEvent[]): EventCounts {
  const typeOf = (e: HistoryEvent): number => Number(e.eventType);
  const kinds: Record<string, number> = {};
  for (const e of events) kinds[kindOf(e)] = (kinds[kindOf(e)] ?? 0) + 1;
  return {
    kinds,
    events: events.length,
    workflowTasks: events.filter((e) => typeOf(e) === Number(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED))
      .length,
    activities: events.filter((e) => typeOf(e) === Number(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
      .length,
  };
}

const mapKinds = (
  a: Record<string, number>,
  b: Record<string, number>,
  f: (x: number, y: number) => number,
): Record<string, number> =>
  Object.fromEntries(
    [...new Set([...Object.keys(a), ...Object.keys(b)])].map((k) => [k, f(a[k] ?? 0, b[k] ?? 0)]),
  );
const sum = (a: EventCounts, b: EventCounts): EventCounts => ({
  events: a.events + b.events,
  workflowTasks: a.workflowTasks + b.workflowTasks,
  activities: a.activities + b.activities,
  kinds: mapKinds(a.kinds, b.kinds, (x, y) => x + y),
});
const ZERO: EventCounts = { events: 0, workflowTasks: 0, activities: 0, kinds: {} };
const per = (c: EventCounts, n: number): EventCounts => ({
  events: c.events / n,
  workflowTasks: c.workflowTasks / n,
  activities: c.activities / n,
  kinds: mapKinds(c.kinds, {}, (x) => x / n),
});

async function eventsOf(client: Client, workflowId: string, runId?: string): Promise<HistoryEvent[]> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events ?? [];
}

/** Each run of a workflow that continues as new, from `firstRunId` to the one running now, in order. */
async function* runsFrom(
  client: Client,
  workflowId: string,
  firstRunId: string,
): AsyncGenerator<HistoryEvent[]> {
  let runId: string | undefined = firstRunId;
  while (runId) {
    const events = await eventsOf(client, workflowId, runId);
    yield events;
    const last = events[events.length - 1];
    runId =
      last && Number(last.eventType) === Number(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW)
        ? (last.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined)
        : undefined;
  }
}

/** Every event of every run of a workflow that continues as new. */
async function chainOf(client: Client, workflowId: string, firstRunId: string): Promise<HistoryEvent[]> {
  const all: HistoryEvent[] = [];
  for await (const events of runsFrom(client, workflowId, firstRunId)) all.push(...events);
  return all;
}

/** One run of a workflow that continues as new: its size, its span and the state it was handed. */
export interface RunSummary {
  events: number;
  startedAt: Date | null;
  /** When it continued as new (or its last event, for the run still going). */
  endedAt: Date | null;
  continuedAsNew: boolean;
  /** Bytes of the input it started with: for the queue, what the previous run carried across. */
  inputBytes: number;
  /**
   * Workflow tasks that failed, by cause, and that timed out: an UNHANDLED_COMMAND is a continue-as-new
   * refused because events came in while its task ran, after which the worker replays the whole run.
   */
  failedTasks: Record<string, number>;
  /** The longest workflow task, started to completed: a replay of the run shows here. */
  longestTaskMs: number;
}

const millisOf = (e: HistoryEvent | undefined): number | null => timeOf(e)?.getTime() ?? null;

/** Failed and timed-out workflow tasks by cause, and the longest task's start-to-completion time. */
function taskTrouble(events: HistoryEvent[]): Pick<RunSummary, 'failedTasks' | 'longestTaskMs'> {
  const failedTasks: Record<string, number> = {};
  let longestTaskMs = 0;
  const started = new Map<number, number | null>();
  for (const e of events) {
    switch (Number(e.eventType)) {
      case Number(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED):
        started.set(Number(e.eventId), millisOf(e));
        break;
      case Number(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED): {
        const from = started.get(Number(e.workflowTaskCompletedEventAttributes?.startedEventId));
        const to = millisOf(e);
        if (from != null && to != null) longestTaskMs = Math.max(longestTaskMs, to - from);
        break;
      }
      case Number(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED): {
        const cause = Number(e.workflowTaskFailedEventAttributes?.cause ?? 0);
        const name = (WorkflowTaskFailedCause[cause] ?? String(cause)).replace(
          /^WORKFLOW_TASK_FAILED_CAUSE_/,
          '',
        );
        failedTasks[name] = (failedTasks[name] ?? 0) + 1;
        break;
      }
      case Number(EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT):
        failedTasks.TIMED_OUT = (failedTasks.TIMED_OUT ?? 0) + 1;
        break;
    }
  }
  return { failedTasks, longestTaskMs };
}

const timeOf = (e: HistoryEvent | undefined): Date | null =>
  e?.eventTime?.seconds != null
    ? new Date(Number(e.eventTime.seconds) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6))
    : null;

/**
 * Each run of a workflow's chain, summed up. With `keepDir`, every run is also written there as
 * `run-<n>.json`, in the JSON form `temporal workflow show -o json` writes (what historyFromJSON reads
 * back), for a replay profiled offline.
 */
export async function runSummaries(
  client: Client,
  workflowId: string,
  firstRunId: string,
  opts: { keepDir?: string } = {},
): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  if (opts.keepDir) fs.mkdirSync(opts.keepDir, { recursive: true });
  for await (const events of runsFrom(client, workflowId, firstRunId)) {
    if (opts.keepDir)
      fs.writeFileSync(path.join(opts.keepDir, `run-${runs.length + 1}.json`), historyToJSON({ events }));
    const first = events[0];
    const last = events[events.length - 1];
    const payloads = first?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
    runs.push({
      events: events.length,
      startedAt: timeOf(first),
      endedAt: timeOf(last),
      continuedAsNew:
        Number(last?.eventType) === Number(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW),
      inputBytes: payloads.reduce((n, p) => n + (p.data?.length ?? 0), 0),
      ...taskTrouble(events),
    });
  }
  return runs;
}

export async function eventsPerMergedPr(
  client: Client,
  opts: {
    queueWorkflowId: string;
    queueFirstRunId: string;
    /** The merged PRs' workflow ids and the test runs' workflow ids their timelines name. */
    prWorkflowIds: string[];
    testRunWorkflowIds: string[];
  },
): Promise<EventsPerMergedPr> {
  const n = opts.prWorkflowIds.length;
  const queue = countsOf(await chainOf(client, opts.queueWorkflowId, opts.queueFirstRunId));
  let pullRequest = ZERO;
  for (const id of opts.prWorkflowIds) pullRequest = sum(pullRequest, countsOf(await eventsOf(client, id)));
  let testRun = ZERO;
  for (const id of new Set(opts.testRunWorkflowIds))
    testRun = sum(testRun, countsOf(await eventsOf(client, id)));
  return {
    merged: n,
    queue: per(queue, n),
    pullRequest: per(pullRequest, n),
    testRun: per(testRun, n),
    total: per(sum(sum(queue, pullRequest), testRun), n),
  };
}
