/**
 * Durable first, fold later (issue 26, ADR 0018): an acknowledged upload is never lost and folded
 * exactly once. Uploads are acknowledged by a store that folds asynchronously with no fold loop
 * running (the process "crashes" between acknowledgement and fold); a fold process is then SIGKILLed
 * after its batch's writes and before its commit; two fold loops (two replicas restarting) then fold
 * everything, and the rollups, fingerprints, PR failures and classifications equal what the raw rows
 * say, once: the same as a store that folds every upload inline.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { Registry } from 'prom-client';
import { createFoldLoop, createFoldMetrics, foldRepository } from '../../../flaky/fold';
import { tsNode } from '../../../scripts/lib/ts-node';
import { createHarness, type Harness, junit } from './harness';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const UPLOADS = 12;

/** Upload `u`: ten tests, some failing (two messages), some retried, one skipped; odd uploads on a PR. */
function outcomes(u: number): Record<string, string> {
  const tests: Record<string, string> = {};
  for (let t = 0; t < 10; t += 1)
    tests[`t${t}`] = t === 9 ? 'S' : t < 3 && (u + t) % 3 === 0 ? 'FP' : t === 3 && u % 2 === 0 ? 'F' : 'P';
  return tests;
}

async function uploadAll(h: Harness): Promise<void> {
  for (let u = 0; u < UPLOADS; u += 1) {
    h.tick(60_000 * 90); // 1.5 h apart: the uploads span two UTC days
    const answer = await h.uploadJson(
      {
        upload_id: `run-${u}`,
        commit_sha: `sha-${u % 4}`,
        ...(u % 2 === 1 ? { pr_number: 100 + u } : {}),
      },
      [{ name: 'junit.xml', content: junit(outcomes(u), { message: u % 3 === 0 ? 'boom 1' : 'timeout 2' }) }],
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ created: true, results: expect.any(Number) });
  }
}

/** Everything the fold derives, keyed by test id and day, in a stable order. */
async function derived(h: Harness) {
  const q = async (sql: string) => (await h.pool.query<Record<string, unknown>>(sql)).rows;
  return {
    rollups: await q(`SELECT t.id, d.day::text, d.attempts, d.failures, d.infra_attempts, d.infra_failures,
                        d.last_failure_at FROM test_day_rollups d JOIN test_cases t ON t.pk = d.test_pk ORDER BY 1, 2`),
    fingerprints:
      await q(`SELECT t.id, f.day::text, f.fingerprint, f.occurrences, f.summary, f.sample, f.last_seen_at
                             FROM test_failure_fingerprints f JOIN test_cases t ON t.pk = f.test_pk ORDER BY 1, 2, 3`),
    prs: await q(`SELECT t.id, p.day::text, p.pr_number FROM test_pr_failures p JOIN test_cases t ON t.pk = p.test_pk
                   ORDER BY 1, 2, 3`),
    tests: await q(`SELECT id, status, status_reason, last_failure_at, classified_at IS NOT NULL AS classified
                      FROM test_cases ORDER BY id`),
  };
}

/** What the raw rows say the rollups must hold, counted straight from test_results. */
interface Counts {
  attempts: number;
  failures: number;
  rollup_attempts: number;
  rollup_failures: number;
  fingerprint_occurrences: number;
  pending: number;
}

async function rawCounts(h: Harness): Promise<Counts> {
  const { rows } = await h.pool.query<Counts>(
    `SELECT (SELECT count(*)::int FROM test_results WHERE outcome <> 'skip') AS attempts,
            (SELECT count(*)::int FROM test_results WHERE outcome = 'fail') AS failures,
            (SELECT coalesce(sum(attempts + infra_attempts), 0)::int FROM test_day_rollups) AS rollup_attempts,
            (SELECT coalesce(sum(failures + infra_failures), 0)::int FROM test_day_rollups) AS rollup_failures,
            (SELECT coalesce(sum(occurrences), 0)::int FROM test_failure_fingerprints) AS fingerprint_occurrences,
            (SELECT count(*)::int FROM flaky_fold_pending) AS pending`,
  );
  return rows[0]!;
}

let asyncWorld: Harness;
let inlineWorld: Harness;
/** The fold process; killed here too if the test fails before it kills it. */
let child: ChildProcess | undefined;

beforeAll(async () => {
  asyncWorld = await createHarness('flaky_fold_crash', undefined, { fold: { kind: 'async' } });
  inlineWorld = await createHarness('flaky_fold_inline');
});
afterAll(async () => {
  if (child?.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  await asyncWorld?.close();
  await inlineWorld?.close();
});

test('a crash between acknowledgement and fold loses nothing and folds every upload exactly once', async () => {
  await uploadAll(asyncWorld);
  await uploadAll(inlineWorld);

  // Acknowledged: raw rows and the queue, nothing derived yet.
  const acked = await rawCounts(asyncWorld);
  expect(acked.attempts).toBeGreaterThan(UPLOADS * 8);
  expect(acked).toMatchObject({ rollup_attempts: 0, fingerprint_occurrences: 0, pending: UPLOADS });

  // A fold process killed after its batch's writes, before its commit: nothing of it stays.
  const { rows } = await asyncWorld.pool.query<{ pk: string }>(`SELECT pk FROM repositories`);
  const folder = spawn(...tsNode('test/support/fold-process.ts'), {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: asyncWorld.url, FOLD_REPOSITORY_PK: rows[0]!.pk },
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child = folder;
  const exited = new Promise<string | null>((resolve) =>
    folder.once('exit', (_code, signal) => resolve(signal)),
  );
  const said = await new Promise<string>((resolve, reject) => {
    let out = '';
    folder.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    folder.once('exit', (code) =>
      reject(new Error(`fold process exited (${code}) before its commit: ${out}`)),
    );
  });
  expect(said).toBe(`before-commit ${UPLOADS}`);
  process.kill(-folder.pid!, 'SIGKILL');
  expect(await exited).toBe('SIGKILL');
  expect(await rawCounts(asyncWorld)).toEqual(acked);

  // Restart: two replicas' fold loops at once (whichever gets the repository's lock folds it).
  const batches: number[] = [];
  const loops = [1, 2].map(() =>
    createFoldLoop(asyncWorld.pool, {
      intervalMs: 20,
      maxResults: 40,
      onBatch: (o) => batches.push(o.uploads),
    }),
  );
  for (const loop of loops) loop.start();
  const deadline = Date.now() + 30_000;
  while ((await rawCounts(asyncWorld)).pending > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await Promise.all(loops.map((loop) => loop.stop()));

  // Folded once: the rollups equal the raw rows, every upload was in exactly one committed batch.
  const folded = await rawCounts(asyncWorld);
  expect(folded).toEqual({
    attempts: acked.attempts,
    failures: acked.failures,
    rollup_attempts: acked.attempts,
    rollup_failures: acked.failures,
    fingerprint_occurrences: acked.failures,
    pending: 0,
  });
  expect(batches.reduce((a, b) => a + b, 0)).toBe(UPLOADS);
  expect(batches.filter((n) => n > 0).length).toBeGreaterThan(1); // maxResults 40: several batches

  // Folding again folds nothing and changes nothing.
  const before = await derived(asyncWorld);
  expect(await foldRepository(asyncWorld.pool, rows[0]!.pk)).toMatchObject({ uploads: 0, results: 0 });
  expect(await derived(asyncWorld)).toEqual(before);

  // The same as folding every upload inline, one by one (ids are the same: same slug, same names).
  const inline = await derived(inlineWorld);
  expect(before.rollups).toEqual(inline.rollups);
  expect(before.fingerprints).toEqual(inline.fingerprints);
  expect(before.prs).toEqual(inline.prs);
  expect(before.tests.map((t) => ({ ...t, status_reason: undefined }))).toEqual(
    inline.tests.map((t) => ({ ...t, status_reason: undefined })),
  );
  expect(before.tests.every((t) => t.classified)).toBe(true);
  expect(before.prs.length).toBeGreaterThan(0);
}, 90_000);

test('the fold lag is a metric: the oldest acknowledged upload not folded yet, then each upload folded', async () => {
  const registry = new Registry();
  const metrics = createFoldMetrics(registry, asyncWorld.pool);
  const value = async (name: string, suffix = '') =>
    (await registry.getSingleMetric(name)!.get()).values.find(
      (v) => ((v as { metricName?: string }).metricName ?? name) === name + suffix,
    )?.value;

  asyncWorld.tick(60_000);
  const answer = await asyncWorld.uploadJson({ upload_id: 'metrics-1' }, [
    { name: 'junit.xml', content: junit({ a: 'P', b: 'F' }) },
  ]);
  expect(answer.json()).toMatchObject({ created: true, reclassified: 0, status_changes: 0 });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await value('railyard_flaky_fold_lag_seconds')).toBeGreaterThanOrEqual(0.05);

  const loop = createFoldLoop(asyncWorld.pool, { metrics, intervalMs: 20 });
  loop.start();
  const deadline = Date.now() + 30_000;
  while ((await rawCounts(asyncWorld)).pending > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  await loop.stop();
  expect(await value('railyard_flaky_fold_lag_seconds')).toBe(0);
  expect(await value('railyard_flaky_fold_delay_seconds', '_count')).toBe(1);
  expect(await value('railyard_flaky_folded_results_total')).toBe(2);
  expect(await value('railyard_flaky_fold_failures_total')).toBe(0);
});
