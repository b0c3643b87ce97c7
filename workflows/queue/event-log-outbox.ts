/**
 * EventLogOutbox: the queue workflow's side of the event log. Each drain's transitions go into the
 * carried state (`Carried.unstored`) first and leave it only once an `appendTransitions` stored them, so
 * they survive PostgreSQL being down for any length of time and continue-as-new.
 *
 * Invariants:
 * - At most one append is in flight. It sends the oldest MAX_APPEND_BATCH unstored transitions, and
 *   only those leave `unstored` when it succeeds (new ones are only ever added at the end).
 * - The append is retried by Temporal without limit (capped backoff): an outage delays the log and
 *   drops nothing. Should it fail anyway (an error that is not retried), the batch stays and is sent
 *   again after FAILURE_PAUSE_MS.
 * - Not counted in `QueueRuntime.inFlight`: continue-as-new and the queue never wait for the database;
 *   the next run sends what is still unstored (appending is idempotent per submission and seq, so a
 *   batch whose append was in flight at continue-as-new is stored once).
 */
import { log, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { TransitionEvent } from '../../events/types';
import type { QueueKey } from '../../contract';
import type { Carried } from './carried';

/** Transitions per append; a backlog after a long outage goes in batches of this size. */
export const MAX_APPEND_BATCH = 500;
export const DEFAULT_APPEND_MAXIMUM_INTERVAL_MS = 30_000;
const INITIAL_INTERVAL_MS = 1_000;
const FAILURE_PAUSE_MS = 60_000;

export class EventLogOutbox {
  private sending = false;
  private readonly append: Activities['appendTransitions'];

  constructor(
    private readonly c: Carried,
    /** Sent with every append, so the activity also projects this queue's view (ADR 0016). */
    private readonly queue: QueueKey,
    /** The longest pause between retries of an append (test hook: QueueWorkflowInput). */
    maximumIntervalMs = DEFAULT_APPEND_MAXIMUM_INTERVAL_MS,
  ) {
    this.append = proxyActivities<Activities>({
      startToCloseTimeout: '30 seconds',
      // No maximumAttempts: the transitions must reach the log whatever the outage.
      retry: {
        initialInterval: INITIAL_INTERVAL_MS,
        backoffCoefficient: 2,
        // Temporal refuses a maximum below the initial interval (the workflow task would fail).
        maximumInterval: Math.max(INITIAL_INTERVAL_MS, maximumIntervalMs),
      },
    }).appendTransitions;
  }

  /** Nothing waits to be stored. */
  get idle(): boolean {
    return this.c.unstored.length === 0;
  }

  add(events: readonly TransitionEvent[]): void {
    this.c.unstored.push(...events);
    this.pump();
  }

  /** Starts an append of the oldest unstored transitions unless one is in flight. */
  pump(): void {
    if (this.sending || this.c.unstored.length === 0) return;
    this.sending = true;
    const batch = this.c.unstored.slice(0, MAX_APPEND_BATCH);
    void this.send(batch).finally(() => {
      this.sending = false;
      this.pump();
    });
  }

  private async send(batch: TransitionEvent[]): Promise<void> {
    try {
      await this.append({ events: batch, queue: this.queue });
      this.c.unstored.splice(0, batch.length);
    } catch (err) {
      log.warn('event log append failed; the transitions stay in the workflow and are sent again', {
        transitions: batch.length,
        error: err instanceof Error ? err.message : String(err),
      });
      await sleep(FAILURE_PAUSE_MS);
    }
  }
}
