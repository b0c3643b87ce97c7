/**
 * The landing check (docs/git-host.md, "Landing proof") on the real PostgreSQL and real git: merged
 * transitions with a landing proof are kept in `landings` by the event log; the check compares them
 * again on the host and finds the ones changed outside the queue (the landed commit's id now holds
 * another tree, the branch was rewritten without it, or main did not hold the tested tree right after
 * the landing), logs each and counts them in `railyard_landings_changed`; a landing found changed is
 * not checked again.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { Registry } from 'prom-client';
import { createLandingCheckActivities } from '../../../activities/landing-check';
import { registerLandingMetrics } from '../../../events/landing-metrics';
import { appendToLog } from '../../../events/store/log-store';
import type { TransitionEvent } from '../../../events/types';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';
import { createMigratedDatabase } from '../../support/postgres';
import { submission } from '../../unit/events/fixtures';

let pool: Pool;
let fx: GitFixture & { base: string };
let organisationId: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('landings'));
  const { rows } = await pool.query<{ id: string }>(
    'INSERT INTO organisations (slug) VALUES ($1) RETURNING id',
    [`landings-${randomUUID().slice(0, 8)}`],
  );
  organisationId = rows[0]!.id;
  fx = await createRepoWithMain();
});
afterAll(async () => {
  fx?.cleanup();
  await pool?.end();
});

const treeOf = (sha: string) => fx.bareGit('rev-parse', `${sha}^{tree}`);

/** PR `n` merged as `sha`, with the proof the queue records (tested and landed trees). */
function merged(
  n: number,
  sha: string,
  proof: { testedTree: string; landedTree: string },
): TransitionEvent[] {
  const at = Date.now() - 60_000 + n;
  return submission({ organisationId, repo: fx.repo, prNumber: n }, [
    { to: 'pending', at },
    { to: 'merged', at: at + 1 },
  ]).map((e) => (e.to === 'merged' ? { ...e, detail: { kind: 'landing', sha, ...proof } } : e));
}

test('landings changed outside the queue are found, logged and counted; the others hold', async () => {
  // main: base → c1 → c2 → c3, each a landing of the queue that held the tested tree.
  const shas: string[] = [];
  for (const n of [1, 2, 3]) {
    shas.push(fx.commit(`PR ${n}`, { [`f${n}.txt`]: `${n}\n` }));
    fx.pushBranch('main', shas.at(-1)!);
  }
  const [c1, c2, c3] = shas as [string, string, string];
  const events = [
    ...merged(1, c1, { testedTree: treeOf(c1), landedTree: treeOf(c1) }),
    ...merged(2, c2, { testedTree: treeOf(c2), landedTree: treeOf(c2) }),
    ...merged(3, c3, { testedTree: treeOf(c3), landedTree: treeOf(c3) }),
    // PR 4: main did not hold the tested tree right after its landing (recorded so by the queue).
    ...merged(4, c1, { testedTree: treeOf(c2), landedTree: treeOf(c1) }),
  ];
  const db = await pool.connect();
  try {
    await db.query('BEGIN');
    await appendToLog(db, events);
    await appendToLog(db, events); // a retried batch writes nothing twice
    await db.query('COMMIT');
  } finally {
    db.release();
  }
  expect(
    (await pool.query('SELECT 1 FROM landings WHERE organisation_id = $1', [organisationId])).rowCount,
  ).toBe(4);

  // Outside the queue: c2's id made to resolve to another commit, and main rewritten back to c2.
  fx.bareGit('replace', c2, fx.bareGit('commit-tree', `${c1}^{tree}`, '-p', c1, '-m', 'swapped'));
  fx.bareGit('update-ref', 'refs/heads/main', c2);

  const said: string[] = [];
  const check = createLandingCheckActivities({
    pool,
    gitHost: fx.host,
    say: (_level, message, meta) => said.push(`${message} ${JSON.stringify(meta)}`),
  });
  expect(await check.checkRecentLandings()).toEqual({ checked: 4, held: 1, changed: 3, skipped: 0 });
  const { rows } = await pool.query<{ pr_number: string; check_state: string; check_detail: string | null }>(
    'SELECT pr_number, check_state, check_detail FROM landings WHERE organisation_id = $1 ORDER BY pr_number',
    [organisationId],
  );
  const short = (s: string) => s.slice(0, 12);
  expect(rows.map((r) => [Number(r.pr_number), r.check_state])).toEqual([
    [1, 'held'],
    [2, 'changed'],
    [3, 'changed'],
    [4, 'changed'],
  ]);
  expect(rows[1]!.check_detail).toBe(
    `github.com/acme/widgets@main (#2): the landed commit ${short(c2)} now holds tree ${short(treeOf(c1))} on the host, not the landed tree ${short(
      fx.bareGit('--no-replace-objects', 'rev-parse', `${c2}^{tree}`),
    )}.`,
  );
  expect(rows[2]!.check_detail).toMatch(
    /the landed commit \w+ is no longer on main \(the branch was rewritten/,
  );
  expect(rows[3]!.check_detail).toMatch(
    /right after landing \w+ the branch held tree \w+, not the tested tree/,
  );
  expect(said.filter((l) => l.startsWith('landing changed outside the queue'))).toHaveLength(3);

  // The gauge the alert reads; a landing found changed is not checked again.
  const registry = new Registry();
  registerLandingMetrics(registry, pool);
  expect(await registry.metrics()).toMatch(/^railyard_landings_changed 3$/m);
  expect(await check.checkRecentLandings()).toEqual({ checked: 1, held: 1, changed: 0, skipped: 0 });
});
