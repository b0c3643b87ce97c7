/**
 * Per-test failure summaries (migration 0028, store/test-case-summaries.ts): the fold writes a test's
 * most_common_failures with the days it answers for; get-test-details and list-failing-tests read it
 * while it is valid, and compute the list themselves once a counted day has left the window (until a
 * later fold of the repository recomputes the summary for its day). Either
 * way the answer is the one computed from the fingerprints (checked against the answer with no
 * summary at all), and retention deletes the summaries that counted a day it trims.
 */
import { maintainResults } from '../../../flaky/store/result-maintenance';
import { createHarness, type Harness, junit, REPO } from './harness';

const DAY = 86_400_000;
const START = new Date('2027-03-01T12:00:00.000Z');
const scoped = { repo: REPO, org_url_slug: 'acme' };

let h: Harness;
let id: string;

const details = async () => {
  const res = await h.post('/v1/flaky-tests/get-test-details', { ...scoped, test_id: id });
  expect(res.statusCode).toBe(200);
  return res.body;
};
const failingPage = async () => {
  const end = h.clock.now;
  const res = await h.post('/v1/flaky-tests/list-failing-tests', {
    ...scoped,
    start_time: new Date(end.getTime() - 7 * DAY).toISOString(),
    end_time: end.toISOString(),
    page_query: { page_size: 10 },
  });
  expect(res.statusCode).toBe(200);
  return res.body;
};
const summary = async () =>
  (
    await h.pool.query<{ from_day: string; through_day: string; most_common_failures: string }>(
      `SELECT from_day::text, through_day::text, most_common_failures FROM test_case_summaries s
         JOIN test_cases t ON t.pk = s.test_pk WHERE t.id = $1`,
      [id],
    )
  ).rows[0];
/** The answers computed without any summary, the summaries put back afterwards. */
async function withoutSummaries<T>(read: () => Promise<T>): Promise<T> {
  await h.pool.query(
    `CREATE TEMP TABLE IF NOT EXISTS kept AS SELECT * FROM test_case_summaries WITH NO DATA`,
  );
  await h.pool.query(
    `WITH d AS (DELETE FROM test_case_summaries RETURNING *) INSERT INTO kept SELECT * FROM d`,
  );
  try {
    return await read();
  } finally {
    await h.pool.query(
      `WITH d AS (DELETE FROM kept RETURNING *) INSERT INTO test_case_summaries SELECT * FROM d`,
    );
  }
}

beforeAll(async () => {
  h = await createHarness('flaky_summaries', START);
  // Day 1: "alpha" once; day 10: "beta" twice and another test failing.
  await h.uploadJson({ upload_id: 'u1', commit_sha: 'c1', branch: 'main' }, [
    { name: 'a.xml', content: junit({ Flip: 'F', Calm: 'P' }, { message: 'alpha went wrong' }) },
  ]);
  h.tick(9 * DAY);
  await h.uploadJson({ upload_id: 'u2', commit_sha: 'c2', branch: 'f/x', pr_number: 7 }, [
    { name: 'b.xml', content: junit({ Flip: 'FF', Calm: 'F' }, { message: 'beta went wrong' }) },
  ]);
  const { rows } = await h.pool.query<{ id: string }>(`SELECT id FROM test_cases WHERE name = 'Flip'`);
  id = rows[0]!.id;
});
afterAll(() => h.close());

test('the fold writes the summary with the days it answers for', async () => {
  const row = await summary();
  // Computed for day 10; its oldest listed day is day 1, so it holds through day 1 + 30 - 1.
  expect(row).toMatchObject({ from_day: '2027-03-10', through_day: '2027-03-30' });
  const listed = JSON.parse(row!.most_common_failures) as { summary: string }[];
  expect(listed.map((f) => f.summary)).toEqual([
    expect.stringContaining('beta'),
    expect.stringContaining('alpha'),
  ]);
});

test('a valid summary is what the reads answer, and the same as computing it', async () => {
  const body = await details();
  expect(JSON.stringify(JSON.parse(body).test.most_common_failures)).toBe(
    (await summary())!.most_common_failures,
  );
  const page = await failingPage();
  expect(await withoutSummaries(details)).toBe(body);
  expect(await withoutSummaries(failingPage)).toBe(page);
  // And it is read, not recomputed: a changed stored list shows.
  const stored = (await summary())!.most_common_failures;
  await h.pool.query(`UPDATE test_case_summaries SET most_common_failures = '[]'`);
  expect(JSON.parse(await details()).test.most_common_failures).toEqual([]);
  await h.pool.query(
    `UPDATE test_case_summaries s SET most_common_failures = $1 FROM test_cases t
    WHERE t.pk = s.test_pk AND t.id = $2`,
    [stored, id],
  );
});

test('once a counted day leaves the window, the reads compute the list; the next fold recomputes it', async () => {
  h.clock.now = new Date('2027-03-31T09:00:00.000Z'); // day 1 is out of the 30-day window
  const body = await details();
  const failures = JSON.parse(body).test.most_common_failures as { summary: string }[];
  expect(failures.map((f) => f.summary)).toEqual([expect.stringContaining('beta')]);
  expect((await summary())!.most_common_failures).toContain('alpha'); // the stale row, unused
  expect(await withoutSummaries(details)).toBe(body);
  // The repository's next upload, of another test, recomputes the stale summary for its day.
  await h.uploadJson({ upload_id: 'u3', commit_sha: 'c3', branch: 'main' }, [
    { name: 'c.xml', content: junit({ Calm: 'P' }) },
  ]);
  const row = await summary();
  expect(row).toMatchObject({ from_day: '2027-03-31', through_day: '2027-04-08' });
  expect(row!.most_common_failures).not.toContain('alpha');
  expect(await details()).toBe(body);
  h.clock.now = new Date('2027-04-15T09:00:00.000Z');
  expect(JSON.parse(await details()).test.most_common_failures).toEqual([]);
});

test('retention deletes the summaries that counted a day it trims', async () => {
  h.clock.now = new Date('2027-06-20T09:00:00.000Z'); // rollups kept 91 days: days up to 03-20 trimmed
  await maintainResults(h.pool, h.clock.now, { defaults: { rawDays: 90, rollupDays: 91 } });
  expect(await summary()).toBeUndefined();
  expect(JSON.parse(await details()).test.most_common_failures).toEqual([]);
});
