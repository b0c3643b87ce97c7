/**
 * ViewSync: the queue workflow's side of its view in the read projection (ADR 0016). Each event-log
 * append carries the delta from the view the projection acknowledged to this run to the queue's view
 * now (contract/queue-view-delta.ts), so the append stores the entries that changed and asks the
 * workflow nothing.
 *
 * Invariants:
 * - What was acknowledged lives in memory only (never carried): a new run, or a run told its view was
 *   replaced or not stored, sends a whole view next (the store still writes only the rows that differ).
 * - One delta in flight at a time (the append's own rule); it is acknowledged only when its append was
 *   done and the view applied (`stored`) or found newer (`stale`).
 * - Computing a delta reads the carried state and changes nothing: deterministic, and it adds no
 *   command to the history.
 *
 * Use: the append's input gets `view: sync.next()`; when the append ends, `sync.settled(done, outcome)`
 * with the `view` its AppendResult reported.
 */
import { workflowInfo } from '@temporalio/workflow';
import { viewDeltaOf, type AckedView, type QueueKey, type QueueViewDelta } from '../../contract';
import type { ViewOutcome } from '../../activities/events/append';
import type { Carried } from './carried';
import { snapshotOf } from './projections';

export class ViewSync {
  private acked: AckedView | null = null;
  private sent: AckedView | null = null;

  constructor(
    private readonly c: Carried,
    private readonly key: QueueKey,
  ) {}

  /** The delta for the append about to start. */
  next(): QueueViewDelta {
    const snapshot = {
      ...snapshotOf(this.c, this.key.targetBranch),
      generation: workflowInfo().firstExecutionRunId,
      revision: this.c.viewRevision ?? 0,
      deleted: this.c.deleted,
    };
    const { delta, view } = viewDeltaOf(snapshot, this.acked);
    this.sent = view;
    return delta;
  }

  /**
   * The append of the last delta ended: `done` when it succeeded, with what it reported of the view
   * (undefined when the caller does not pass it on: taken as stored, the store refuses a wrong base).
   */
  settled(done: boolean, outcome?: ViewOutcome): void {
    if (done) this.acked = outcome === 'replaced' || outcome === 'unstored' ? null : this.sent;
    this.sent = null;
  }
}
