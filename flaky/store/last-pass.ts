/**
 * Where failed tests last passed on a branch (issue 28: "it passed on main at C" in an ejected PR's
 * reason): for each test, the commit of its latest passing result uploaded for that branch of the same
 * repository.
 *
 * Rules: only the repository's own tests and uploads are read (the caller found `repository` by
 * organisation and key; tests by (organisation_id, id), uploads by their pk from the test's results).
 * Bounded: at most MAX_LAST_PASS_TESTS tests, and per test its MAX_PASSES_SCANNED latest passing
 * results (test_results_test_at_idx, index only, newest first), so a test that passes often on other
 * branches costs the same; a pass older than those is not found (the reason then names no commit).
 * Invariant: one statement; a test without such a pass is absent from the answer.
 */
import { type Queryable } from './db';
import { type RepositoryRecord } from './repositories';

export const MAX_LAST_PASS_TESTS = 10;
export const MAX_PASSES_SCANNED = 200;

/** testId → the commit sha of its latest pass on `branch` (within the bounds above). */
export async function lastPassesOnBranch(
  db: Queryable,
  repository: RepositoryRecord,
  testIds: readonly string[],
  branch: string,
): Promise<Map<string, string>> {
  const ids = [...new Set(testIds)].slice(0, MAX_LAST_PASS_TESTS);
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; commit_sha: string }>(
    `SELECT t.id, last.commit_sha
       FROM test_cases t
       CROSS JOIN LATERAL (
         SELECT u.commit_sha
           FROM (SELECT r.upload_pk, r.at FROM test_results r
                  WHERE r.test_pk = t.pk AND r.outcome = 'pass'
                  ORDER BY r.at DESC LIMIT ${MAX_PASSES_SCANNED}) p
           JOIN uploads u ON u.pk = p.upload_pk
          WHERE u.repository_pk = $2 AND u.branch = $4
          ORDER BY p.at DESC LIMIT 1) last
      WHERE t.organisation_id = $1 AND t.repository_pk = $2 AND t.id = ANY($3::uuid[])`,
    [repository.organisationId, repository.pk, ids, branch],
  );
  return new Map(rows.map((r) => [r.id, r.commit_sha]));
}
