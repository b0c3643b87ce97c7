/**
 * Re-classification of a set of locked tests, shared by ingestion and the periodic re-evaluation:
 * read each test's bounded history, run the pure classifier at the evaluation time, store what
 * changed, and record every change of status (and each test's first classification) in
 * test_status_history.
 *
 * Bounded history: results older than HISTORY (STALE_DAYS + W_MIX + RECOVER_DAYS, 44 days by
 * default) are not read. Within that bound the classifier sees everything any rule looks at, except
 * a same-commit disagreement that is still latched after more than 44 days (a test that keeps
 * running but has not passed RECOVER_PASSES times since): it is forgotten, and the test heals.
 *
 * Timestamps: when the status value is unchanged the stored `status_at` is kept, since it was
 * computed from history the current window may no longer reach. Re-evaluation is idempotent: an
 * identical verdict writes nothing.
 */
import { type PoolClient } from 'pg';
import {
  branchClassOf,
  type Classification,
  type ClassificationParams,
  classify,
  mustRecord,
  type ObservedResult,
  type Outcome,
  type StoredStatus,
  transition,
  type UploadSummary,
} from '../classification';
import { type Queryable } from './db';
import { subscribedTo } from './event-outbox';
import { plainArray } from './pg-arrays';
import { type TestCaseState } from './test-case-reads';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export type Trigger = 'ingest' | 'schedule';

export interface ReclassifyOutcome {
  readonly evaluated: number;
  readonly changed: number;
  readonly recorded: number;
  /** test_case.status_changed rows written to the event outbox (dispatch them after the commit). */
  readonly events: readonly string[];
}

export function historyDays(params: ClassificationParams): number {
  return params.staleDays + params.mixedLookbackDays + params.recoverDays;
}

/** The longest rule window: a failure older than this cannot move a healthy test's status. */
export function settledLookbackMs(params: ClassificationParams): number {
  return Math.max(
    params.mixedLookbackDays * DAY_MS,
    params.rateWindowHours * HOUR_MS,
    params.brokenRateWindowHours * HOUR_MS,
  );
}

export async function reclassify(
  client: PoolClient,
  tests: readonly TestCaseState[],
  params: ClassificationParams,
  evaluationTime: Date,
  trigger: Trigger,
): Promise<ReclassifyOutcome> {
  const changes = await classifyTests(client, tests, params, evaluationTime);
  const events = await writeChanges(client, changes, evaluationTime, trigger);
  return outcomeOf(changes, events);
}

/** A status to store: the test's new verdict (status, reason, timestamp). */
export interface StatusUpdate {
  readonly pk: string;
  readonly next: Classification;
}

/** What re-classifying a set of tests changes, before it is written (writeChanges). */
export interface StatusChanges {
  readonly evaluated: number;
  readonly updates: readonly StatusUpdate[];
  readonly history: readonly {
    readonly pk: string;
    readonly from: string | null;
    readonly next: Classification;
  }[];
}

/** Per test, its clean-run count and release times to store with the statuses (the fold's). */
export interface CleanRunCount {
  readonly pk: string;
  readonly cleanRuns: number;
  readonly releasedAt: Date | null;
  readonly endedAt: Date | null;
}

/** reclassify without the write: each test's verdict from its bounded history, and what changed. */
export async function classifyTests(
  client: PoolClient,
  tests: readonly TestCaseState[],
  params: ClassificationParams,
  evaluationTime: Date,
): Promise<StatusChanges> {
  if (tests.length === 0) return { evaluated: 0, updates: [], history: [] };
  const from = new Date(evaluationTime.getTime() - historyDays(params) * DAY_MS);
  const { results, uploads } = await loadHistory(client, tests, params, from, evaluationTime);
  const updates: StatusUpdate[] = [];
  const history: { pk: string; from: string | null; next: Classification }[] = [];
  for (const test of tests) {
    const testResults = results.get(test.pk) ?? [];
    const testUploads = [...new Set(testResults.map((r) => r.uploadId))].map((id) => uploads.get(id)!);
    const computed = classify({ results: testResults, uploads: testUploads }, params, evaluationTime);
    const previous: StoredStatus | undefined =
      test.classifiedAt === null
        ? undefined
        : { status: test.status, reason: test.statusReason, timestamp: test.statusAt };
    const next =
      previous !== undefined && previous.status === computed.status
        ? { ...computed, timestamp: previous.timestamp }
        : computed;
    const change = transition(previous, next);
    if (change.kind === 'unchanged') continue;
    updates.push({ pk: test.pk, next });
    if (mustRecord(change)) history.push({ pk: test.pk, from: previous?.status ?? null, next });
  }
  return { evaluated: tests.length, updates, history };
}

export function outcomeOf(changes: StatusChanges, events: readonly string[]): ReclassifyOutcome {
  return {
    evaluated: changes.evaluated,
    changed: changes.history.filter((h) => h.from !== null).length,
    recorded: changes.history.length,
    events,
  };
}

/**
 * The changed statuses, their history rows and, for each change of status value (not a first
 * classification), a test_case.status_changed outbox row when the organisation subscribes to it: one
 * statement. With `counts` (the fold's quarantine lifecycle, quarantine-lifecycle.ts) the same UPDATE
 * also stores those tests' clean runs and release times: each test row is written once per batch,
 * not once for its status and again for its count (issue 26: on a test seen for the first time both
 * change, and each write of a full test_cases row costs a new row version with its index entries).
 * Answers the outbox rows.
 */
export async function writeChanges(
  client: PoolClient,
  changes: Pick<StatusChanges, 'updates' | 'history'>,
  evaluationTime: Date,
  trigger: Trigger,
  counts: readonly CleanRunCount[] = [],
): Promise<string[]> {
  const { updates, history } = changes;
  if (updates.length === 0 && counts.length === 0) return [];
  const { rows } = await client.query<{ pk: string }>({
    name: 'flaky-write-statuses',
    text: `WITH statuses AS (
             UPDATE test_cases t SET status = coalesce(x.status, t.status),
               status_reason = coalesce(x.reason, t.status_reason),
               status_at = coalesce(x.status_at, t.status_at),
               classified_at = CASE WHEN x.status IS NULL THEN t.classified_at ELSE $1 END,
               clean_runs = coalesce(x.clean_runs, t.clean_runs),
               quarantine_released_at = CASE WHEN x.clean_runs IS NULL THEN t.quarantine_released_at ELSE x.released_at END,
               release_ended_at = CASE WHEN x.clean_runs IS NULL THEN t.release_ended_at ELSE x.ended_at END
             FROM (SELECT coalesce(u.pk, c.pk) AS pk, u.status, u.reason, u.status_at, c.clean_runs, c.released_at,
                          c.ended_at
                     FROM unnest($3::bigint[], $4::text[], $5::text[], $6::timestamptz[]) AS u(pk, status, reason, status_at)
                     FULL JOIN unnest($12::bigint[], $13::int[], $14::timestamptz[], $15::timestamptz[])
                       AS c(pk, clean_runs, released_at, ended_at) ON c.pk = u.pk) x
             WHERE t.pk = x.pk
           ), history AS (
             INSERT INTO test_status_history (test_pk, from_status, to_status, reason, status_at, evaluated_at, trigger)
             SELECT h.pk, h.from_status, h.to_status, h.reason, h.status_at, $1, $2
             FROM unnest($7::bigint[], $8::text[], $9::text[], $10::text[], $11::timestamptz[])
               AS h(pk, from_status, to_status, reason, status_at)
             RETURNING pk, test_pk, from_status, to_status
           )
           INSERT INTO test_case_event_outbox (organisation_id, test_pk, event_type, source_pk)
           SELECT t.organisation_id, h.test_pk, 'test_case.status_changed', h.pk
           FROM history h JOIN test_cases t ON t.pk = h.test_pk
           WHERE h.from_status IS NOT NULL AND h.from_status <> h.to_status
             AND ${subscribedTo('test_case.status_changed', 't.organisation_id')}
           ORDER BY h.pk
           RETURNING pk`,
    values: [
      evaluationTime,
      trigger,
      plainArray(updates.map((u) => u.pk)),
      plainArray(updates.map((u) => u.next.status)),
      updates.map((u) => u.next.reason),
      updates.map((u) => u.next.timestamp),
      plainArray(history.map((h) => h.pk)),
      plainArray(history.map((h) => h.from)),
      plainArray(history.map((h) => h.next.status)),
      history.map((h) => h.next.reason),
      history.map((h) => h.next.timestamp),
      plainArray(counts.map((c) => c.pk)),
      plainArray(counts.map((c) => c.cleanRuns)),
      counts.map((c) => c.releasedAt),
      counts.map((c) => c.endedAt),
    ],
  });
  return rows.map((r) => r.pk);
}

/**
 * The tests' results in [from, to) from the covering index (times as epoch ms: no date parsing per
 * row), and the summaries and branches of the uploads they came from, read once per upload. Also
 * what a test's page explains its status from (status-evidence.ts): the history the classifier reads.
 */
export async function loadHistory(
  client: Queryable,
  tests: readonly Pick<TestCaseState, 'pk'>[],
  params: ClassificationParams,
  from: Date,
  to: Date,
): Promise<{ results: Map<string, ObservedResult[]>; uploads: Map<string, UploadSummary> }> {
  const { rows } = await client.query<{
    test_pk: string;
    upload_pk: string;
    attempt: number;
    outcome: Outcome;
    at_ms: number;
  }>({
    name: 'flaky-history-results',
    text: `SELECT test_pk, upload_pk, attempt, outcome, extract(epoch FROM at)::float8 * 1000 AS at_ms
           FROM test_results WHERE test_pk = ANY($1::bigint[]) AND at >= $2 AND at < $3`,
    values: [plainArray(tests.map((t) => t.pk)), from, to],
  });
  const uploadPks = [...new Set(rows.map((r) => r.upload_pk))];
  const { rows: uploadRows } = await client.query<{
    pk: string;
    commit_sha: string;
    branch: string;
    pr_number: string | null;
    results: number;
    failures: number;
  }>({
    name: 'flaky-history-uploads',
    text: `SELECT pk, commit_sha, branch, pr_number, results, failures FROM uploads WHERE pk = ANY($1::bigint[])`,
    values: [plainArray(uploadPks)],
  });
  const byUpload = new Map(
    uploadRows.map((u) => [
      u.pk,
      {
        commitSha: u.commit_sha,
        branchClass: branchClassOf(u.branch, u.pr_number === null ? undefined : Number(u.pr_number), params),
        summary: { uploadId: u.pk, results: u.results, failures: u.failures },
      },
    ]),
  );
  const results = new Map<string, ObservedResult[]>();
  for (const row of rows) {
    const upload = byUpload.get(row.upload_pk);
    if (upload === undefined) continue;
    const list = results.get(row.test_pk) ?? [];
    list.push({
      uploadId: row.upload_pk,
      testId: row.test_pk,
      attempt: row.attempt,
      outcome: row.outcome,
      commitSha: upload.commitSha,
      branchClass: upload.branchClass,
      at: new Date(Math.round(row.at_ms)),
    });
    results.set(row.test_pk, list);
  }
  return { results, uploads: new Map([...byUpload].map(([pk, u]) => [pk, u.summary])) };
}
