/**
 * The failed tests CI uploaded for one commit (issue 28: a merge-queue run judged by CI's statuses reads
 * the JUnit CI uploaded for its test commit, so the test-level rules apply to it too).
 *
 * Rules:
 * - Only the repository's own uploads are read: the caller found `repository` by organisation and key
 *   (findRepository), and every row is reached from its `pk`, so another organisation's uploads for the
 *   same commit are never seen.
 * - A test failed in an upload when its last attempt there failed (a retry that passed is a pass, as
 *   at ingest: prepare.ts `final`). Failures of any upload of the commit count (CI's jobs upload
 *   separately).
 * - Bounded whatever a tenant uploads: at most MAX_COMMIT_UPLOADS uploads (the newest) and `maxRows`
 *   failed results are read, names at most MAX_NAME_PART characters a part; the caller gets `maxRows`
 *   tests at most and treats more (or a name over its own bound) as an incomplete list.
 * - What the flaky-test service knows of each: `flaky` when its status is flaky or it is quarantined.
 *   `quarantined` is always false here: CI's own job applies quarantine (Trunk's CLI wraps the test
 *   command), and a required status that failed beside the upload (a lint job) must not be passed by
 *   the queue on the strength of a quarantined test; a quarantined failure is still known flaky, so it
 *   is retried.
 * Invariant: one statement for the failures (uploads_commit_idx finds the uploads, test_results_failures_idx
 *   their failed attempts, at most `maxRows` read, repeats counted as the engine counts them), one for
 *   their statuses (checkQuarantine).
 */
import { type Queryable } from './db';
import { lastPassesOnBranch } from './last-pass';
import { checkQuarantine } from './quarantine-check';
import { type RepositoryRecord } from './repositories';

/** The newest uploads of a commit that are read (CI re-runs a job; each upload is one job's). */
export const MAX_COMMIT_UPLOADS = 20;
const MAX_NAME_PART = 300;

export interface CommitFailure {
  readonly testId: string;
  readonly name: string;
  readonly flaky: boolean;
  /** Its latest passing commit on the target branch (last-pass.ts), when one was asked for and found. */
  readonly passedOnTarget?: string;
}

/** null when no upload names the commit; else its failed tests, in (upload, test) order, bounded. */
export async function failedTestsOfCommit(
  db: Queryable,
  repository: RepositoryRecord,
  sha: string,
  now: Date,
  maxRows: number,
  targetBranch?: string,
): Promise<{ uploads: number; failed: CommitFailure[] } | null> {
  const { rows } = await db.query<{
    uploads: number;
    id: string | null;
    parent: string | null;
    classname: string | null;
    name: string | null;
  }>(
    `WITH u AS (
       SELECT pk, received_at FROM uploads WHERE repository_pk = $1 AND commit_sha = $2
        ORDER BY pk DESC LIMIT ${MAX_COMMIT_UPLOADS}
     ), f AS (
       SELECT r.test_pk, u.pk AS upload_pk
         FROM u JOIN test_results r
           ON r.repository_pk = $1 AND r.at = u.received_at AND r.upload_pk = u.pk AND r.outcome = 'fail'
        WHERE NOT EXISTS (
          SELECT 1 FROM test_results p
           WHERE p.test_pk = r.test_pk AND p.at = r.at AND p.upload_pk = r.upload_pk
             AND p.attempt > r.attempt AND p.outcome <> 'fail')
        LIMIT $3
     )
     SELECT (SELECT count(*)::int FROM u) AS uploads, t.id,
            left(t.parent, ${MAX_NAME_PART}) AS parent, left(t.classname, ${MAX_NAME_PART}) AS classname,
            left(t.name, ${MAX_NAME_PART}) AS name
       FROM (SELECT 1) one
       LEFT JOIN f ON true
       LEFT JOIN test_cases t ON t.pk = f.test_pk
      ORDER BY f.upload_pk, f.test_pk`,
    [repository.pk, sha, maxRows],
  );
  const uploads = rows[0]?.uploads ?? 0;
  if (uploads === 0) return null;
  const seen = new Set<string>();
  const found = rows.filter((r) => r.id !== null && !seen.has(r.id) && seen.add(r.id) !== undefined);
  const check =
    found.length === 0
      ? { tests: [] }
      : await checkQuarantine(
          db,
          repository,
          found.map((r) => r.id!),
          now,
        );
  const flaky = new Set(
    check.tests.filter((t) => t.verdict.quarantined || t.status === 'flaky').map((t) => t.testId),
  );
  const passes = targetBranch
    ? await lastPassesOnBranch(
        db,
        repository,
        found.map((r) => r.id!),
        targetBranch,
      )
    : new Map<string, string>();
  return {
    uploads,
    failed: found.map((r) => ({
      testId: r.id!,
      name: displayName(r.parent ?? '', r.classname ?? '', r.name ?? ''),
      flaky: flaky.has(r.id!),
      ...(passes.has(r.id!) ? { passedOnTarget: passes.get(r.id!)! } : {}),
    })),
  };
}

/**
 * Whether CI ever uploaded test results to this repository: a queue whose CI does not upload is not
 * made to wait for an upload after every failed run (uploads_commit_idx's leading column answers it).
 */
export async function repositoryHasUploads(db: Queryable, repository: RepositoryRecord): Promise<boolean> {
  const { rows } = await db.query<{ any: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM uploads WHERE repository_pk = $1) AS any',
    [repository.pk],
  );
  return rows[0]?.any === true;
}

/** `parent › classname › name`, without repeating a part: the name the judge gives (ingest/judge.ts). */
export function displayName(parent: string, classname: string, name: string): string {
  const parts = [parent, classname, name].filter((part) => part !== '');
  return parts.filter((part, i) => part !== parts[i - 1]).join(' › ');
}
