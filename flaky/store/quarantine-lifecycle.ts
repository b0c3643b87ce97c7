/**
 * The quarantine lifecycle's writes (docs/flaky-tests.md §5 "Quarantine lifecycle"; the rules are
 * pure, in ../quarantine.ts and ../quarantine-release.ts):
 *  - expireOverrides (the sweep): overrides whose expiry has passed go back to UNSPECIFIED, recorded
 *    in quarantine_override_history by `railyard` at the expiry instant, with the
 *    test_case.quarantining_setting_changed outbox row a person's change would write. The rule
 *    already ignores an expired override before this runs; this records that it expired.
 *  - planReleases and writeReleaseRecords (the fold, after re-classification, on the batch's locked
 *    tests): counts each test's consecutive clean runs, ends the release of a released test that
 *    failed, and releases a test quarantined by rule once it has the repository's number of clean
 *    runs, keeping the story in quarantine_releases. The counts are stored by the re-classification's
 *    own UPDATE (reclassify.ts writeChanges), so a test row is written once per batch.
 *  - quarantineHistory: a test's override changes, releases and their ends, newest first.
 *
 * Only tests the fold locks are counted: those that failed in the batch, are unhealthy or unsettled
 * (fold.ts). A settled healthy test's count can lag, which only delays a release: such a test must
 * fail (and so be counted again from zero) before it can be quarantined by rule.
 */
import { type PoolClient } from 'pg';
import { type TestStatus } from '../classification';
import { effectiveOverride, type QuarantineOverride, quarantineOf } from '../quarantine';
import { countCleanRuns, releaseStep, runOutcomeOf } from '../quarantine-release';
import { type Queryable } from './db';
import { batchRunsSql } from './batch-runs';
import { subscribedTo } from './event-outbox';
import { plainArray } from './pg-arrays';
import { type CleanRunCount } from './reclassify';
import { type RepositoryRecord } from './repositories';

/** Who records an expiry in the override history. */
export const EXPIRY_ACTOR = 'railyard';

/** Records the repository's overrides expired at `now`; answers the outbox rows (dispatch after commit). */
export async function expireOverrides(db: Queryable, repositoryPk: string, now: Date): Promise<string[]> {
  const { rows } = await db.query<{ pk: string }>({
    name: 'flaky-expire-overrides',
    text: `WITH expired AS (
             SELECT pk, quarantine_override, override_expires_at, override_owner FROM test_cases
              WHERE repository_pk = $1 AND override_expires_at IS NOT NULL AND override_expires_at <= $2
              ORDER BY pk FOR UPDATE
           ), updated AS (
             UPDATE test_cases t SET quarantine_override = 'UNSPECIFIED', override_by = $3,
               override_at = e.override_expires_at, override_reason = 'expired', override_expires_at = NULL,
               override_owner = NULL
             FROM expired e WHERE t.pk = e.pk
           ), history AS (
             INSERT INTO quarantine_override_history (test_pk, previous, override, set_by, reason, set_at,
               expires_at, owner)
             SELECT pk, quarantine_override, 'UNSPECIFIED', $3, 'expired', override_expires_at,
               override_expires_at, override_owner
             FROM expired ORDER BY pk
             RETURNING pk, test_pk, previous, override
           )
           INSERT INTO test_case_event_outbox (organisation_id, test_pk, event_type, source_pk)
           SELECT t.organisation_id, h.test_pk, 'test_case.quarantining_setting_changed', h.pk
           FROM history h JOIN test_cases t ON t.pk = h.test_pk
           WHERE h.previous <> h.override
             AND ${subscribedTo('test_case.quarantining_setting_changed', 't.organisation_id')}
           ORDER BY h.pk
           RETURNING pk`,
    values: [repositoryPk, now, EXPIRY_ACTOR],
  });
  return rows.map((r) => r.pk);
}

interface LifecycleRow {
  pk: string;
  status: TestStatus;
  status_reason: string;
  status_at: Date;
  quarantine_override: QuarantineOverride;
  override_expires_at: Date | null;
  clean_runs: number;
  quarantine_released_at: Date | null;
  release_ended_at: Date | null;
  /** The batch's runs of the test in upload order: [failed, passed, upload id]. */
  runs: [boolean, boolean, string][];
}

export interface BatchRuns {
  readonly uploadPks: readonly string[];
  readonly firstAt: Date;
  readonly lastAt: Date;
}

/** A test's status as the batch's re-classification left it (reclassify.ts's verdict). */
export interface CurrentStatus {
  readonly status: TestStatus;
  readonly reason: string;
  readonly timestamp: Date;
}

/** What advancing the releases of a batch's locked tests writes (writeReleaseRecords, writeChanges). */
export interface ReleasePlan {
  /** Tests whose clean runs or release times change: stored by writeChanges with their statuses. */
  readonly counts: readonly CleanRunCount[];
  readonly ended: readonly { readonly pk: string; readonly reason: string }[];
  readonly released: readonly {
    readonly pk: string;
    readonly since: Date;
    readonly status: TestStatus;
    readonly reason: string;
    readonly cleanRuns: number;
  }[];
}

/**
 * Counts the batch's runs of the locked tests (`testPks`, locked by the caller) and applies
 * releaseStep at `at`, with each test's status as `statuses` has it (the batch's re-classification,
 * not written yet) or else as stored. Writes nothing: the counts go into writeChanges's UPDATE of
 * the same rows, the releases' records into writeReleaseRecords.
 */
export async function planReleases(
  client: PoolClient,
  repository: RepositoryRecord,
  batch: BatchRuns,
  testPks: readonly string[],
  at: Date,
  statuses: ReadonlyMap<string, CurrentStatus>,
): Promise<ReleasePlan> {
  if (testPks.length === 0) return { counts: [], ended: [], released: [] };
  // Unnamed on purpose: PostgreSQL then plans each call with its arrays as constants, and hashes
  // `test_pk = ANY($2)` (thousands of locked tests). A named statement goes generic after five calls,
  // and the generic plan compares every batch row with every locked test: 11 s for one 20,000-test
  // batch in the 1M benchmark (issue 26).
  const { rows } = await client.query<LifecycleRow>({
    text: `WITH runs AS (
             SELECT b.test_pk, b.upload_pk, bool_or(b.fails > 0) AS failed, bool_or(b.runs > b.fails) AS passed
               FROM ${batchRunsSql('$1::bigint[]')}
              WHERE b.test_pk = ANY($2::bigint[]) AND NOT b.infra
              GROUP BY b.test_pk, b.upload_pk
           ),
           -- Grouped once by test and joined, not a subquery per test: that re-ran the (inlined) scan
           -- for each of a batch's tests, ~3 ms each, and a 10,000-test batch hit the statement timeout.
           per_test AS (
             SELECT x.test_pk,
               json_agg(json_build_array(x.failed, x.passed, u.upload_id) ORDER BY x.upload_pk) AS runs
             FROM runs x JOIN uploads u ON u.pk = x.upload_pk
             GROUP BY x.test_pk
           )
           SELECT t.pk, t.status, t.status_reason, t.status_at, t.quarantine_override, t.override_expires_at,
             t.clean_runs, t.quarantine_released_at, t.release_ended_at, coalesce(p.runs, '[]') AS runs
           FROM test_cases t LEFT JOIN per_test p ON p.test_pk = t.pk
           WHERE t.pk = ANY($2::bigint[]) ORDER BY t.pk`,
    values: [plainArray(batch.uploadPks), plainArray(testPks)],
  });
  const counts: CleanRunCount[] = [];
  const ended: { pk: string; reason: string }[] = [];
  const released: { pk: string; since: Date; status: TestStatus; reason: string; cleanRuns: number }[] = [];
  const n = repository.releaseAfterCleanRuns;
  for (const stored of rows) {
    const current = statuses.get(stored.pk);
    const row =
      current === undefined
        ? stored
        : { ...stored, status: current.status, status_reason: current.reason, status_at: current.timestamp };
    const outcomes = row.runs.map(([failed, passed]) => runOutcomeOf({ failed, passed }));
    const cleanRuns = countCleanRuns(row.clean_runs, outcomes);
    const override = effectiveOverride(
      { value: row.quarantine_override, expiresAt: row.override_expires_at },
      at,
    );
    const verdict = quarantineOf(repository.quarantine, override, row.status, false);
    const step = releaseStep({
      quarantinedByRule: verdict.quarantined && verdict.setting === 'AUTO_QUARANTINE',
      released: row.quarantine_released_at !== null,
      failed: outcomes.includes('failed'),
      cleanRuns,
      releaseAfterCleanRuns: n,
    });
    let releasedAt = row.quarantine_released_at;
    let endedAt = row.release_ended_at;
    if (step.ends) {
      const failedIn = row.runs.filter(([failed]) => failed).map(([, , uploadId]) => uploadId);
      ended.push({ pk: row.pk, reason: `failed in upload ${failedIn[failedIn.length - 1] ?? '?'}` });
      releasedAt = null;
      endedAt = at;
    }
    if (step.releases) {
      const since = Math.max(
        row.status_at.getTime(),
        repository.quarantineChangedAt.getTime(),
        endedAt?.getTime() ?? -Infinity,
      );
      released.push({
        pk: row.pk,
        since: new Date(since),
        status: row.status,
        reason: row.status_reason,
        cleanRuns,
      });
      releasedAt = at;
    }
    if (cleanRuns !== row.clean_runs || step.ends || step.releases)
      counts.push({ pk: row.pk, cleanRuns, releasedAt, endedAt });
  }
  return { counts, ended, released };
}

/**
 * The ended releases and the new ones of a plan (its counts are writeChanges's): one statement, none
 * when there are neither. Answers how many tests were released and how many releases ended.
 */
export async function writeReleaseRecords(
  client: PoolClient,
  plan: ReleasePlan,
  releaseAfterCleanRuns: number,
  at: Date,
): Promise<{ readonly released: number; readonly ended: number }> {
  const { ended, released } = plan;
  if (ended.length === 0 && released.length === 0) return { released: 0, ended: 0 };
  await client.query({
    name: 'flaky-write-releases',
    text: `WITH ended AS (
             UPDATE quarantine_releases q SET ended_at = $1, ended_reason = e.reason
             FROM unnest($2::bigint[], $3::text[]) AS e(pk, reason)
             WHERE q.test_pk = e.pk AND q.ended_at IS NULL
           )
           INSERT INTO quarantine_releases (test_pk, quarantined_since, quarantined_status, quarantined_reason,
             released_at, clean_runs, release_reason)
           SELECT r.pk, r.since, r.status, r.reason, $1, r.clean_runs,
             r.clean_runs || ' clean runs in a row (the repository releases after ' || $4::int || ')'
           FROM unnest($5::bigint[], $6::timestamptz[], $7::text[], $8::text[], $9::int[])
             AS r(pk, since, status, reason, clean_runs)
           ORDER BY r.pk`,
    values: [
      at,
      plainArray(ended.map((e) => e.pk)),
      ended.map((e) => e.reason),
      releaseAfterCleanRuns,
      plainArray(released.map((r) => r.pk)),
      released.map((r) => r.since),
      plainArray(released.map((r) => r.status)),
      released.map((r) => r.reason),
      plainArray(released.map((r) => r.cleanRuns)),
    ],
  });
  return { released: released.length, ended: ended.length };
}

/** One entry of a test's quarantine history, newest first (the test page shows them). */
export type QuarantineHistoryEntry =
  | {
      readonly kind: 'override';
      readonly at: Date;
      readonly by: string;
      readonly previous: QuarantineOverride;
      readonly override: QuarantineOverride;
      readonly reason: string | null;
      readonly expiresAt: Date | null;
      readonly owner: string | null;
    }
  | {
      readonly kind: 'released';
      readonly at: Date;
      /** What had quarantined it: the status and its reason, since when. */
      readonly quarantinedSince: Date;
      readonly status: TestStatus;
      readonly statusReason: string;
      readonly reason: string;
    }
  | { readonly kind: 'release_ended'; readonly at: Date; readonly reason: string };

/** The test's latest `limit` quarantine events: override changes, releases and their ends. */
export async function quarantineHistory(
  db: Queryable,
  testPk: string,
  limit = 50,
): Promise<QuarantineHistoryEntry[]> {
  const { rows } = await db.query<{
    kind: QuarantineHistoryEntry['kind'];
    at: Date;
    by: string | null;
    previous: string | null;
    override: string | null;
    reason: string | null;
    expires_at: Date | null;
    owner: string | null;
    since: Date | null;
    status: TestStatus | null;
    status_reason: string | null;
  }>(
    `SELECT * FROM (
       SELECT 'override' AS kind, set_at AS at, set_by AS by, previous, override, reason, expires_at, owner,
         NULL::timestamptz AS since, NULL AS status, NULL AS status_reason, pk AS ord
         FROM quarantine_override_history WHERE test_pk = $1
       UNION ALL
       SELECT 'released', released_at, NULL, NULL, NULL, release_reason, NULL, NULL, quarantined_since,
         quarantined_status, quarantined_reason, pk FROM quarantine_releases WHERE test_pk = $1
       UNION ALL
       SELECT 'release_ended', ended_at, NULL, NULL, NULL, ended_reason, NULL, NULL, NULL, NULL, NULL, pk
         FROM quarantine_releases WHERE test_pk = $1 AND ended_at IS NOT NULL
     ) e ORDER BY at DESC, kind, ord DESC LIMIT $2`,
    [testPk, limit],
  );
  return rows.map((r): QuarantineHistoryEntry => {
    switch (r.kind) {
      case 'override':
        return {
          kind: 'override',
          at: r.at,
          by: r.by ?? '',
          previous: r.previous as QuarantineOverride,
          override: r.override as QuarantineOverride,
          reason: r.reason,
          expiresAt: r.expires_at,
          owner: r.owner,
        };
      case 'released':
        return {
          kind: 'released',
          at: r.at,
          quarantinedSince: r.since ?? r.at,
          status: r.status ?? 'flaky',
          statusReason: r.status_reason ?? '',
          reason: r.reason ?? '',
        };
      case 'release_ended':
        return { kind: 'release_ended', at: r.at, reason: r.reason ?? '' };
    }
  });
}
