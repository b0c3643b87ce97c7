/**
 * appendTransitions against the real PostgreSQL: the same batch twice leaves the same rows (an activity
 * retry), the current-state projection only moves forward when batches arrive out of order, and every
 * field of a transition survives the round trip.
 */
import type { Pool } from 'pg';
import { createEventActivities } from '../../../activities/events';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createMigratedDatabase } from '../../support/postgres';
import { MINUTE, submission } from '../../unit/events/fixtures';

let pool: Pool;
let orgId: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('event_log'));
  const keys = createApiKeyStore(pool);
  orgId = (await keys.authenticate((await keys.create('acme')).key))!.id;
});
afterAll(() => pool.end());

const T = Date.parse('2026-03-01T12:00:00Z');
const dump = async () =>
  (await pool.query('SELECT * FROM pr_transitions ORDER BY submission_id, seq')).rows as Record<
    string,
    unknown
  >[];

test('the same batch twice leaves the same rows; a repeat reports nothing new', async () => {
  const { appendTransitions } = createEventActivities({ pool, allowPrivateWebhookUrls: false });
  const events = [
    ...submission({ organisationId: orgId, prNumber: 1, submissionId: 'sub-1' }, [
      { to: 'not_ready', at: T },
      { to: 'pending', at: T + MINUTE },
      { to: 'testing', at: T + 2 * MINUTE, testRunId: 'run-1', batch: [1, 2], isBisection: true },
    ]),
    ...submission({ organisationId: orgId, prNumber: 2, submissionId: 'sub-2' }, [
      { to: 'not_ready', at: T },
    ]),
  ];
  expect(await appendTransitions({ events })).toEqual({ appended: 4, deliveries: 0 });
  const first = await dump();
  expect(await appendTransitions({ events })).toEqual({ appended: 0, deliveries: 0 });
  expect(await appendTransitions({ events: events.slice(1) })).toEqual({ appended: 0, deliveries: 0 });
  expect(await dump()).toEqual(first);
  expect(first).toHaveLength(4);
  expect(first[2]).toMatchObject({
    submission_id: 'sub-1',
    seq: 3,
    organisation_id: orgId,
    host: 'github.com',
    owner: 'acme',
    name: 'app',
    target_branch: 'main',
    pr_number: '1',
    from_state: 'pending',
    to_state: 'testing',
    reason: 'TEST_RUN_STARTED',
    test_run_id: 'run-1',
    batch: ['1', '2'],
    is_bisection: true,
    test_branch: 'railyard-merge/pr-1/run-1',
    test_branch_sha: 'a'.repeat(40),
    at: new Date(T + 2 * MINUTE),
    title: 'PR 1',
    author: 'octocat',
    head_sha: 'b'.repeat(40),
  });
  const queues = await pool.query('SELECT host, owner, name, target_branch FROM event_log_queues');
  expect(queues.rows).toEqual([{ host: 'github.com', owner: 'acme', name: 'app', target_branch: 'main' }]);
});

test('batches landing out of order: the current state keeps the highest seq', async () => {
  const { appendTransitions } = createEventActivities({ pool, allowPrivateWebhookUrls: false });
  const events = submission({ organisationId: orgId, prNumber: 3, submissionId: 'sub-3' }, [
    { to: 'not_ready', at: T },
    { to: 'pending', at: T + MINUTE },
    { to: 'testing', at: T + 2 * MINUTE, testRunId: 'run-3' },
    { to: 'merged', at: T + 3 * MINUTE, testRunId: 'run-3' },
  ]);
  await appendTransitions({ events: events.slice(2) });
  await appendTransitions({ events: events.slice(0, 2) });
  const { rows } = await pool.query(`SELECT state, seq FROM pr_submissions WHERE submission_id = 'sub-3'`);
  expect(rows).toEqual([{ state: 'merged', seq: 4 }]);
  const count = await pool.query(
    `SELECT count(*)::int AS n FROM pr_transitions WHERE submission_id = 'sub-3'`,
  );
  expect(count.rows[0].n).toBe(4);
});

test('an empty batch is a no-op', async () => {
  const { appendTransitions } = createEventActivities({ pool, allowPrivateWebhookUrls: false });
  expect(await appendTransitions({ events: [] })).toEqual({ appended: 0, deliveries: 0 });
});
