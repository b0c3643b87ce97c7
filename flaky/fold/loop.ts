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
 * Lanes: `concurrency` passes run side by side, each skipping the repositories another lane of this
 * process is folding. Why: a batch's work is PostgreSQL's (the API waits on one connection), and one
 * repository's slow batch (20,000 tests seen for the first time take seconds) held every other
 * repository's uploads behind it in a single lane: a lane stuck on one repository leaves the others
 * to the rest. Lanes fold different repositories, as replicas do, so the exactly-once rule and the
 * lock order are fold.ts's unchanged; each lane holds at most one pooled connection.
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
  /** Passes side by side, each on other repositories (default DEFAULT_FOLD_CONCURRENCY). */
  readonly concurrency?: number;
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
/**
 * Two lanes: the machine this was measured on has two cores, and a batch keeps one PostgreSQL backend
 * busy; more lanes than cores only queue in PostgreSQL (RAILYARD_FOLD_CONCURRENCY sets another).
 */
export const DEFAULT_FOLD_CONCURRENCY = 2;

/** One lane's idle wait, ended early by wake() or stop(). */
interface Lane {
  woken: boolean;
  wakeUp: (() => void) | null;
}

export function createFoldLoop(pool: Pool, options: FoldLoopOptions = {}): FoldLoop {
  const intervalMs = options.intervalMs ?? DEFAULT_FOLD_INTERVAL_MS;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_FOLD_CONCURRENCY));
  let running = false;
  let done: Promise<void> = Promise.resolve();
  const lanes: Lane[] = Array.from({ length: concurrency }, () => ({ woken: false, wakeUp: null }));
  /** Repositories a lane of this process is folding now: the other lanes pass them by. */
  const folding = new Set<string>();

  const sleep = (lane: Lane) =>
    new Promise<void>((resolve) => {
      if (lane.woken || !running) return resolve();
      const timer = setTimeout(finish, intervalMs);
      function finish() {
        clearTimeout(timer);
        lane.wakeUp = null;
        resolve();
      }
      lane.wakeUp = finish;
    });

  async function pass(): Promise<boolean> {
    let worked = false;
    for (const repositoryPk of await repositoriesToFold(pool)) {
      if (!running) break;
      if (folding.has(repositoryPk)) continue;
      folding.add(repositoryPk);
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
      } finally {
        folding.delete(repositoryPk);
      }
    }
    return worked;
  }

  async function run(lane: Lane): Promise<void> {
    while (running) {
      lane.woken = false;
      let worked = false;
      try {
        worked = await pass();
      } catch (error) {
        options.metrics?.observeFailure();
        options.onError?.(error, '');
      }
      if (!worked) await sleep(lane);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      done = Promise.all(lanes.map(run)).then(() => undefined);
    },
    wake() {
      for (const lane of lanes) {
        lane.woken = true;
        lane.wakeUp?.();
      }
    },
    async stop() {
      running = false;
      for (const lane of lanes) lane.wakeUp?.();
      await done;
    },
  };
}
