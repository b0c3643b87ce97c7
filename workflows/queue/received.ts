/**
 * What the queue's signals brought (host hints, CI statuses, test-run results), recorded by their
 * handlers and taken by the loop's turn (runtime.ts `intake`), never by the handlers themselves.
 *
 * Why: Temporal's worker core hands a workflow task's signals and updates to the workflow in one order
 * when it runs and may hand them in another on replay (live, an update sequenced before a signal comes
 * first; on replay, the updates a task accepted come after all of its events). A handler that started
 * an activity, or changed what an update handler then reads, would make the task's commands differ
 * between the two: a nondeterminism ("Activity machine does not handle this event:
 * WorkflowExecutionUpdateAccepted", issue 25). Recorded here, they are taken after all of the task's
 * messages, in the order they arrived among themselves (history order), whichever order the core
 * delivered signals and updates in.
 *
 * Invariants: taking an item does what the handler did before (a hint read, or held while continuing as
 * new; a status judged; a run's result received); nothing here awaits.
 */
import type { CommitStatusReport, HostHint } from '../../contract';
import { bounded, holdHint } from './carried';
import type { QueueContext } from './context';
import type { HostReader } from './host-reader';
import { receiveRunResult, type RunResult } from './run-result';
import { judgeStall } from './stall-watch';
import { judgeStatuses } from './status-verdict';

export type Received =
  | { kind: 'hint'; hint: HostHint }
  | { kind: 'status'; report: CommitStatusReport }
  | { kind: 'runResult'; runId: string; result: RunResult };

/** What taking a received item needs beyond the context. */
export interface Taker extends QueueContext {
  /** Continuing as new: hints are held for the next run (queue-workflow.ts). */
  readonly closing: boolean;
  readonly hosts: Pick<HostReader, 'hint'>;
}

/** Acts on one received item, as its handler once did. */
export function takeReceived(queue: Taker, item: Received): void {
  const c = queue.carried;
  switch (item.kind) {
    case 'hint':
      if (c.deleted) return;
      // Continuing as new: the read would put it off again; the next run reads what the hint names.
      if (queue.closing) c.heldHints = holdHint(c.heldHints ?? [], item.hint);
      else queue.hosts.hint(item.hint);
      return;
    case 'status': {
      const { report } = item;
      // A run's commit is one no run the queue carried when it was built had (avoidShas, issue 28), but
      // two runs built at once (a restart while the first was still building) can share one: the run in
      // progress on it is the one told.
      const on = c.runs.filter((r) => r.headSha === report.sha && r.runner === 'statuses');
      const run = on.find((r) => r.status === 'in_progress') ?? on[0];
      if (!run) return;
      run.statuses = bounded([...run.statuses, report], 200);
      judgeStatuses(queue, run);
      judgeStall(queue, run);
      return;
    }
    case 'runResult': {
      const run = c.runs.find((r) => r.runId === item.runId);
      if (run) receiveRunResult(queue, run, item.result);
      return;
    }
  }
}
