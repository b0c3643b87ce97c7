/**
 * appendUntilStored: after an append that rode in a call failed, the queue's unstored transitions go
 * to the event log by themselves (`appendTransitions`, retried by Temporal with a capped backoff), the
 * oldest MAX_APPEND_BATCH at a time, until none is left; then they go back in the calls
 * (side-effects.ts). A batch that failed for good stays in the carried state and is tried again after
 * a pause: transitions leave the workflow only once stored, whatever the outage's length.
 */
import { log, sleep } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { QueueKey } from '../../contract';
import type { Carried } from './carried';
import type { ViewSync } from './view-sync';

/** Transitions per append; a backlog after a long outage goes in batches of this size. */
export const MAX_APPEND_BATCH = 500;
/** After an append that failed for good (not retried), before the next. */
const FAILURE_PAUSE_MS = 60_000;

export async function appendUntilStored(
  carried: Carried,
  queue: QueueKey,
  views: ViewSync,
  appendAlone: Activities['appendTransitions'],
): Promise<void> {
  while (carried.unstored.length > 0) {
    const batch = carried.unstored.slice(0, MAX_APPEND_BATCH);
    try {
      const appended = await appendAlone({ events: batch, queue, view: views.next() });
      views.settled(true, appended.view);
      carried.unstored.splice(0, batch.length);
    } catch (err) {
      views.settled(false);
      log.warn('event log append failed; the transitions stay in the workflow and are sent again', {
        transitions: batch.length,
        error: err instanceof Error ? err.message : String(err),
      });
      await sleep(FAILURE_PAUSE_MS);
    }
  }
}
