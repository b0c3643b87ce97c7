/**
 * A queue's own history for the estimate of time to merge (events/store/test-durations.ts) on the real
 * PostgreSQL: test runs from entering `testing` to the first verdict, landings from tests passed to
 * merged; a run that never started (its branch could not be built) is not a test run (issue 29: the
 * demo's estimates were half a second from one), nor are another queue's, or ones older than 30 days.
 */
import type { Pool } from 'pg';
import { createTestDurations } from '../../../events/store/test-durations';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let orgId: string;
const QUEUE = { host: 'local', owner: 'demo', name: 'app', targetBranch: 'main' };
const SECOND = 1_000;
const T = Date.now() - 60 * 60 * SECOND;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('test_durations'));
  orgId = (await pool.query<{ id: string }>(`INSERT INTO organisations (slug) VALUES ('demo') RETURNING id`))
    .rows[0]!.id;
});
afterAll(() => pool.end());

let seq = 0;
/** One transition of PR `pr` (its submission `sub-<pr>`), `ms` after T. */
async function transition(
  pr: number,
  from: string | null,
  to: string,
  reason: string,
  run: string | null,
  ms: number,
  queue = QUEUE,
) {
  seq += 1;
  await pool.query(
    `INSERT INTO pr_transitions (submission_id, seq, organisation_id, host, owner, name, target_branch,
       pr_number, from_state, to_state, reason, test_run_id, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      `sub-${queue.name}-${pr}`,
      seq,
      orgId,
      queue.host,
      queue.owner,
      queue.name,
      queue.targetBranch,
      pr,
      from,
      to,
      reason,
      run,
      new Date(T + ms),
    ],
  );
}

test('runs that reached a verdict and landings of merged PRs, newest first; never-started runs left out', async () => {
  // #1 and #2 tested together for 5 s; #1 merged 2 s after passing, #2 3 s after.
  await transition(1, 'pending', 'testing', 'TEST_RUN_STARTED', 'run-a', 0);
  await transition(2, 'pending', 'testing', 'TEST_RUN_STARTED', 'run-a', 0);
  await transition(1, 'testing', 'tests_passed', 'TEST_RUN_PASSED', 'run-a', 5 * SECOND);
  await transition(2, 'testing', 'tests_passed', 'TEST_RUN_PASSED', 'run-a', 5 * SECOND);
  await transition(1, 'tests_passed', 'merged', 'MERGE_GRAPH_MERGE', 'run-a', 7 * SECOND);
  await transition(2, 'tests_passed', 'merged', 'MERGE_GRAPH_MERGE', 'run-a', 8 * SECOND);
  // #3's run could not be built (a conflict): it "ended" at once, and is no test run.
  await transition(3, 'pending', 'testing', 'TEST_RUN_STARTED', 'run-b', 10 * SECOND);
  await transition(
    3,
    'testing',
    'pending_failure',
    'START_TEST_RUN_MERGE_CONFLICT',
    'run-b',
    10 * SECOND + 200,
  );
  // #4 failed after 9 s.
  await transition(4, 'pending', 'testing', 'TEST_RUN_STARTED', 'run-c', 20 * SECOND);
  await transition(4, 'testing', 'failed', 'TEST_RUN_COMMAND_FAILED', 'run-c', 29 * SECOND);
  // Another queue's run, and a run of 40 days ago, count for nothing here.
  const other = { ...QUEUE, name: 'other' };
  await transition(5, 'pending', 'testing', 'TEST_RUN_STARTED', 'run-d', 0, other);
  await transition(5, 'testing', 'tests_passed', 'TEST_RUN_PASSED', 'run-d', 1 * SECOND, other);
  const old = -40 * 24 * 3600 * SECOND;
  await transition(6, 'pending', 'testing', 'TEST_RUN_STARTED', 'run-e', old);
  await transition(6, 'testing', 'failed', 'TEST_RUN_COMMAND_FAILED', 'run-e', old + 60 * SECOND);

  expect(await createTestDurations(pool)({ organisationId: orgId, ...QUEUE })).toEqual({
    testRuns: [9 * SECOND, 5 * SECOND],
    landings: [3 * SECOND, 2 * SECOND],
  });
});
