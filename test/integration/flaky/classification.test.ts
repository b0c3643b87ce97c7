/**
 * Classification on ingest and on the schedule, on the real database: a same-commit disagreement
 * makes a test flaky at once (one history row), a re-send records nothing, consecutive failing
 * commits make a test broken, and the periodic re-evaluation heals a test by time alone.
 */
import { createHarness, type Harness, junit } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness('flaky_classify');
});
afterAll(() => h.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function statusOf(name: string) {
  const { rows } = await h.pool.query<{ status: string; status_reason: string; status_at: Date }>(
    `SELECT status, status_reason, status_at FROM test_cases WHERE name = $1`,
    [name],
  );
  return rows[0];
}

async function historyOf(name: string) {
  const { rows } = await h.pool.query<{ from_status: string | null; to_status: string; trigger: string }>(
    `SELECT from_status, to_status, trigger FROM test_status_history h JOIN test_cases t ON t.pk = h.test_pk
     WHERE t.name = $1 ORDER BY h.pk`,
    [name],
  );
  return rows;
}

test('a fail then a pass on one commit flips the test to flaky, with one history row', async () => {
  const upload = (id: string, outcomes: string, sha: string) =>
    h.uploadJson({ upload_id: id, commit_sha: sha, branch: 'feature/x', pr_number: 7 }, [
      { name: 'junit.xml', content: junit({ checkout: outcomes }) },
    ]);
  expect((await upload('c-1', 'P', 'aaa1111')).json()).toMatchObject({ created: true, status_changes: 0 });
  expect(await statusOf('checkout')).toMatchObject({ status: 'healthy', status_reason: 'no_signal' });
  h.tick(HOUR);
  expect((await upload('c-2', 'F', 'bbb2222')).json()).toMatchObject({ status_changes: 0 });
  h.tick(HOUR);
  const flip = await upload('c-3', 'P', 'bbb2222');
  expect(flip.json()).toMatchObject({ status_changes: 1 });
  expect(await statusOf('checkout')).toEqual({
    status: 'flaky',
    status_reason: 'mixed_outcomes_same_commit:sha=bbb2222',
    status_at: h.clock.now,
  });
  expect(await historyOf('checkout')).toEqual([
    { from_status: null, to_status: 'healthy', trigger: 'ingest' },
    { from_status: 'healthy', to_status: 'flaky', trigger: 'ingest' },
  ]);

  // Re-sending changes nothing, and records nothing.
  expect((await upload('c-3', 'P', 'bbb2222')).json()).toMatchObject({ created: false, status_changes: 0 });
  expect(await historyOf('checkout')).toHaveLength(2);
});

test('the schedule’s re-evaluation heals a flaky test by time alone, and is idempotent', async () => {
  for (let i = 0; i < 10; i += 1) {
    h.tick(4 * HOUR);
    await h.uploadJson({ upload_id: `heal-${i}`, commit_sha: `ccc${i}`, branch: 'main' }, [
      { name: 'junit.xml', content: junit({ checkout: 'P' }) },
    ]);
  }
  expect(await statusOf('checkout')).toMatchObject({ status: 'flaky' });
  h.tick(8 * DAY);
  const first = await h.store.reevaluate();
  expect(first.changed).toBeGreaterThanOrEqual(1);
  expect(await statusOf('checkout')).toMatchObject({ status: 'healthy', status_reason: 'recovered' });
  expect((await historyOf('checkout')).at(-1)).toEqual({
    from_status: 'flaky',
    to_status: 'healthy',
    trigger: 'schedule',
  });
  const again = await h.store.reevaluate();
  expect(again.changed).toBe(0);
  expect(await historyOf('checkout')).toHaveLength(3);
});

test('three consecutive stable commits failing make a test broken', async () => {
  for (const sha of ['ddd1', 'ddd2', 'ddd3']) {
    h.tick(HOUR);
    await h.uploadMultipart({ upload_id: `broken-${sha}`, commit_sha: sha, branch: 'main' }, [
      { name: 'junit.xml', content: junit({ payment: 'F', other: 'P' }, { classname: 'shop.Pay' }) },
    ]);
  }
  expect(await statusOf('payment')).toMatchObject({
    status: 'broken',
    status_reason: 'consecutive_failing_commits:3',
  });
  expect(await statusOf('other')).toMatchObject({ status: 'healthy' });
});

test('an infrastructure upload (most results failed) is left out of classification', async () => {
  const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`infra-${i}`, 'F']));
  const res = await h.uploadJson({ upload_id: 'infra', commit_sha: 'eee1', branch: 'main' }, [
    { name: 'junit.xml', content: junit(many, { classname: 'shop.Infra' }) },
  ]);
  expect(res.json()).toMatchObject({ infra: true, failures: 25 });
  expect(await statusOf('infra-0')).toMatchObject({ status: 'healthy' });
});
