/**
 * Fold lanes (issue 26, ADR 0018 amended): one repository whose fold cannot go on (here its tests'
 * rows are locked by another transaction; in production a batch of 20,000 tests seen for the first
 * time takes seconds) does not hold another repository's uploads behind it when the loop has two
 * lanes; with one lane, as before, it does. State-based: the stuck fold is seen waiting on its lock in
 * pg_stat_activity, then the other repository's pending rows are counted.
 */
import type { PoolClient } from 'pg';
import { createFoldLoop, type FoldLoop } from '../../../flaky/fold';
import { createHarness, type Harness, junit, REPO } from './harness';

const OTHER_REPO = { ...REPO, name: 'cart' };

let h: Harness;
beforeEach(async () => {
  // Acknowledged, not folded: the loops below fold.
  h = await createHarness('fold_lanes', undefined, { fold: { kind: 'async', wake: () => undefined } });
});
afterEach(async () => {
  await h.close();
});

async function uploadTo(repo: typeof REPO, id: string): Promise<void> {
  const answer = await h.uploadJson({ upload_id: id, repo }, [
    { name: 'junit.xml', content: junit({ a: 'P', b: 'F', c: 'P' }) },
  ]);
  expect(answer.statusCode).toBe(200);
}

const pendingOf = async (repo: typeof REPO) =>
  (
    await h.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM flaky_fold_pending p JOIN repositories r ON r.pk = p.repository_pk
        WHERE r.name = $1`,
      [repo.name],
    )
  ).rows[0]!.n;

/** Locks every test row of `repo` in an open transaction: that repository's fold waits for it. */
async function holdTests(repo: typeof REPO): Promise<PoolClient> {
  const client = await h.pool.connect();
  await client.query('BEGIN');
  const { rowCount } = await client.query(
    `SELECT t.pk FROM test_cases t JOIN repositories r ON r.pk = t.repository_pk WHERE r.name = $1 FOR UPDATE OF t`,
    [repo.name],
  );
  expect(rowCount).toBeGreaterThan(0);
  return client;
}

/** Until `check` holds, polling; fails with `what` after 30 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 30_000; !(await check());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const foldWaitsOnALock = async () =>
  (
    await h.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'`,
    )
  ).rows[0]!.n > 0;

async function scenario(concurrency: number): Promise<{ otherPending: number; stuckPending: number }> {
  // The stuck repository is created first, so each pass comes to it first (repositories in key order).
  await uploadTo(REPO, 'shop-1');
  await uploadTo(OTHER_REPO, 'cart-1');
  const held = await holdTests(REPO);
  let loop: FoldLoop | undefined;
  try {
    loop = createFoldLoop(h.pool, { concurrency, intervalMs: 20 });
    loop.start();
    await until("the stuck repository's fold waits on its tests' lock", foldWaitsOnALock);
    if (concurrency > 1)
      await until("the other repository's upload is folded", async () => (await pendingOf(OTHER_REPO)) === 0);
    const counts = { otherPending: await pendingOf(OTHER_REPO), stuckPending: await pendingOf(REPO) };
    await held.query('ROLLBACK');
    // Released, the stuck repository's upload is folded too.
    await until(
      'every upload is folded',
      async () => (await pendingOf(REPO)) + (await pendingOf(OTHER_REPO)) === 0,
    );
    return counts;
  } finally {
    await held.query('ROLLBACK').catch(() => undefined);
    held.release();
    await loop?.stop();
  }
}

test('with two lanes, a repository whose fold is stuck does not hold up another repository', async () => {
  expect(await scenario(2)).toEqual({ otherPending: 0, stuckPending: 1 });
});

test('with one lane, it does (the behaviour the lanes fix)', async () => {
  expect(await scenario(1)).toEqual({ otherPending: 1, stuckPending: 1 });
});
