/**
 * Rewrites a recorded history as if one of its workflow tasks had timed out after the worker had
 * processed it (docs/known-issues.md, stop 46): the worker applied the task's events in an activation
 * of their own and kept that state, but its completion came too late, so the history records the task
 * as timed out, and on replay Temporal's core hands its events to the workflow in one activation with
 * the next task's. Only a task whose completion issued nothing (no command, no update accepted) can be
 * rewritten this way: that is the history such a late task leaves, since its commands would have been
 * sent again by the next completion, and a task that sent nothing leaves nothing to move.
 *
 * Pure functions over the JSON `temporal workflow show --output json` prints (test/support/histories.ts).
 */

interface JsonEvent {
  eventId: string;
  eventType: string;
  [attributes: string]: unknown;
}

export interface JsonHistory {
  events: JsonEvent[];
}

/** Events a workflow task's completion can record after it: if one follows, the task issued something. */
const ISSUED =
  /SCHEDULED$|_STARTED$|TIMER_STARTED|MARKER_RECORDED|UPDATE_(ACCEPTED|COMPLETED|REJECTED)|INITIATED$|UPSERT|MODIFIED|CANCEL_REQUESTED|TIMER_CANCELED|CONTINUED_AS_NEW|EXECUTION_COMPLETED|EXECUTION_FAILED/;

/** What arrives between tasks without a command: results, signals, timers firing, child outcomes. */
const ARRIVES =
  /ACTIVITY_TASK_(STARTED|COMPLETED|FAILED|TIMED_OUT|CANCELED)|EXECUTION_SIGNALED|TIMER_FIRED|CHILD_WORKFLOW_EXECUTION_(STARTED|COMPLETED|FAILED|CANCELED|TIMED_OUT|TERMINATED)|EXTERNAL_WORKFLOW_EXECUTION_SIGNALED|WORKFLOW_EXECUTION_UPDATE_ADMITTED/;

function attributes(e: JsonEvent): Record<string, unknown> {
  const key = Object.keys(e).find((k) => k.endsWith('Attributes'));
  return (key ? e[key] : {}) as Record<string, unknown>;
}

function usedFlags(e: JsonEvent): boolean {
  const meta = attributes(e).sdkMetadata as
    { langUsedFlags?: unknown[]; coreUsedFlags?: unknown[] } | undefined;
  return (meta?.langUsedFlags?.length ?? 0) > 0 || (meta?.coreUsedFlags?.length ?? 0) > 0;
}

/**
 * The ids of the WORKFLOW_TASK_COMPLETED events that can be rewritten: the task issued nothing, brought
 * at least one event the workflow reacts to (a result, a signal, a timer), set no SDK flag, and another
 * task completes after it.
 */
export function timedOutTaskCandidates(history: JsonHistory): string[] {
  const events = history.events;
  const out: string[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.eventType !== 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED' || usedFlags(e)) continue;
    // What the task brought: the events between the previous task's end and this task's scheduling.
    let j = i - 1;
    while (j >= 0 && events[j]!.eventType !== 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED') j--;
    let k = j - 1;
    let brought = false;
    while (k >= 0 && !/WORKFLOW_TASK_(COMPLETED|TIMED_OUT|FAILED)/.test(events[k]!.eventType)) {
      if (ARRIVES.test(events[k]!.eventType) && !/ACTIVITY_TASK_STARTED/.test(events[k]!.eventType))
        brought = true;
      k--;
    }
    if (!brought) continue;
    // What followed it up to the next task: only arrivals, none of them issued by this task.
    let n = i + 1;
    let issued = false;
    while (n < events.length && events[n]!.eventType !== 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED') {
      const next = events[n]!;
      if (ISSUED.test(next.eventType) && !ARRIVES.test(next.eventType)) issued = true;
      if (attributes(next).workflowTaskCompletedEventId === e.eventId) issued = true;
      n++;
    }
    const completesLater = events.slice(n).some((x) => x.eventType === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED');
    if (!issued && completesLater) out.push(e.eventId);
  }
  return out;
}

/** A copy of `history` whose task completed at `completedEventId` timed out instead. */
export function timeOutTask(history: JsonHistory, completedEventId: string): JsonHistory {
  return {
    ...history,
    events: history.events.map((e) => {
      if (e.eventId !== completedEventId) return e;
      const a = attributes(e);
      return {
        eventId: e.eventId,
        eventTime: e.eventTime,
        eventType: 'EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT',
        taskId: e.taskId,
        workflowTaskTimedOutEventAttributes: {
          scheduledEventId: a.scheduledEventId,
          startedEventId: a.startedEventId,
          timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE',
        },
      };
    }),
  };
}
