/**
 * The periodic maintenance of flaky-test data (the Temporal Schedule's job, next to re-evaluation):
 * day partitions made ahead, and retention applied (docs/adr/0019-result-retention.md).
 *
 * One run, in this order:
 *  1. the partitions of the next AHEAD_DAYS UTC days are made (uploads never wait for that);
 *  2. every repository gets its cutoffs (flaky/retention.ts: its organisation's settings or the
 *     defaults, raised to what its classification reads). The drop line G is the earliest raw cutoff
 *     of all: partitions wholly before G hold only rows every organisation is done with;
 *  3. those partitions are detached concurrently and dropped (result-partitions.ts). One whose lock
 *     was not granted in time is left for the next run and named in the summary;
 *  4. a repository whose raw cutoff is later than G (a shorter retention than someone else's) has its
 *     own rows deleted from the partitions that stay, in bounded batches (at most `batchSize` rows a
 *     statement, each its own transaction, a short pause after each), through the (test_pk, at)
 *     index, a batch of the repository's tests at a time; `results_trimmed_before` remembers how far
 *     it got, so the next run only works on the day that became old since;
 *  5. rollups (day rollups, failure fingerprints, PR failures) older than each repository's rollup
 *     cutoff are deleted the same way (they are not partitioned), `rollups_trimmed_before` likewise.
 *
 * Idempotent and restartable: a run that dies leaves only whole batches done, and the next one goes
 * on. Rows are only ever deleted past their repository's cutoff, so a read or a classification never
 * misses a row it uses.
 */
import { type Pool } from 'pg';
import {
  capStoredOverrides,
  type RepositoryClassificationOverrides,
  resolveClassificationParams,
} from '../classification';
import {
  cutoffsOf,
  type Cutoffs,
  effectiveRetention,
  RETENTION_BOUNDS,
  type RetentionDefaults,
} from '../retention';
import { plainArray } from './pg-arrays';
import { historyDays } from './reclassify';
import { dropTrimmedSummaries } from './test-case-summaries';
import {
  dropResultPartition,
  ensureResultPartitions,
  listResultPartitions,
  type ResultPartition,
} from './result-partitions';

/** Partitions are made two weeks ahead: the job can stop for that long before an upload makes one. */
export const AHEAD_DAYS = 14;

export interface MaintenanceOptions {
  readonly defaults: RetentionDefaults;
  /** Rows per delete statement (default 5,000). */
  readonly batchSize?: number;
  /** Tests per batch of index probes (default 1,000). */
  readonly testBatch?: number;
  /**
   * Pause after every delete statement (default 25 ms): the deletes yield the shared cores to the
   * reads and uploads between batches instead of running back to back.
   */
  readonly pauseMs?: number;
  /** lock_timeout of the detach and the drop (default 500 ms). */
  readonly lockTimeoutMs?: number;
  /** Called after every partition dropped and every batch deleted (activity heartbeats). */
  readonly onProgress?: (summary: MaintenanceSummary) => void;
}

export interface MaintenanceSummary {
  readonly partitionsMade: readonly string[];
  readonly partitionsDropped: readonly string[];
  /** Partitions whose lock was not granted in time: the next run goes on with them. */
  readonly partitionsLeft: readonly string[];
  readonly resultsDeleted: number;
  readonly rollupsDeleted: number;
  readonly repositories: number;
}

interface RepositoryRow {
  pk: string;
  classification: RepositoryClassificationOverrides;
  results_trimmed_before: Date | null;
  rollups_trimmed_before: string | null;
  raw_retention_days: number | null;
  rollup_retention_days: number | null;
}

interface RepositoryCutoffs extends Cutoffs {
  readonly pk: string;
  readonly resultsTrimmedBefore: Date | null;
  readonly rollupsTrimmedBefore: string | null;
}

const ROLLUP_TABLES = ['test_day_rollups', 'test_failure_fingerprints', 'test_pr_failures'] as const;

export async function maintainResults(
  pool: Pool,
  now: Date,
  options: MaintenanceOptions,
): Promise<MaintenanceSummary> {
  const batchSize = options.batchSize ?? 5_000;
  const testBatch = options.testBatch ?? 1_000;
  const pauseMs = options.pauseMs ?? 25;
  let summary: MaintenanceSummary = {
    partitionsMade: await ensureResultPartitions(pool, now, AHEAD_DAYS),
    partitionsDropped: [],
    partitionsLeft: [],
    resultsDeleted: 0,
    rollupsDeleted: 0,
    repositories: 0,
  };
  const progress = (change: Partial<MaintenanceSummary>) => {
    summary = { ...summary, ...change };
    options.onProgress?.(summary);
  };

  const repositories = await repositoryCutoffs(pool, now, options.defaults);
  const dropLine = earliest(
    repositories.map((r) => r.resultsBefore),
    cutoffsOf(effectiveRetention({ rawDays: null, rollupDays: null }, options.defaults, 0), now)
      .resultsBefore,
  );

  const partitions = await listResultPartitions(pool);
  // A partition left detach pending is invisible to new queries already: it is always finished.
  const keep = partitions.filter(
    (p) => !p.detachPending && p.upper !== null && p.upper.getTime() > dropLine.getTime(),
  );
  // A detach left pending first: PostgreSQL detaches no other partition concurrently until it is
  // finished. After one gives up, the others wait for the next run for the same reason.
  const drop = partitions
    .filter((p) => !keep.includes(p))
    .sort((a, b) => Number(b.detachPending) - Number(a.detachPending));
  for (const [i, partition] of drop.entries()) {
    const outcome = await dropResultPartition(pool, partition, options.lockTimeoutMs ?? 500);
    switch (outcome.kind) {
      case 'dropped':
        progress({ partitionsDropped: [...summary.partitionsDropped, partition.name] });
        break;
      case 'gave_up':
        progress({ partitionsLeft: [...summary.partitionsLeft, ...drop.slice(i).map((p) => p.name)] });
        break;
    }
    if (outcome.kind === 'gave_up') break;
  }

  for (const repository of repositories) {
    const results = await trimResults(pool, repository, keep, { batchSize, testBatch, pauseMs }, (n) =>
      progress({ resultsDeleted: summary.resultsDeleted + n }),
    );
    const rollups = await trimRollups(pool, repository, { batchSize, testBatch, pauseMs }, (n) =>
      progress({ rollupsDeleted: summary.rollupsDeleted + n }),
    );
    await pool.query(
      `UPDATE repositories SET results_trimmed_before = $2, rollups_trimmed_before = $3 WHERE pk = $1`,
      [repository.pk, results, rollups],
    );
    progress({ repositories: summary.repositories + 1 });
  }
  return summary;
}

/** Each repository's cutoffs; one whose stored parameters fail keeps what the largest ones would. */
async function repositoryCutoffs(
  pool: Pool,
  now: Date,
  defaults: RetentionDefaults,
): Promise<RepositoryCutoffs[]> {
  const { rows } = await pool.query<RepositoryRow>(
    `SELECT r.pk, r.classification, r.results_trimmed_before, r.rollups_trimmed_before::text,
            o.raw_retention_days, o.rollup_retention_days
       FROM repositories r JOIN organisations o ON o.id = r.organisation_id ORDER BY r.pk`,
  );
  return rows.map((row) => {
    let history: number;
    try {
      history = historyDays(resolveClassificationParams(capStoredOverrides(row.classification)));
    } catch {
      history = RETENTION_BOUNDS.raw_retention_days.max;
    }
    const retention = effectiveRetention(
      { rawDays: row.raw_retention_days, rollupDays: row.rollup_retention_days },
      defaults,
      history,
    );
    return {
      pk: row.pk,
      ...cutoffsOf(retention, now),
      resultsTrimmedBefore: row.results_trimmed_before,
      rollupsTrimmedBefore: row.rollups_trimmed_before,
    };
  });
}

function earliest(dates: readonly Date[], otherwise: Date): Date {
  return dates.reduce((a, b) => (b.getTime() < a.getTime() ? b : a), dates[0] ?? otherwise);
}

interface Batches {
  readonly batchSize: number;
  readonly testBatch: number;
  readonly pauseMs: number;
}

/**
 * Deletes the repository's raw rows before its cutoff from the partitions that stay, one partition
 * and one batch of tests at a time; answers how far it is trimmed.
 */
async function trimResults(
  pool: Pool,
  repository: RepositoryCutoffs,
  partitions: readonly ResultPartition[],
  batches: Batches,
  onDeleted: (n: number) => void,
): Promise<Date> {
  const cutoff = repository.resultsBefore;
  const done = repository.resultsTrimmedBefore;
  if (done !== null && done.getTime() >= cutoff.getTime()) return done;
  const work = partitions.filter(
    (p) =>
      !p.detachPending &&
      (p.lower === null || p.lower.getTime() < cutoff.getTime()) &&
      (done === null || p.upper === null || p.upper.getTime() > done.getTime()),
  );
  for (const partition of work) {
    const table = `"${partition.name}"`;
    await forEachTestBatch(pool, repository.pk, batches.testBatch, async (tests) => {
      for (;;) {
        const { rowCount } = await pool.query(
          `DELETE FROM ONLY ${table} WHERE ctid = ANY(ARRAY(
             SELECT ctid FROM ONLY ${table} WHERE test_pk = ANY($1::bigint[]) AND at < $2 LIMIT $3))`,
          [tests, cutoff, batches.batchSize],
        );
        if ((rowCount ?? 0) > 0) onDeleted(rowCount ?? 0);
        await pause(batches.pauseMs);
        if ((rowCount ?? 0) < batches.batchSize) return;
      }
    });
  }
  return cutoff;
}

/** Deletes the repository's rollup rows of days before its rollup cutoff; answers that day. */
async function trimRollups(
  pool: Pool,
  repository: RepositoryCutoffs,
  batches: Batches,
  onDeleted: (n: number) => void,
): Promise<string> {
  const cutoff = repository.rollupsBefore;
  const done = repository.rollupsTrimmedBefore;
  if (done !== null && done >= cutoff) return done;
  await forEachTestBatch(pool, repository.pk, batches.testBatch, async (tests) => {
    for (const table of ROLLUP_TABLES) {
      for (;;) {
        const { rowCount } = await pool.query(
          `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
             SELECT ctid FROM ${table} WHERE test_pk = ANY($1::bigint[]) AND day < $2::date LIMIT $3))`,
          [tests, cutoff, batches.batchSize],
        );
        if ((rowCount ?? 0) > 0) onDeleted(rowCount ?? 0);
        await pause(batches.pauseMs);
        if ((rowCount ?? 0) < batches.batchSize) break;
      }
    }
    // A summary that counted a trimmed day no longer matches the fingerprints (test-case-summaries.ts).
    await dropTrimmedSummaries(pool, tests, cutoff);
  });
  return cutoff;
}

/** The repository's test keys in batches, in key order (as an array literal for `= ANY`). */
async function forEachTestBatch(
  pool: Pool,
  repositoryPk: string,
  size: number,
  work: (tests: string) => Promise<void>,
): Promise<void> {
  let after = '0';
  for (;;) {
    const { rows } = await pool.query<{ pk: string }>(
      `SELECT pk FROM test_cases WHERE repository_pk = $1 AND pk > $2::bigint ORDER BY pk LIMIT $3`,
      [repositoryPk, after, size],
    );
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.pk;
    await work(plainArray(rows.map((r) => r.pk)));
    if (rows.length < size) return;
  }
}

const pause = (ms: number) =>
  ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
