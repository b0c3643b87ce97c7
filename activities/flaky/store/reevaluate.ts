/**
 * Periodic re-evaluation (the Temporal Schedule's job): statuses that can change with time alone —
 * a flaky test recovering after RECOVER_DAYS, a rate window sliding past old failures, a test going
 * stale — change without any upload. The sweep re-classifies, per repository and in batches, every
 * test whose status could move at `now`:
 *  - unhealthy tests (they can recover);
 *  - tests with a failure within the longest rule window (this also settles any race between
 *    concurrent uploads of the same test, see ingest/ingest.ts);
 *  - tests not yet `stale` with no result since the UTC day STALE_DAYS ago (per the day rollups);
 *  - tests with an unsettled reason or never classified.
 * Healthy tests with a settled reason cannot change without a new result, so they are skipped; so
 * are tests that never ran (`no_results`, only skipped): time alone cannot change them either.
 *
 * Each batch is its own transaction (locks in key order, then reclassify), so a long sweep holds no
 * lock for long and a crash loses at most one batch, which the next run redoes. Idempotent.
 */
import { type Pool } from 'pg';
import { inTransaction } from './db';
import { type OutboxSink } from './event-outbox';
import { reclassify, settledLookbackMs } from './reclassify';
import { findRepositoryByPk } from './repositories';
import { lockTestCases } from './test-case-state';
import { daysBefore } from './windows';

export interface ReevaluationSummary {
  readonly repositories: number;
  readonly evaluated: number;
  readonly changed: number;
  readonly recorded: number;
}

export interface ReevaluationOptions {
  readonly batchSize?: number;
  /** Called after every batch (activity heartbeats). */
  readonly onProgress?: (summary: ReevaluationSummary) => void;
  /** Gets each batch's test_case.status_changed outbox rows after its commit. */
  readonly onEvents?: OutboxSink;
}

export async function reevaluateAll(
  pool: Pool,
  now: Date,
  options: ReevaluationOptions = {},
): Promise<ReevaluationSummary> {
  const batchSize = options.batchSize ?? 500;
  const { rows: repositories } = await pool.query<{ pk: string }>(`SELECT pk FROM repositories ORDER BY pk`);
  let summary: ReevaluationSummary = { repositories: 0, evaluated: 0, changed: 0, recorded: 0 };
  for (const { pk } of repositories) {
    const repository = await findRepositoryByPk(pool, pk);
    if (repository === null) continue;
    const { params } = repository;
    const lookbackMs = settledLookbackMs(params);
    let after = '0';
    for (;;) {
      const { rows } = await pool.query<{ pk: string }>(
        `SELECT t.pk FROM test_cases t WHERE t.repository_pk = $1 AND t.pk > $2::bigint AND (
           t.status <> 'healthy' OR t.classified_at IS NULL
           OR t.status_reason NOT IN ('no_signal', 'recovered', 'stale', 'no_results') OR t.last_failure_at >= $3
           OR (t.status_reason <> 'stale'
             AND NOT EXISTS (SELECT 1 FROM test_day_rollups d WHERE d.test_pk = t.pk AND d.day >= $4::date)))
         ORDER BY t.pk LIMIT $5`,
        [pk, after, new Date(now.getTime() - lookbackMs), daysBefore(now, params.staleDays), batchSize],
      );
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.pk;
      const outcome = await inTransaction(pool, async (client) => {
        const locked = await lockTestCases(
          client,
          rows.map((r) => r.pk),
        );
        return reclassify(client, [...locked.values()], params, now, 'schedule');
      });
      if (outcome.events.length > 0) options.onEvents?.(outcome.events);
      summary = {
        ...summary,
        evaluated: summary.evaluated + outcome.evaluated,
        changed: summary.changed + outcome.changed,
        recorded: summary.recorded + outcome.recorded,
      };
      options.onProgress?.(summary);
    }
    summary = { ...summary, repositories: summary.repositories + 1 };
  }
  return summary;
}
