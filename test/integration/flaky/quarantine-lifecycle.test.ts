/**
 * Quarantine with a lifecycle on the shared stack (scratch database, the real app, the store's
 * fold and sweep): the repository's release_after_clean_runs (default, bounds, the 400 naming the
 * field), an override with an expiry and an owner (applies until its expiry, recorded as expired by
 * the sweep), a test quarantined by rule released after N clean uploads and quarantined again by a
 * failure, a still-valid override winning over the clean runs, and the fields list-quarantined-tests
 * and the dashboard show for why, since when and until when.
 */
import type { FastifyInstance } from 'fastify';
import { createUiSessionStore } from '../../../api/dashboard/store/sessions';
import { testCaseId } from '../../../flaky/identity';
import { buildTestApp, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { createHarness, type Harness, junit, REPO } from './harness';

const HOUR = 3_600_000;
let h: Harness;
const scoped = { repo: REPO, org_url_slug: 'acme' };
const idOf = (name: string) =>
  testCaseId({ organisationSlug: 'acme', repository: REPO, classname: 'shop.L', parent: 'shop.L', name });
const ids = { flaky: idOf('Flaky'), pinned: idOf('Pinned'), healthy: idOf('Healthy') };
let uploads = 0;

/** One upload on main, a new commit each time: `tests` maps name → outcomes (junit()). */
async function upload(tests: Record<string, string>): Promise<string> {
  h.tick(60_000);
  uploads += 1;
  const id = `life-${uploads}`;
  const res = await h.uploadJson({ upload_id: id, commit_sha: `c${uploads}`, branch: 'main' }, [
    { name: 'l.xml', content: junit(tests, { classname: 'shop.L' }) },
  ]);
  expect(res.statusCode).toBe(200);
  return id;
}

interface Listed {
  test_case_id: string;
  quarantine_setting: string;
  quarantined_at: string;
  quarantine_reason: string | null;
  owner: string | null;
  quarantined_until: string | null;
  clean_runs: number;
  clean_runs_to_release: number | null;
}

async function listed(): Promise<Map<string, Listed>> {
  const res = await h.post('/v1/flaky-tests/list-quarantined-tests', {
    ...scoped,
    page_query: { page_size: 10 },
  });
  expect(res.statusCode).toBe(200);
  return new Map(
    res.json<{ quarantined_tests: Listed[] }>().quarantined_tests.map((t) => [t.test_case_id, t]),
  );
}

const quarantined = async (id: string) =>
  (await h.post('/v1/flaky-tests/get-test-details', { ...scoped, test_id: id })).json<{
    test: { quarantined: boolean; status: { value: string } };
  }>().test;

beforeAll(async () => {
  h = await createHarness('flaky_quarantine_lifecycle');
  // A fail then a pass of one commit: Flaky and Pinned are flaky (same-commit disagreement).
  await upload({ Flaky: 'FP', Pinned: 'FP', Healthy: 'P' });
});
afterAll(() => h.close());

test('release_after_clean_runs: default 20, bounded, the 400 names the field', async () => {
  const on = await h.post('/v1/flaky-tests/update-repository-settings', {
    ...scoped,
    quarantine: { enabled: true, auto_quarantine: true },
  });
  expect(on.json()).toMatchObject({ quarantine: { enabled: true, release_after_clean_runs: 20 } });
  for (const bad of [0, 1001, 2.5]) {
    const res = await h.post('/v1/flaky-tests/update-repository-settings', {
      ...scoped,
      quarantine: { release_after_clean_runs: bad },
    });
    expect([res.statusCode, res.body]).toEqual([
      400,
      "Field 'quarantine.release_after_clean_runs' must be a whole number from 1 to 1000.",
    ]);
  }
  const three = await h.post('/v1/flaky-tests/update-repository-settings', {
    ...scoped,
    quarantine: { release_after_clean_runs: 3 },
  });
  expect(three.json()).toMatchObject({ quarantine: { auto_quarantine: true, release_after_clean_runs: 3 } });
});

test('an override with an expiry and an owner applies until it expires; the sweep records the expiry', async () => {
  const expiresAt = new Date(h.clock.now.getTime() + HOUR).toISOString();
  const set = await h.post('/v1/flaky-tests/set-quarantine-override', {
    ...scoped,
    test_id: ids.healthy,
    override: 'ALWAYS_QUARANTINE',
    reason: 'hangs on CI',
    expires_at: expiresAt,
    owner: 'team-payments',
  });
  expect(set.json()).toMatchObject({ expires_at: expiresAt, owner: 'team-payments', quarantined: true });
  expect((await listed()).get(ids.healthy)).toMatchObject({
    quarantine_setting: 'ALWAYS_QUARANTINE',
    quarantine_reason: 'hangs on CI',
    owner: 'team-payments',
    quarantined_until: expiresAt,
    clean_runs_to_release: null,
  });

  const refused = async (body: object) => {
    const res = await h.post('/v1/flaky-tests/set-quarantine-override', {
      ...scoped,
      test_id: ids.healthy,
      ...body,
    });
    return [res.statusCode, res.body];
  };
  expect(await refused({ override: 'ALWAYS_QUARANTINE', expires_at: h.clock.now.toISOString() })).toEqual([
    400,
    "Field 'expires_at' must be in the future.",
  ]);
  expect(await refused({ override: 'UNSPECIFIED', expires_at: expiresAt })).toEqual([
    400,
    "Field 'expires_at' can only be given with ALWAYS_QUARANTINE or NEVER_QUARANTINE.",
  ]);
  expect((await refused({ override: 'ALWAYS_QUARANTINE', owner: 'a\u0007b' }))[0]).toBe(400);

  h.tick(HOUR);
  expect((await quarantined(ids.healthy)).quarantined).toBe(false);
  expect((await listed()).has(ids.healthy)).toBe(false);
  const check = await h.post('/v1/flaky-tests/check-quarantine', {
    ...scoped,
    failed_tests: [{ test_id: ids.healthy }],
  });
  expect(check.json()).toMatchObject({ run_passes: false, tests: [{ quarantined: false }] });

  await h.store.reevaluate();
  const { rows } = await h.pool.query(
    `SELECT t.quarantine_override, h.previous, h.override, h.set_by, h.reason, h.set_at, h.expires_at, h.owner
       FROM test_cases t JOIN quarantine_override_history h ON h.test_pk = t.pk
      WHERE t.id = $1 ORDER BY h.pk DESC LIMIT 1`,
    [ids.healthy],
  );
  expect(rows[0]).toEqual({
    quarantine_override: 'UNSPECIFIED',
    previous: 'ALWAYS_QUARANTINE',
    override: 'UNSPECIFIED',
    set_by: 'railyard',
    reason: 'expired',
    set_at: new Date(expiresAt),
    expires_at: new Date(expiresAt),
    owner: 'team-payments',
  });
});

test('quarantined by rule: released after N clean uploads, quarantined again by a failure; an override wins', async () => {
  await h.post('/v1/flaky-tests/set-quarantine-override', {
    ...scoped,
    test_id: ids.pinned,
    override: 'ALWAYS_QUARANTINE',
    owner: 'team-search',
  });
  expect((await listed()).get(ids.flaky)).toMatchObject({
    quarantine_setting: 'AUTO_QUARANTINE',
    quarantine_reason: expect.stringMatching(/^mixed_outcomes_same_commit/),
    quarantined_until: null,
    clean_runs: 0,
    clean_runs_to_release: 3,
  });

  await upload({ Flaky: 'P', Pinned: 'P' });
  await upload({ Flaky: 'PS', Pinned: 'P' });
  expect((await listed()).get(ids.flaky)).toMatchObject({ clean_runs: 2, clean_runs_to_release: 1 });
  await upload({ Flaky: 'P', Pinned: 'P' });
  const released = await listed();
  expect(released.has(ids.flaky)).toBe(false);
  expect(await quarantined(ids.flaky)).toMatchObject({ quarantined: false, status: { value: 'flaky' } });
  // The override is still valid: its test is not released whatever its clean runs.
  expect(released.get(ids.pinned)).toMatchObject({
    quarantine_setting: 'ALWAYS_QUARANTINE',
    owner: 'team-search',
    clean_runs: 3,
    clean_runs_to_release: null,
  });

  const failing = await upload({ Flaky: 'F', Pinned: 'P' });
  const again = (await listed()).get(ids.flaky);
  expect(again).toMatchObject({
    quarantine_setting: 'AUTO_QUARANTINE',
    clean_runs: 0,
    clean_runs_to_release: 3,
  });
  // Quarantined again from the fold of the failing upload (its time + 1 ms).
  expect(again?.quarantined_at).toBe(new Date(h.clock.now.getTime() + 1).toISOString());

  const { rows } = await h.pool.query(
    `SELECT q.quarantined_status, q.quarantined_reason, q.clean_runs, q.release_reason, q.ended_reason,
            q.ended_at IS NOT NULL AS ended, t.quarantine_released_at
       FROM quarantine_releases q JOIN test_cases t ON t.pk = q.test_pk WHERE t.id = $1 ORDER BY q.pk`,
    [ids.flaky],
  );
  expect(rows).toEqual([
    {
      quarantined_status: 'flaky',
      quarantined_reason: expect.stringMatching(/^mixed_outcomes_same_commit/),
      clean_runs: 3,
      release_reason: '3 clean runs in a row (the repository releases after 3)',
      ended_reason: `failed in upload ${failing}`,
      ended: true,
      quarantine_released_at: null,
    },
  ]);
});

test('the dashboard shows why, since when and until when, and the quarantine history', async () => {
  const { app } = await buildTestApp(h.pool, {
    flaky: { store: h.store, pageTokenSecret: TEST_PAGE_TOKEN_SECRET },
    ui: { sessions: createUiSessionStore(h.pool), pool: h.pool },
  });
  try {
    const { page, post } = await pageReader(app, h.key);
    const test = await page(`/ui/flaky/tests/${ids.flaky}`);
    expect(test).toMatch(/Quarantined automatically since [^<]+, until 3 more clean runs \(0 of 3\)/);
    expect(test).toContain('Release ended: quarantined automatically again while flaky or broken');
    expect(test).toContain('railyard: 3 clean runs in a row (the repository releases after 3)');
    const pinned = await page(`/ui/flaky/tests/${ids.pinned}`);
    expect(pinned).toContain('until the override is changed');
    expect(pinned).toContain('Owner: team-search.');
    const healthy = await page(`/ui/flaky/tests/${ids.healthy}`);
    expect(healthy).toMatch(
      /Override always quarantine → no override<\/td><td>railyard \(owner team-payments\): expired/,
    );
    // The override form takes an expiry in days and an owner.
    const csrf = /name="_csrf" value="([^"]+)"/.exec(healthy)![1]!;
    const form = { _csrf: csrf, override: 'NEVER_QUARANTINE', reason: '', owner: 'team-x' };
    const bad = await post(`/ui/flaky/tests/${ids.healthy}/override`, { ...form, expires_in_days: '0' });
    expect(bad.statusCode).toBe(400);
    const ok = await post(`/ui/flaky/tests/${ids.healthy}/override`, { ...form, expires_in_days: '2' });
    expect(ok.statusCode).toBe(303);
    const overridden = await page(`/ui/flaky/tests/${ids.healthy}`);
    expect(overridden).toContain(
      `The override expires at ${new Date(h.clock.now.getTime() + 2 * 24 * HOUR).toISOString().slice(0, 19).replace('T', ' ')} UTC.`,
    );
    expect(overridden).toContain('Owner: team-x.');
    const repository = await page('/ui/flaky/repository?host=github.com&owner=acme&name=shop');
    expect(repository).toContain('3 more clean runs');
    expect(repository).toContain('the override is changed <span class="muted">(owner team-search)</span>');
  } finally {
    await app.close();
  }
});

/** Signs in with `key` through the sign-in form; reads pages and posts forms with that session. */
async function pageReader(app: FastifyInstance, key: string) {
  const origin = { host: 'railyard.test', origin: 'http://railyard.test' };
  const form = await app.inject({ method: 'GET', url: '/ui/sign-in', headers: { host: origin.host } });
  const nonce = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
  const nonceCookie = form.cookies.find((c) => c.name === 'railyard-sign-in')!;
  const signed = await app.inject({
    method: 'POST',
    url: '/ui/sign-in',
    headers: { ...origin, 'content-type': 'application/x-www-form-urlencoded' },
    cookies: { [nonceCookie.name]: nonceCookie.value },
    payload: new URLSearchParams({ key, _csrf: nonce }).toString(),
  });
  const session = signed.cookies.find((c) => c.name === 'railyard-session')!.value;
  return {
    page: async (url: string) => {
      const res = await app.inject({
        method: 'GET',
        url,
        headers: { host: origin.host },
        cookies: { 'railyard-session': session },
      });
      expect([url, res.statusCode]).toEqual([url, 200]);
      return res.body;
    },
    post: (url: string, fields: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url,
        headers: { ...origin, 'content-type': 'application/x-www-form-urlencoded' },
        cookies: { 'railyard-session': session },
        payload: new URLSearchParams(fields).toString(),
      }),
  };
}
