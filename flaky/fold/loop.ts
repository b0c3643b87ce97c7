/**
 * The fold loop (ADR 0018): runs in every API process, folding every repository's pending uploads
 * (fold.ts). Several replicas are safe: a pass tries each repository's advisory lock and skips the
 * repositories another process is folding, and the exactly-once rule is fold.ts's, not the loop's.
 *
 * Bounded lag: a pass gives every repository with pending uploads one batch in turn (none starves the
 * others), and passes follow each other without pause while there is work; an idle loop waits
 * `intervalMs` or until `wake()` (called by the process's own acknowledgements), so an upload is
 * usually folded within one batch's time of its acknowledgement.
 *
 * A failing batch (a statement error, PostgreSQL away) is reported and counted and the loop goes on:
 * its uploads stay pending and are folded by a later pass. stop() waits for the pass under way.
 */
import { type Pool } from '../../stores/db';
import { type OutboxSink } from '../store/event-outbox';
import { repositoriesToFold } from '../store/fold-queue';
import { type FoldOutcome, foldRepository } from './fold';
import { type FoldMetrics } from './metrics';

export interface FoldLoopOptions {
  /** Gets the test_case.status_changed outbox rows of each committed batch (events.ts). */
  readonly events?: OutboxSink;
  readonly metrics?: FoldMetrics;
  /** Idle wait between passes with nothing to do (default 250 ms). */
  readonly intervalMs?: number;
  readonly maxResults?: number;
  /** Each committed batch (the benchmark measures the lag with it). */
  readonly onBatch?: (outcome: FoldOutcome) => void;
  readonly onError?: (error: unknown, repositoryPk: string) => void;
}

export interface FoldLoop {
  start(): void;
  /** Start the next pass now (an upload was just acknowledged). */
  wake(): void;
  stop(): Promise<void>;
}

export const DEFAULT_FOLD_INTERVAL_MS = 250;

export function createFoldLoop(pool: Pool, options: FoldLoopOptions = {}): FoldLoop {
  const intervalMs = options.intervalMs ?? DEFAULT_FOLD_INTERVAL_MS;
  let running = false;
  let done: Promise<void> = Promise.resolve();
  let wakeUp: (() => void) | null = null;
  let woken = false;

  const sleep = () =>
    new Promise<void>((resolve) => {
      if (woken || !running) return resolve();
      const timer = setTimeout(finish, intervalMs);
      function finish() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = finish;
    });

  async function pass(): Promise<boolean> {
    let worked = false;
    for (const repositoryPk of await repositoriesToFold(pool)) {
      if (!running) break;
      try {
        const outcome = await foldRepository(pool, repositoryPk, {
          skipLocked: true,
          maxBatches: 1,
          ...(options.maxResults === undefined ? {} : { maxResults: options.maxResults }),
        });
        if (outcome.uploads > 0) worked = true;
        if (outcome.events.length > 0) options.events?.(outcome.events);
        options.metrics?.observeFolded(outcome.lagSeconds, outcome.results);
        options.onBatch?.(outcome);
      } catch (error) {
        options.metrics?.observeFailure();
        options.onError?.(error, repositoryPk);
      }
    }
    return worked;
  }

  async function run(): Promise<void> {
    while (running) {
      woken = false;
      let worked = false;
      try {
        worked = await pass();
      } catch (error) {
        options.metrics?.observeFailure();
        options.onError?.(error, '');
      }
      if (!worked) await sleep();
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      done = run();
    },
    wake() {
      woken = true;
      wakeUp?.();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await done;
    },
  };
}
