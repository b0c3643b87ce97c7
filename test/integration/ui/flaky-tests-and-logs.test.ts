/**
 * What a person reaches by clicking, through the real app, a signed-in session and a scratch
 * PostgreSQL fed by real uploads (issue 29):
 * - a repository's flaky page links to every test of it, searchable by name, filterable by status,
 *   sortable by failure rate, paged; `calc › adds` (passed once, failed once on the merge queue) is
 *   listed at 50 % and its page says why it is still healthy, with the classifier's own thresholds;
 * - a run log opened from a PR's page starts with that PR and the PRs the run tested with it, not
 *   only the batch branch named after the first; opened elsewhere it is the stored log as it is.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createUiSessionStore } from '../../../api/dashboard/store/sessions';
import { createRunLogStore } from '../../../test-runs/store/run-logs';
import { buildTestApp } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';
import { junit } from '../flaky/harness';

const REPO = { host: 'local', owner: 'demo', name: 'calc' };
const HOST = 'railyard.test';
let pool: Pool;
let app: FastifyInstance;
let key: string;
let cookie: string;
let organisationId: string;

const unescape = (s: string) => s.replaceAll('&amp;', '&').replaceAll('&#39;', "'").replaceAll('&quot;', '"');

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({
    method: 'GET',
    url,
    headers: { host: HOST, ...headers },
    cookies: { 'railyard-session': cookie },
  });
  expect([url, res.statusCode]).toEqual([url, 200]);
  return res.body;
}

/** The href of the link whose text is `text` (a person's click), unescaped. */
function linkTo(html: string, text: RegExp): string {
  const link = [...html.matchAll(/<a href="([^"]+)"[^>]*>([^<]*)<\/a>/g)].find((m) => text.test(m[2]!));
  if (!link) throw new Error(`no link ${String(text)} on the page`);
  return unescape(link[1]!);
}

/** The test names in the page's list, in order. */
const listed = (html: string) =>
  [...html.matchAll(/<a href="\/ui\/flaky\/tests\/[0-9a-f-]+">([^<]+)<\/a>/g)].map((m) => m[1]);

async function upload(uploadId: string, branch: string, sha: string, tests: Record<string, string>) {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/flaky-tests/upload',
    headers: { 'content-type': 'application/json', 'x-api-token': key },
    payload: {
      org_url_slug: 'demo',
      repo: REPO,
      upload_id: uploadId,
      commit_sha: sha,
      branch,
      files: [{ name: 'junit.xml', content: junit(tests, { classname: 'calc' }) }],
    },
  });
  expect(res.statusCode).toBe(200);
}

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('ui_flaky_list'));
  key = (await createApiKeyStore(pool).create('demo')).key;
  organisationId = (await pool.query<{ id: string }>(`SELECT id FROM organisations WHERE slug = 'demo'`))
    .rows[0]!.id;
  const runLogs = createRunLogStore(pool);
  ({ app } = await buildTestApp(pool, {
    ui: { sessions: createUiSessionStore(pool), pool },
    mergeQueue: {
      readTestRunLog: async (org, id) => {
        const info = await runLogs.info(org.id, id);
        return info ? { info, chunk: (offset) => runLogs.read(org.id, id, offset) } : null;
      },
    },
  }));
  // The demo's story: `adds` passed on one queue run and failed on the next; 60 other tests passed.
  const others = Object.fromEntries(
    Array.from({ length: 60 }, (_, i) => [`case ${String(i).padStart(2, '0')}`, 'P']),
  );
  await upload('run-1', 'railyard-merge/pr-1/run-1', 'a1', { adds: 'P', subtracts: 'P', ...others });
  await upload('run-2', 'railyard-merge/pr-3/run-2', 'b2', { adds: 'F', subtracts: 'P' });

  const form = await app.inject({ method: 'GET', url: '/ui/sign-in', headers: { host: HOST } });
  const nonce = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
  const nonceCookie = form.cookies.find((c) => c.name.endsWith('railyard-sign-in'))!;
  const signIn = await app.inject({
    method: 'POST',
    url: '/ui/sign-in',
    headers: {
      host: HOST,
      origin: `http://${HOST}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    cookies: { [nonceCookie.name]: nonceCookie.value },
    payload: new URLSearchParams({ key, _csrf: nonce }).toString(),
  });
  cookie = signIn.cookies.find((c) => c.name === 'railyard-session')!.value;
});

afterAll(async () => {
  await app?.close();
  await pool?.end();
});

test('calc › adds is reached by clicking from its repository, and its page says why it is healthy', async () => {
  const flaky = await get('/ui/flaky');
  const repository = await get(linkTo(flaky, /^local\/demo\/calc$/));
  const all = linkTo(repository, /^Every test of this repository$/);
  const list = await get(all);
  // Sorted by failure rate: adds (1 of 2 failed) first, then the rest by name.
  expect(listed(list).slice(0, 3)).toEqual(['adds', 'case 00', 'case 01']);
  expect(list).toMatch(/>adds<\/a>[\s\S]*?50\.0 %[\s\S]*?1 failed of 2/);
  expect(list).toContain('Tests 1 to 50 of 62, sorted by failure rate over the last 7 days.');

  const page = await get(linkTo(list, /^adds$/));
  const why = /data-testid="status-evidence">([^<]*)</.exec(page)![1];
  expect(unescape(why!)).toBe(
    'Healthy: no commit both passed and failed it, and 2 runs on main, master or the merge queue in ' +
      'the last 3 days so far (1 failed); the failure rate judges from 20, flaky at 10 % or more.',
  );
});

test('the list is searched, filtered, sorted by name and paged', async () => {
  const base = `/ui/flaky/repository/tests?${new URLSearchParams(REPO).toString()}`;
  expect(listed(await get(`${base}&q=TRACTS`))).toEqual(['subtracts']);
  // The search is literal: `_` and `%` match themselves only.
  expect(listed(await get(`${base}&q=${encodeURIComponent('%')}`))).toEqual([]);
  expect(listed(await get(`${base}&status=flaky`))).toEqual([]);
  expect(listed(await get(`${base}&status=healthy&q=add`))).toEqual(['adds']);

  const byName = await get(`${base}&sort=name`);
  expect(listed(byName).slice(0, 2)).toEqual(['adds', 'case 00']);
  const second = await get(linkTo(byName, /next/));
  expect(listed(second)).toEqual([
    'case 49',
    'case 50',
    'case 51',
    'case 52',
    'case 53',
    'case 54',
    'case 55',
    'case 56',
    'case 57',
    'case 58',
    'case 59',
    'subtracts',
  ]);
  expect(second).toContain('page 2 of 2');
  expect(listed(await get(linkTo(second, /previous/)))).toEqual(listed(byName));

  for (const bad of ['status=gone', 'sort=speed', 'page=0', `q=${'x'.repeat(201)}`]) {
    const res = await app.inject({
      method: 'GET',
      url: `${base}&${bad}`,
      headers: { host: HOST },
      cookies: { 'railyard-session': cookie },
    });
    expect([bad, res.statusCode]).toEqual([bad, 400]);
  }
});

test('a run log opened from a PR page names that PR and the PRs tested with it', async () => {
  const runId = 'b5c3a1e0-0000-4000-8000-000000000001';
  const stored =
    '# railyard test run b5c3…\n# repository local/demo/calc, branch railyard-merge/pr-1/b5c3\nexit code 1\n';
  await createRunLogStore(pool).storeContent({
    organisationId,
    repo: REPO,
    runId,
    content: Buffer.from(stored),
    originalBytes: Buffer.byteLength(stored),
  });
  for (const pr of [1, 2, 3])
    await pool.query(
      `INSERT INTO pr_transitions (submission_id, seq, organisation_id, host, owner, name, target_branch,
         pr_number, from_state, to_state, reason, test_run_id, batch, at)
       VALUES ($1, 1, $2, 'local', 'demo', 'calc', 'main', $3, 'pending', 'testing', 'TEST_RUN_STARTED', $4,
         '{1,2,3}', now())`,
      [`sub-${pr}`, organisationId, pr, runId],
    );
  const log = `/ui/test-runs/${runId}/log`;
  expect(await get(`${log}?pr=3`)).toBe(
    `# opened from pull request #3: this run tested #1, #2 and #3 together (its branch is named after #1, the first)\n${stored}`,
  );
  // The same from the PR page's link without the parameter: the Referer names the page.
  const fromPage = `http://${HOST}/ui/pr?host=local&owner=demo&name=calc&branch=main&pr=2`;
  expect(await get(log, { referer: fromPage })).toMatch(
    /^# opened from pull request #2: this run tested #1, #2 and #3/,
  );
  // Opened elsewhere, or for a PR the run did not test: the log as it was stored.
  expect(await get(log)).toBe(stored);
  expect(await get(`${log}?pr=9`)).toBe(stored);
  expect(await get(log, { referer: `http://elsewhere.test/ui/pr?pr=2` })).toBe(stored);
});
