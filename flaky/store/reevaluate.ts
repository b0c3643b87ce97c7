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
 * Before its batches, a repository's overrides whose expiry has passed are recorded as expired
 * (quarantine-lifecycle.ts: the rule stopped applying them at the expiry already).
 *
 * Each batch is its own transaction (locks in key order, then reclassify), so a long sweep holds no
 * lock for long and a crash loses at most one batch, which the next run redoes. Idempotent.
 *
 * Repositories are isolated from each other: one that throws is reported (with its host, owner, name
 * and organisation), counted in the summary, and skipped until the next run; the others are swept.
 */
import { type Pool } from 'pg';
import {
  EMPTY_SUMMARY,
  MAX_FAILED_LABELS,
  MAX_REEVALUATION_PAGE_SIZE,
  type ReevaluationSummary,
} from '../../contract';
import { inTransaction } from './db';
import { type OutboxSink } from './event-outbox';
import { expireOverrides } from './quarantine-lifecycle';
import { reclassify, settledLookbackMs } from './reclassify';
import { findRepositoryByPk } from './repositories';
import { lockTestCases } from './test-case-reads';
import { daysBefore } from './windows';

export type { ReevaluationSummary } from '../../contract';

/** Which repository failed and why, for the log: names, not only keys. */
export interface RepositoryFailure {
  readonly pk: string;
  readonly organisationId: string;
  readonly organisation: string;
  readonly host: string;
  readonly owner: string;
  readonly name: string;
  readonly error: unknown;
}

export interface ReevaluationOptions {
  readonly batchSize?: number;
  /** Called after every batch (activity heartbeats). */
  readonly onProgress?: (summary: ReevaluationSummary) => void;
  /** Gets each batch's test_case.* outbox rows after its commit (status changes, expired overrides). */
  readonly onEvents?: OutboxSink;
  /** Called for each repository whose sweep threw (the activity logs it); the sweep goes on. */
  readonly onRepositoryFailed?: (failure: RepositoryFailure) => void;
  /** Called after each repository, swept or failed, with the summary so far (a page's resume point). */
  readonly onRepositoryDone?: (pk: string, summary: ReevaluationSummary) => void;
}

export { MAX_FAILED_LABELS } from '../../contract';

interface RepositoryRow {
  pk: string;
  organisation_id: string;
  slug: string;
  host: string;
  owner: string;
  name: string;
}

type Counts = Pick<ReevaluationSummary, 'evaluated' | 'changed' | 'recorded'>;

export const repositoryLabel = (r: Pick<RepositoryFailure, 'host' | 'owner' | 'name' | 'organisation'>) =>
  `${r.host}/${r.owner}/${r.name} (organisation ${r.organisation})`;

/**
 * Every repository in turn, each on its own: one that throws (settings that no longer load, a
 * statement that fails on its data) is reported through `onRepositoryFailed` and counted, and the
 * sweep goes on with the next, so one tenant's repository cannot stop everyone's re-evaluation. The
 * batches it committed before throwing stay committed (each is whole on its own). Only the listing of
 * repositories itself, before any work, fails the sweep (Temporal retries it).
 *
 * The whole sweep in one call, for tests and tools; the scheduled workflow goes page by page
 * (listRepositoryPage, then reevaluateRepositories on each page) so that no activity grows with the
 * number of repositories (ADR 0020).
 */
export async function reevaluateAll(
  pool: Pool,
  now: Date,
  options: ReevaluationOptions = {},
): Promise<ReevaluationSummary> {
  const { rows } = await pool.query<{ pk: string }>(`SELECT pk FROM repositories ORDER BY pk`);
  return reevaluateRepositories(
    pool,
    rows.map((r) => r.pk),
    now,
    options,
  );
}

/**
 * The next `limit` repository keys after `after` (keyset: `pk > after ORDER BY pk`), so a listing
 * costs one index range scan however many repositories there are, and repositories created during a
 * sweep are met if their key is past the cursor. `after` null starts from the first.
 */
export async function listRepositoryPage(pool: Pool, after: string | null, limit: number): Promise<string[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_REEVALUATION_PAGE_SIZE)
    throw new Error(
      `The page size limit must be an integer from 1 to ${MAX_REEVALUATION_PAGE_SIZE}, got ${limit}.`,
    );
  if (after !== null && !/^[0-9]+$/.test(after))
    throw new Error(`The page cursor after must be a repository key (digits), got ${JSON.stringify(after)}.`);
  const { rows } = await pool.query<{ pk: string }>(
    `SELECT pk FROM repositories WHERE pk > $1::bigint ORDER BY pk LIMIT $2`,
    [after ?? '0', limit],
  );
  return rows.map((r) => r.pk);
}

/**
 * The repositories `pks` in the given order, each on its own (see reevaluateAll): one that throws is
 * reported and counted, the others are swept. A key whose repository is gone by now is skipped.
 */
export async function reevaluateRepositories(
  pool: Pool,
  pks: readonly string[],
  now: Date,
  options: ReevaluationOptions = {},
): Promise<ReevaluationSummary> {
  const { rows: found } = await pool.query<RepositoryRow>(
    `SELECT r.pk, r.organisation_id, o.slug, r.host, r.owner, r.name
       FROM repositories r JOIN organisations o ON o.id = r.organisation_id
      WHERE r.pk = ANY($1::bigint[])`,
    [pks],
  );
  const byPk = new Map(found.map((r) => [r.pk, r]));
  const repositories = pks.flatMap((pk) => {
    const row = byPk.get(pk);
    return row === undefined ? [] : [row];
  });
  let summary = EMPTY_SUMMARY;
  for (const row of repositories) {
    try {
      await reevaluateRepository(pool, row.pk, now, options, (counts) => {
        summary = {
          ...summary,
          evaluated: summary.evaluated + counts.evaluated,
          changed: summary.changed + counts.changed,
          recorded: summary.recorded + counts.recorded,
        };
        options.onProgress?.(summary);
      });
      summary = { ...summary, repositories: summary.repositories + 1 };
      options.onRepositoryDone?.(row.pk, summary);
    } catch (error) {
      const failure: RepositoryFailure = {
        pk: row.pk,
        organisationId: row.organisation_id,
        organisation: row.slug,
        host: row.host,
        owner: row.owner,
        name: row.name,
        error,
      };
      summary = {
        ...summary,
        failedRepositories: summary.failedRepositories + 1,
        failed:
          summary.failed.length < MAX_FAILED_LABELS
            ? [...summary.failed, repositoryLabel(failure)]
            : summary.failed,
      };
      options.onRepositoryFailed?.(failure);
      options.onProgress?.(summary);
      options.onRepositoryDone?.(row.pk, summary);
    }
  }
  return summary;
}

/** One repository's sweep, batch by batch; `onBatch` gets each committed batch's counts. */
async function reevaluateRepository(
  pool: Pool,
  pk: string,
  now: Date,
  options: ReevaluationOptions,
  onBatch: (counts: Counts) => void,
): Promise<void> {
  const batchSize = options.batchSize ?? 500;
  const repository = await findRepositoryByPk(pool, pk);
  if (repository === null) return;
  const { params } = repository;
  const expired = await expireOverrides(pool, pk, now);
  if (expired.length > 0) options.onEvents?.(expired);
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
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.pk;
    const outcome = await inTransaction(pool, async (client) => {
      const locked = await lockTestCases(
        client,
        rows.map((r) => r.pk),
      );
      return reclassify(client, [...locked.values()], params, now, 'schedule');
    });
    if (outcome.events.length > 0) options.onEvents?.(outcome.events);
    onBatch(outcome);
  }
}
