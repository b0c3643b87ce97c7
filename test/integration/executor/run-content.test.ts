/**
 * Run content and run slots on the real PostgreSQL (test-runs/store/run-content.ts, run-slots.ts)
 * and the API's route for executors (api/routes/executor/run-content.ts) over real HTTP: a token reads
 * its one bundle, byte for byte, until its run ends; the per-organisation cap holds under a race.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pool } from 'pg';
import { createRunContentStore, RunContentTooLarge } from '../../../test-runs/store/run-content';
import { createRunSlots } from '../../../test-runs/store/run-slots';
import { startContentServer } from '../../support/executor';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let server: { url: string; close(): Promise<void> };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-content-'));
const repo = { host: 'github.com', owner: 'acme', name: 'app' };

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('run_content'));
  server = await startContentServer(pool);
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

const get = (token?: string) =>
  fetch(
    `${server.url}/v1/executor/run-content`,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );

test('a token reads its bundle byte for byte (several chunks), and nothing after its run ends', async () => {
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

  const res = await get(token);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-length')).toBe(String(bundle.length));
  expect(Buffer.from(await res.arrayBuffer()).equals(bundle)).toBe(true);

  await contents.drop(runId);
  const after = await get(token);
  expect(after.status).toBe(404);
  expect(((await after.json()) as { message: string }).message).toMatch(/the run ended or its token expired/);
});

test('no token, a malformed one or a guessed one: 401, 401, 404, with a sentence', async () => {
  const none = await get();
  expect(none.status).toBe(401);
  expect(((await none.json()) as { message: string }).message).toMatch(/Bearer <token>/);
  expect((await get('not a token!')).status).toBe(401);
  expect((await get(randomBytes(32).toString('base64url'))).status).toBe(404);
});

test('an expired token reads nothing', async () => {
  const contents = createRunContentStore(pool);
  const file = path.join(dir, 'b.bundle');
  fs.writeFileSync(file, 'bundle');
  const token = await contents.stage({
    organisationId: await organisation(),
    runId: randomUUID(),
    repo,
    sha: 'b'.repeat(40),
    bundlePath: file,
    ttlMs: 1,
  });
  await new Promise((r) => setTimeout(r, 50));
  expect((await get(token)).status).toBe(404);
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
