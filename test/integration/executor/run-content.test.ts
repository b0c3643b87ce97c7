/**
 * Run content, run slots and executor jobs on the real PostgreSQL (test-runs/store/run-content.ts,
 * run-slots.ts, executor-jobs.ts) and the API's routes for executors (api/routes/executor/) over real
 * HTTP: an executor reads the bundle of a job it claimed, byte for byte, until its run ends, and nothing
 * of a job it does not hold, nor heartbeats, reports or fails another executor's job (issue 24); a wrong or revoked credential is a 401 with one sentence; a job is claimed
 * by one executor only under a race; the per-organisation cap holds under a race.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pool } from 'pg';
import { createRunContentStore, RunContentTooLarge } from '../../../test-runs/store/run-content';
import { createRunSlots } from '../../../test-runs/store/run-slots';
import { createExecutorCredentials } from '../../../test-runs/store/executor-credentials';
import { createExecutorJobs } from '../../../test-runs/store/executor-jobs';
import { enqueueRunJob } from '../../support/executor-job';
import { startExecutorApi, type ExecutorApiServer } from '../../support/executor';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let server: ExecutorApiServer;
let credential: string;
const taskQueue = `run-content-${randomUUID()}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-content-'));
const repo = { host: 'github.com', owner: 'acme', name: 'app' };

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('run_content'));
  server = await startExecutorApi({ pool, taskQueue, claimWaitMs: 200 });
  credential = await server.issue();
});
afterAll(async () => {
  await server.close();
  await pool.end();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function organisation(): Promise<string> {
  const id = randomUUID();
  await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [id, `o-${id.slice(0, 8)}`]);
  return id;
}

const auth = (c: string) => ({ authorization: `Bearer ${c}` });
const claim = (c = credential) =>
  fetch(`${server.url}/v1/executor/jobs/claim`, { method: 'POST', headers: auth(c) });
const content = (jobId: string, c = credential) =>
  fetch(`${server.url}/v1/executor/jobs/${jobId}/content`, { headers: auth(c) });

const enqueue = (runId: string, contentToken: string, attempt = 1) =>
  enqueueRunJob(pool, { taskQueue, repo, runId, contentToken, attempt });

test('an executor reads the bundle of the job it claimed byte for byte (several chunks), nothing after its run ends', async () => {
  const contents = createRunContentStore(pool);
  const bundle = randomBytes(2_500_000); // three chunks of at most 1 MiB
  const file = path.join(dir, 'a.bundle');
  fs.writeFileSync(file, bundle);
  const runId = randomUUID();
  const token = await contents.stage({
    organisationId: await organisation(),
    runId,
    repo,
    sha: 'a'.repeat(40),
    bundlePath: file,
  });
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM run_content_chunks');
  expect(rows[0].n).toBeGreaterThanOrEqual(3);
  // Only the token's digest is stored.
  const stored = await pool.query('SELECT token_sha256 FROM run_contents');
  expect(JSON.stringify(stored.rows)).not.toContain(token);

  const jobId = await enqueue(runId, token);
  const claimed = await claim();
  expect(claimed.status).toBe(200);
  const job = (await claimed.json()) as { id: string; run: Record<string, unknown> };
  expect(job.id).toBe(jobId);
  // The content token stays with the API: the executor is told what to run, not how to fetch it.
  expect(JSON.stringify(job)).not.toContain(token);

  const res = await content(job.id);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-length')).toBe(String(bundle.length));
  expect(Buffer.from(await res.arrayBuffer()).equals(bundle)).toBe(true);

  // Another executor's credential reads nothing of it.
  const other = await content(job.id, await server.issue());
  expect([other.status, await other.text()]).toEqual([
    404,
    `Job ${job.id} is not held by this executor: it was reported, retried elsewhere or never yours.`,
  ]);

  await contents.drop(runId);
  const after = await content(job.id);
  expect([after.status, await after.text()]).toEqual([
    404,
    "The run's content is gone: the run ended or its content expired.",
  ]);
});

test.each([
  ['heartbeat', 'POST', undefined, undefined],
  ['report', 'PUT', 'application/octet-stream', Buffer.from('packed')],
  ['failure', 'POST', 'application/json', JSON.stringify({ kind: 'executor_error', message: 'not mine' })],
] as const)(
  "another executor's %s of a job it does not hold: the one 404 sentence, and the holder keeps the job",
  async (what, method, type, body) => {
    const contents = createRunContentStore(pool);
    const file = path.join(dir, `${what}.bundle`);
    const bundle = randomBytes(1_000);
    fs.writeFileSync(file, bundle);
    const runId = randomUUID();
    const token = await contents.stage({
      organisationId: await organisation(),
      runId,
      repo,
      sha: 'a'.repeat(40),
      bundlePath: file,
    });
    const jobId = await enqueue(runId, token);
    if (jobId === null) throw new Error('the job was not enqueued');
    const holder = await server.issue();
    const claimed = (await (await claim(holder)).json()) as { id: string };
    expect(claimed.id).toBe(jobId);
    const res = await fetch(`${server.url}/v1/executor/jobs/${jobId}/${what}`, {
      method,
      headers: { ...auth(await server.issue()), ...(type ? { 'content-type': type } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
    expect([res.status, await res.text()]).toEqual([
      404,
      `Job ${jobId} is not held by this executor: it was reported, retried elsewhere or never yours.`,
    ]);
    const still = await content(jobId, holder);
    expect(still.status).toBe(200);
    expect(Buffer.from(await still.arrayBuffer()).equals(bundle)).toBe(true);
    await contents.drop(runId);
    await createExecutorJobs(pool).dropRun(runId);
  },
);

test('no credential, a malformed one, a guessed one, an API key or a revoked one: 401 with one sentence', async () => {
  const none = await fetch(`${server.url}/v1/executor/jobs/claim`, { method: 'POST' });
  expect([none.status, await none.text()]).toEqual([
    401,
    'The Authorization header must carry an executor credential as "Bearer <credential>".',
  ]);
  const wrong = 'The executor credential is not valid or has been revoked.';
  for (const bad of [
    'not-a-credential',
    `rye_${randomBytes(32).toString('base64url')}`,
    `ry_${randomBytes(32).toString('base64url')}`,
  ]) {
    const res = await claim(bad);
    expect([res.status, await res.text()]).toEqual([401, wrong]);
  }
  const name = `revoked-${randomUUID().slice(0, 8)}`;
  const revoked = await server.issue(name);
  expect((await claim(revoked)).status).toBe(204);
  expect(await createExecutorCredentials(pool).revoke(name)).toBe(true);
  const after = await claim(revoked);
  expect([after.status, await after.text()]).toEqual([401, wrong]);
  // Only its digest is stored.
  const stored = await pool.query('SELECT token_sha256, name FROM executors');
  expect(JSON.stringify(stored.rows)).not.toContain(revoked);
});

test('a job is claimed by one executor only, under a race of ten', async () => {
  const runId = randomUUID();
  const jobId = await enqueue(runId, randomBytes(32).toString('base64url'));
  const credentials = await Promise.all(Array.from({ length: 10 }, () => server.issue()));
  const answers = await Promise.all(credentials.map((c) => claim(c)));
  const claimed = await Promise.all(answers.filter((a) => a.status === 200).map((a) => a.json()));
  expect(claimed).toEqual([expect.objectContaining({ id: jobId })]);
  expect(answers.filter((a) => a.status === 204)).toHaveLength(9);
});

test('a later attempt replaces the job of an earlier one, and never the other way round', async () => {
  const runId = randomUUID();
  const first = await enqueue(runId, 'x'.repeat(43));
  const second = await enqueue(runId, 'y'.repeat(43), 2);
  expect(second).not.toBe(first);
  expect(await enqueue(runId, 'z'.repeat(43), 1)).toBeNull();
  const { rows } = await pool.query('SELECT id, attempt FROM executor_jobs WHERE test_run_id = $1', [runId]);
  expect(rows).toEqual([{ id: second, attempt: 2 }]);
  // The earlier attempt's executor, holding the old id, is told it is not its job any more.
  const res = await fetch(`${server.url}/v1/executor/jobs/${first}/heartbeat`, {
    method: 'POST',
    headers: auth(credential),
  });
  expect(res.status).toBe(404);
  await createExecutorJobs(pool).dropRun(runId);
});

test('an expired token reads nothing', async () => {
  const contents = createRunContentStore(pool);
  const file = path.join(dir, 'b.bundle');
  fs.writeFileSync(file, 'bundle');
  const runId = randomUUID();
  const token = await contents.stage({
    organisationId: await organisation(),
    runId,
    repo,
    sha: 'b'.repeat(40),
    bundlePath: file,
    ttlMs: 1,
  });
  await new Promise((r) => setTimeout(r, 50));
  expect(await contents.lookup(token)).toBeNull();
  await enqueue(runId, token);
  const job = (await (await claim()).json()) as { id: string };
  expect((await content(job.id)).status).toBe(404);
  await createExecutorJobs(pool).dropRun(runId);
});

test('a bundle over the bound is refused before anything is stored', async () => {
  const contents = createRunContentStore(pool, { maxBytes: 1024 });
  const file = path.join(dir, 'c.bundle');
  fs.writeFileSync(file, randomBytes(4096));
  const runId = randomUUID();
  await expect(
    contents.stage({
      organisationId: await organisation(),
      runId,
      repo,
      sha: 'c'.repeat(40),
      bundlePath: file,
    }),
  ).rejects.toBeInstanceOf(RunContentTooLarge);
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM run_contents WHERE test_run_id = $1', [
    runId,
  ]);
  expect(rows[0].n).toBe(0);
});

test('run slots: at most the cap per organisation under a race, idempotent per run, others unaffected, expired slots free', async () => {
  const slots = createRunSlots(pool, 2);
  const [busy, other] = [await organisation(), await organisation()];
  const take = (organisationId: string, runId: string, leaseMs = 60_000) =>
    slots.take({ organisationId, runId, workflowId: `wf-${runId}`, leaseMs });
  const runs = Array.from({ length: 10 }, () => randomUUID());
  const taken = await Promise.all(runs.map((runId) => take(busy, runId)));
  expect(taken.filter(Boolean)).toHaveLength(2);
  expect(await slots.held(busy)).toBe(2);
  const holders = runs.filter((_, i) => taken[i]);
  expect(await take(busy, holders[0]!)).toBe(true);
  expect(await take(other, randomUUID())).toBe(true);
  // Releasing names the oldest live waiter of the organisation, for the caller to wake.
  const waiting = runs.filter((_, i) => !taken[i]);
  const { rows } = await pool.query<{ test_run_id: string }>(
    'SELECT test_run_id FROM run_slot_waiters WHERE organisation_id = $1 ORDER BY since, test_run_id',
    [busy],
  );
  expect(rows.map((r) => r.test_run_id).sort()).toEqual([...waiting].sort());
  const oldest = rows[0]!.test_run_id;
  expect(await slots.release(holders[0]!)).toBe(`wf-${oldest}`);
  // The freed slot goes to the oldest waiter: a newcomer and a younger waiter are turned away.
  expect(await take(busy, randomUUID())).toBe(false);
  expect(await take(busy, rows[1]!.test_run_id)).toBe(false);
  expect(await take(busy, oldest)).toBe(true);
  expect(await slots.held(busy)).toBe(2);
});

test('run slots: an expired slot is free again, and a waiter that stopped asking is passed over', async () => {
  const slots = createRunSlots(pool, 1);
  const busy = await organisation();
  const take = (runId: string, leaseMs = 60_000) =>
    slots.take({ organisationId: busy, runId, workflowId: `wf-${runId}`, leaseMs });
  expect(await take(randomUUID(), 1)).toBe(true);
  await new Promise((r) => setTimeout(r, 20));
  const gone = randomUUID();
  expect(await take(gone)).toBe(true); // the 1 ms lease expired
  const dead = randomUUID();
  expect(await take(dead)).toBe(false); // waits: its workflow will be terminated
  await pool.query("UPDATE run_slot_waiters SET seen_at = now() - interval '1 hour' WHERE test_run_id = $1", [
    dead,
  ]);
  expect(await slots.release(gone)).toBeNull(); // nobody live to wake
  expect(await take(randomUUID())).toBe(true); // the dead waiter does not hold the queue
});
