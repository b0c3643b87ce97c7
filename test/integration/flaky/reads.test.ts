/**
 * The spec's reads on the real database: list-failing-tests and get-test-details shapes, failure
 * rates as fractions over attempts, most_common_failures by fingerprint, PRs impacted, exact window
 * edges, keyset pages that stay stable while uploads arrive, and every validation error of issue 5.
 */
import { ListFailingTestsResponse } from '../../../api/schemas/flaky-tests';
import { createHarness, type Harness, junit, REPO } from './harness';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = new Date('2026-11-20T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const WEEK = { start_time: iso(T0.getTime() - 7 * DAY), end_time: iso(T0.getTime()) };

let h: Harness;
beforeAll(async () => {
  h = await createHarness('flaky_reads', new Date(T0.getTime() - 3 * DAY));
  // Three days ago, on main: A fails then passes (flaky), B fails, C passes.
  await h.uploadJson({ upload_id: 'u1', commit_sha: 'm1', branch: 'main' }, [
    { name: 'a.xml', content: junit({ A: 'FP', B: 'F', C: 'P' }) },
  ]);
  // 20 hours ago, PR 11: A passes, B fails; D fails with a timeout (second file of the same upload).
  h.clock.now = new Date(T0.getTime() - 20 * HOUR);
  await h.uploadMultipart({ upload_id: 'u2', commit_sha: 'p1', branch: 'feature/one', pr_number: 11 }, [
    { name: 'a.xml', content: junit({ A: 'P', B: 'F' }) },
    { name: 'd.xml', content: junit({ D: 'F' }, { message: 'Timeout of 5000ms exceeded' }) },
  ]);
  // Two hours ago, PR 12: B fails twice, D passes.
  h.clock.now = new Date(T0.getTime() - 2 * HOUR);
  await h.uploadJson({ upload_id: 'u3', commit_sha: 'p2', branch: 'feature/two', pr_number: '12' }, [
    { name: 'a.xml', content: junit({ B: 'FF', D: 'P' }) },
  ]);
  h.clock.now = T0;
});
afterAll(() => h.close());

const list = (body: object, key?: string) =>
  h.post(
    '/v1/flaky-tests/list-failing-tests',
    { repo: REPO, org_url_slug: 'acme', ...WEEK, page_query: { page_size: 100 }, ...body },
    key,
  );
const names = (res: { json(): unknown }) =>
  (res.json() as { tests: { name: string }[] }).tests.map((t) => t.name);

test('list-failing-tests: the distinct failing tests, most failures first, in the spec’s shape', async () => {
  const res = await list({});
  expect(res.statusCode).toBe(200);
  const body = ListFailingTestsResponse.parse(res.json());
  expect(body.tests.map((t) => t.name)).toEqual(['B', 'A', 'D']);
  expect(body.page).toEqual({
    total_rows: 3,
    total_pages: 1,
    next_page_token: '',
    prev_page_token: '',
    last_page_token: expect.any(String),
    page_index: 0,
  });
  const b = body.tests[0]!;
  expect(b).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    repository: {
      html_url: 'http://127.0.0.1:8080/ui/flaky/repository?host=github.com&owner=acme&name=shop',
    },
    html_url: `http://127.0.0.1:8080/ui/flaky/tests/${b.id}`,
    name: 'B',
    variant: '',
    status: { value: 'healthy', reason: 'no_signal', timestamp: iso(T0.getTime() - 3 * DAY) },
    most_common_failures: [
      {
        summary: 'expected <n> to equal <n>',
        occurrence_count: 4,
        last_occurrence: iso(T0.getTime() - 2 * HOUR),
      },
    ],
    failure_rate_last_7d: 1,
    failure_rate_last_24h: 1,
    parent: 'shop.Cart',
    classname: 'shop.Cart',
    codeowners: [],
    pull_requests_impacted_last_7d: 2,
    quarantined: false,
  });
  const a = body.tests[1]!;
  expect(a).toMatchObject({
    status: { value: 'flaky', reason: 'mixed_outcomes_same_commit:sha=m1' },
    failure_rate_last_7d: 0.3333,
    failure_rate_last_24h: 0,
    pull_requests_impacted_last_7d: 0,
  });
  expect(body.tests[2]).toMatchObject({
    name: 'D',
    failure_rate_last_7d: 0.5,
    failure_rate_last_24h: 0.5,
    pull_requests_impacted_last_7d: 1,
    most_common_failures: [{ summary: 'Timeout of <duration> exceeded', occurrence_count: 1 }],
  });
});

test('window edges are exact: start and end are instants, not days', async () => {
  const u1 = T0.getTime() - 3 * DAY;
  expect(names(await list({ start_time: iso(u1 + 1), end_time: iso(T0.getTime()) }))).toEqual(['B', 'D']);
  expect(names(await list({ start_time: iso(u1 - HOUR), end_time: iso(u1 + 1) }))).toEqual(['A', 'B']);
  expect(names(await list({ start_time: iso(u1 - HOUR), end_time: iso(u1) }))).toEqual([]);
  const rates = await list({
    start_time: iso(T0.getTime() - 2 * HOUR),
    end_time: iso(T0.getTime() - 2 * HOUR + 1),
  });
  expect(names(rates)).toEqual(['B']);
});

test('get-test-details and the html_url page answer the same test', async () => {
  const [b] = (await list({})).json<{ tests: { id: string; name: string }[] }>().tests;
  const details = await h.post('/v1/flaky-tests/get-test-details', {
    repo: REPO,
    org_url_slug: 'acme',
    test_id: b!.id,
  });
  expect(details.statusCode).toBe(200);
  expect(details.json()).toEqual({ test: (await list({})).json<{ tests: unknown[] }>().tests[0] });
  const page = await h.app.inject({
    method: 'GET',
    url: `/v1/flaky-tests/tests/${b!.id}`,
    headers: { 'x-api-token': h.key },
  });
  expect(page.json()).toEqual(details.json());
  const c = await h.pool.query<{ id: string }>(`SELECT id FROM test_cases WHERE name = 'C'`);
  const healthy = await h.post('/v1/flaky-tests/get-test-details', {
    repo: REPO,
    org_url_slug: 'acme',
    test_id: c.rows[0]!.id,
  });
  expect(healthy.json()).toMatchObject({
    test: { name: 'C', failure_rate_last_7d: 0, most_common_failures: [] },
  });
});

test('keyset pages: next, prev and last tokens, stable while new results arrive', async () => {
  const page0 = (await list({ page_query: { page_size: 1 } })).json<{
    tests: { name: string }[];
    page: Record<string, string | number>;
  }>();
  expect(page0.tests.map((t) => t.name)).toEqual(['B']);
  expect(page0.page).toMatchObject({ total_rows: 3, total_pages: 3, page_index: 0, prev_page_token: '' });

  // New failures arrive after the first page: a new failing test and more failures of D.
  h.tick(60_000);
  await h.uploadJson({ upload_id: 'late', commit_sha: 'p3', branch: 'feature/three', pr_number: 13 }, [
    { name: 'a.xml', content: junit({ E: 'FFFFF', D: 'FFFFF' }) },
  ]);
  h.tick(60_000);

  const page1 = (await list({ page_query: { page_size: 1, page_token: page0.page.next_page_token } })).json<
    typeof page0
  >();
  expect(page1.tests.map((t) => t.name)).toEqual(['A']);
  expect(page1.page).toMatchObject({ total_rows: 3, page_index: 1 });
  const page2 = (await list({ page_query: { page_size: 1, page_token: page1.page.next_page_token } })).json<
    typeof page0
  >();
  expect(page2.tests.map((t) => t.name)).toEqual(['D']);
  expect(page2.page).toMatchObject({ page_index: 2, next_page_token: '' });
  const back = (await list({ page_query: { page_size: 1, page_token: page2.page.prev_page_token } })).json<
    typeof page0
  >();
  expect(back.tests.map((t) => t.name)).toEqual(['A']);
  // The second page's previous page is the first one (it once pointed at the last page).
  const front = (await list({ page_query: { page_size: 1, page_token: back.page.prev_page_token } })).json<
    typeof page0
  >();
  expect(front.tests.map((t) => t.name)).toEqual(['B']);
  expect(front.page).toMatchObject({ page_index: 0, prev_page_token: '' });
  const last = (await list({ page_query: { page_size: 1, page_token: page0.page.last_page_token } })).json<
    typeof page0
  >();
  expect(last.tests.map((t) => t.name)).toEqual(['D']);
  expect(last.page.page_index).toBe(2);

  // A fresh listing sees the new results.
  const fresh = await list({ start_time: iso(T0.getTime() - 6 * DAY), end_time: iso(h.clock.now.getTime()) });
  expect(names(fresh)).toEqual(['D', 'E', 'B', 'A']);
});

describe('validation and errors (plain text)', () => {
  test.each([
    [
      'start_time not a date-time',
      { start_time: 'yesterday' },
      "Field 'start_time' must be a date-time such as 2026-01-31T00:00:00Z.",
    ],
    ['end_time missing', { end_time: undefined }, "Field 'end_time' is required."],
    ['start_time missing', { start_time: undefined }, "Field 'start_time' is required."],
    [
      'end before start',
      { start_time: WEEK.end_time, end_time: WEEK.start_time },
      "Field 'end_time' must be after 'start_time'.",
    ],
    ['end equal to start', { end_time: WEEK.start_time }, "Field 'end_time' must be after 'start_time'."],
    [
      'more than 7 days',
      { end_time: iso(T0.getTime() + 1) },
      "Field 'end_time' must be at most 7 days after 'start_time'.",
    ],
    ['page_size 0', { page_query: { page_size: 0 } }, "Field 'page_query.page_size' must be at least 1."],
    [
      'page_size 101',
      { page_query: { page_size: 101 } },
      "Field 'page_query.page_size' must be at most 100.",
    ],
    ['page_size 2.5', { page_query: { page_size: 2.5 } }, "Field 'page_query.page_size' must be an integer."],
    ['page_size missing', { page_query: {} }, "Field 'page_query.page_size' is required."],
    [
      'page_token garbage',
      { page_query: { page_size: 10, page_token: 'garbage' } },
      "Field 'page_query.page_token' is not a valid page token.",
    ],
  ])('%s → 400', async (_name, change, message) => {
    const res = await list(change);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toBe(message);
  });

  test('a tampered token, or one from another query, is a 400', async () => {
    const { page } = (await list({ page_query: { page_size: 1 } })).json<{
      page: { next_page_token: string };
    }>();
    const [payload, signature] = page.next_page_token.split('.');
    const decoded = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { k: unknown[] };
    decoded.k = [0, '1'];
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${signature}`;
    for (const token of [forged, `${page.next_page_token}x`, `${payload}`]) {
      const res = await list({ page_query: { page_size: 1, page_token: token } });
      expect([res.statusCode, res.body]).toEqual([
        400,
        "Field 'page_query.page_token' is not a valid page token.",
      ]);
    }
    const otherSize = await list({ page_query: { page_size: 2, page_token: page.next_page_token } });
    expect([otherSize.statusCode, otherSize.body]).toEqual([
      400,
      "Field 'page_query.page_token' is not a valid page token.",
    ]);
  });

  test('organisation, repository and test must exist for the key (404)', async () => {
    expect((await list({ org_url_slug: 'globex' })).body).toBe("Organisation 'globex' was not found.");
    const nope = await list({ repo: { ...REPO, name: 'nope' } });
    expect([nope.statusCode, nope.body]).toEqual([404, 'Repository github.com/acme/nope was not found.']);
    // An unknown repository is the 404 before a bad token is the 400, a good token's cursor or not.
    const { page } = (await list({ page_query: { page_size: 1 } })).json<{
      page: { next_page_token: string };
    }>();
    for (const page_token of ['garbage', page.next_page_token]) {
      const res = await list({ repo: { ...REPO, name: 'nope' }, page_query: { page_size: 1, page_token } });
      expect([res.statusCode, res.body]).toEqual([404, 'Repository github.com/acme/nope was not found.']);
    }
    const theirs = await list({ org_url_slug: 'globex' }, h.otherKey);
    expect([theirs.statusCode, theirs.body]).toEqual([404, 'Repository github.com/acme/shop was not found.']);
    const id = '0d7b2f8e-3c4a-5b6c-8d9e-0f1a2b3c4d5e';
    const missing = await h.post('/v1/flaky-tests/get-test-details', {
      repo: REPO,
      org_url_slug: 'acme',
      test_id: id,
    });
    expect([missing.statusCode, missing.body]).toEqual([
      404,
      `Test case ${id} was not found in github.com/acme/shop.`,
    ]);
    const bad = await h.post('/v1/flaky-tests/get-test-details', {
      repo: REPO,
      org_url_slug: 'acme',
      test_id: 'nope',
    });
    expect([bad.statusCode, bad.body]).toEqual([400, "Field 'test_id' must be a UUID."]);
    const [b] = (await list({})).json<{ tests: { id: string }[] }>().tests;
    const otherOrg = await h.app.inject({
      method: 'GET',
      url: `/v1/flaky-tests/tests/${b!.id}`,
      headers: { 'x-api-token': h.otherKey },
    });
    expect(otherOrg.statusCode).toBe(404);
  });

  test('no key is a 401 with a plain-text body', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/flaky-tests/list-failing-tests',
      payload: {},
    });
    expect([res.statusCode, res.body]).toEqual([401, 'Missing API key: send it in the x-api-token header.']);
    expect(res.headers['content-type']).toContain('text/plain');
  });
});
