/**
 * Jobs claimed but never received (issue 27) on the real PostgreSQL (test-runs/store/executor-jobs.ts,
 * test-runs/executor-dispatch.ts): a claim its executor never touched goes back to the queue under a new
 * id after the hand-over, keeping its place, and is kept alive meanwhile; a claim its executor touched
 * (content fetched, heartbeats) is never taken from it; a claim taken for a caller that left during the
 * claim goes back at once. The hand-over's age is set in the rows, not waited for.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createExecutorCredentials } from '../../../test-runs/store/executor-credentials';
import { createExecutorJobs, type ExecutorJobs } from '../../../test-runs/store/executor-jobs';
import { createExecutorDispatch, type ActivityCompletion } from '../../../test-runs/executor-dispatch';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let jobs: ExecutorJobs;
let executorId: string;
const taskQueue = `undelivered-${randomUUID()}`;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('undelivered_claims'));
  jobs = createExecutorJobs(pool);
  const added = await createExecutorCredentials(pool).add(`undelivered-${randomUUID().slice(0, 8)}`);
  if (added.kind !== 'added') throw new Error('no credential');
  executorId = added.executor.id;
});
afterAll(async () => {
  await pool?.end();
});
afterEach(async () => {
  await pool.query('DELETE FROM executor_jobs WHERE task_queue = $1', [taskQueue]);
});

async function enqueue(runId = randomUUID()): Promise<string> {
  const id = await jobs.enqueue({
    taskQueue,
    attempt: 1,
    taskToken: randomBytes(16),
    input: {
      runId,
      repo: { host: 'github.com', owner: 'acme', name: 'app' },
      branchName: `railyard-merge/pr-1/${runId}`,
      headSha: 'a'.repeat(40),
      command: 'true',
      timeoutMs: 60_000,
      contentToken: 'c'.repeat(43),
    },
  });
  if (!id) throw new Error('not enqueued');
  return id;
}

/** The job's claim (and last touch) made `seconds` older, as if that long had passed. */
const age = (jobId: string, seconds: number) =>
  pool.query(
    `UPDATE executor_jobs SET claimed_at = claimed_at - make_interval(secs => $2),
       heartbeat_at = heartbeat_at - make_interval(secs => $2) WHERE id = $1`,
    [jobId, seconds],
  );
const rowOf = async (runId: string) =>
  (
    await pool.query<{ id: string; state: string; created_at: Date }>(
      'SELECT id, state, created_at FROM executor_jobs WHERE test_run_id = $1',
      [runId],
    )
  ).rows[0];

test('an untouched claim goes back to the queue under a new id after the hand-over, keeping its place', async () => {
  const runId = randomUUID();
  await enqueue(runId);
  const before = await rowOf(runId);
  const claimed = await jobs.claim(executorId, taskQueue);
  expect(claimed?.id).toBe(before!.id);
  // In hand-over: still kept alive with the queued jobs, not yet given back.
  expect((await jobs.queued(taskQueue)).map((j) => j.id)).toEqual([claimed!.id]);
  expect(await jobs.requeueUndelivered(taskQueue, 10_000)).toBe(0);
  await age(claimed!.id, 11);
  expect(await jobs.requeueUndelivered(taskQueue, 10_000)).toBe(1);
  const after = await rowOf(runId);
  expect(after).toMatchObject({ state: 'queued', created_at: before!.created_at });
  expect(after!.id).not.toBe(claimed!.id);
  // Whoever got the old id after all can neither run on with it nor report it.
  expect(await jobs.touch(claimed!.id, executorId)).toBeNull();
  expect(
    await jobs.settle(claimed!.id, executorId, () => Promise.resolve({ drop: true, result: 1 })),
  ).toEqual({
    kind: 'missing',
  });
  // The next claim takes it again.
  expect((await jobs.claim(executorId, taskQueue))?.id).toBe(after!.id);
});

test('a claim its executor touched is never given back, however long ago the claim', async () => {
  const runId = randomUUID();
  await enqueue(runId);
  const claimed = await jobs.claim(executorId, taskQueue);
  // The content fetch and heartbeats touch it; only the claim is made old.
  await pool.query(`UPDATE executor_jobs SET claimed_at = claimed_at - interval '60 seconds' WHERE id = $1`, [
    claimed!.id,
  ]);
  expect(await jobs.touch(claimed!.id, executorId)).not.toBeNull();
  expect(await jobs.requeueUndelivered(taskQueue, 10_000)).toBe(0);
  expect(await jobs.release(claimed!.id, executorId)).toBe(false);
  expect(await jobs.queued(taskQueue)).toEqual([]);
  expect(await rowOf(runId)).toMatchObject({ id: claimed!.id, state: 'claimed' });
});

test("another task queue's untouched claims are not given back", async () => {
  const runId = randomUUID();
  await enqueue(runId);
  const claimed = await jobs.claim(executorId, taskQueue);
  await age(claimed!.id, 60);
  expect(await jobs.requeueUndelivered(`${taskQueue}-other`, 10_000)).toBe(0);
  expect(await rowOf(runId)).toMatchObject({ id: claimed!.id, state: 'claimed' });
});

test('a job taken for a caller that left during the claim goes back at once, under a new id', async () => {
  const runId = randomUUID();
  const id = await enqueue(runId);
  const gone = new AbortController();
  // The executor's connection closes while the claim's UPDATE runs.
  const racing: ExecutorJobs = {
    ...jobs,
    async claim(...args) {
      const job = await jobs.claim(...args);
      gone.abort();
      return job;
    },
  };
  const unused = new Proxy({} as ActivityCompletion, {
    get: () => () => Promise.reject(new Error('Temporal is not needed for a claim')),
  });
  const dispatch = createExecutorDispatch({ jobs: racing, activities: unused, taskQueue, claimPollMs: 10 });
  expect(await dispatch.claim(executorId, { waitMs: 1_000, signal: gone.signal })).toBeNull();
  const after = await rowOf(runId);
  expect(after?.state).toBe('queued');
  expect(after?.id).not.toBe(id);
});
