/**
 * How fresh the flaky-test reads are (docs/operations.md "Flaky-test fold lag"): the fold's metrics,
 * registered on the process's registry (api/plugins/process-metrics.ts) by whoever runs the loop.
 *
 * - `railyard_flaky_fold_lag_seconds` (gauge): age of the oldest acknowledged upload not folded yet,
 *   read from PostgreSQL at each scrape (0 when nothing waits), so it keeps growing when no loop
 *   runs at all; every replica reports the same value.
 * - `railyard_flaky_fold_delay_seconds` (histogram): per folded upload, acknowledgement to fold.
 * - `railyard_flaky_folded_results_total`, `railyard_flaky_fold_failures_total` (counters).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { type Pool } from '../../stores/db';
import { oldestPendingFoldSeconds } from '../store/fold-queue';

export interface FoldMetrics {
  observeFolded(lagSeconds: readonly number[], results: number): void;
  observeFailure(): void;
}

export function createFoldMetrics(registry: Registry, pool: Pool): FoldMetrics {
  new Gauge({
    name: 'railyard_flaky_fold_lag_seconds',
    help: 'Age of the oldest acknowledged flaky-test upload not folded yet (0 when none waits)',
    registers: [registry],
    async collect() {
      try {
        this.set(await oldestPendingFoldSeconds(pool));
      } catch {
        // PostgreSQL unreachable: no fresh value. The scrape still answers the other metrics, and the
        // API's own probes say that PostgreSQL is down.
      }
    },
  });
  const delay = new Histogram({
    name: 'railyard_flaky_fold_delay_seconds',
    help: 'Per flaky-test upload, seconds from its acknowledgement to its fold',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const folded = new Counter({
    name: 'railyard_flaky_folded_results_total',
    help: 'Flaky-test attempts folded into rollups and classification',
    registers: [registry],
  });
  const failures = new Counter({
    name: 'railyard_flaky_fold_failures_total',
    help: 'Fold batches that failed (retried at the next pass)',
    registers: [registry],
  });
  return {
    observeFolded(lagSeconds, results) {
      for (const lag of lagSeconds) delay.observe(lag);
      folded.inc(results);
    },
    observeFailure: () => failures.inc(),
  };
}
