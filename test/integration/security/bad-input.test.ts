/**
 * The bad-input matrix of issue 7: one named test per row, each asserting the status and the exact
 * plain-text sentence. Requests go over HTTP to the real API, with the real Temporal service and an
 * in-process worker behind it, so the 404s and 409s are the queue workflow's own answers. The rows
 * live in bad-input/ by area; an area adds its file there and its sections below.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FLAKY_TEST_SECTIONS } from './bad-input/flaky-tests';
import { LIMIT_SECTIONS } from './bad-input/limits';
import { MERGE_QUEUE_SECTIONS } from './bad-input/merge-queue';
import { PLATFORM_SECTIONS } from './bad-input/platform';
import { QUEUE, type BadInputContext, type BadInputRow } from './bad-input/rows';
import { WEBHOOK_SECTIONS } from './bad-input/webhooks';
import { EXECUTOR_SECTIONS } from './bad-input/executor';
import { startLiveApi, type LiveApi } from './support/live-api';
import { startSentinel } from './support/sentinel';

const SECTIONS: [string, BadInputRow[]][] = [
  ...MERGE_QUEUE_SECTIONS,
  ...PLATFORM_SECTIONS,
  ...FLAKY_TEST_SECTIONS,
  ...WEBHOOK_SECTIONS,
  ...LIMIT_SECTIONS,
  ...EXECUTOR_SECTIONS,
];

let api: LiveApi;
let key: string;
let ctx: BadInputContext;

async function send(row: BadInputRow): Promise<{ status: number; body: string; type: string }> {
  const body = row.bodyOf ? row.bodyOf(ctx) : row.body;
  const executor = row.on === 'executor';
  const own = executor ? ctx.executor.credential : key;
  const auth = row.auth === undefined ? own : row.auth === 'none' ? undefined : row.auth.token;
  // An executor's claims and heartbeats are bodiless POSTs, as its client sends them.
  const hasBody = body !== undefined || (!executor && (row.method ?? 'POST') === 'POST');
  const base = executor ? api.executorUrl : api.url;
  const res = await fetch(`${base}${row.routeOf ? row.routeOf(ctx) : row.route}`, {
    method: row.method ?? 'POST',
    headers: {
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
      ...(auth === undefined ? {} : executor ? { authorization: `Bearer ${auth}` } : { 'x-api-token': auth }),
      ...row.headers,
    },
    ...(hasBody
      ? { body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }
      : {}),
  });
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') ?? '' };
}

/** The flaky-test and webhook part of the context: results of two organisations, a subscription. */
async function flakyAndWebhooks(
  otherKey: string,
): Promise<Omit<BadInputContext, 'queue' | 'queuedPr' | 'cursor' | 'sentinel' | 'executor'>> {
  const junit = (names: string[]) =>
    `<testsuites><testsuite name="s">${names
      .map((n) => `<testcase classname="shop.Cart" name="${n}"><failure message="boom"/></testcase>`)
      .join('')}<testcase classname="shop.Cart" name="passes"/></testsuite></testsuites>`;
  // The other organisation has a repository of its own: acme's is acme's alone (ADR 0006).
  const repoOf = (slug: string) => (slug === 'acme' ? QUEUE.repo : { ...QUEUE.repo, owner: slug });
  const upload = async (slug: string, token: string) => {
    const body = {
      org_url_slug: slug,
      repo: repoOf(slug),
      upload_id: 'context',
      commit_sha: 'c0ffee1',
      branch: 'main',
      files: [{ name: 'junit.xml', content: junit(['alpha', 'beta']) }],
    };
    const res = await api.post('/v1/flaky-tests/upload', body, token);
    if (res.status !== 200) throw new Error(`upload: ${res.status} ${res.body}`);
  };
  const now = Date.now();
  const range = {
    start_time: new Date(now - 3_600_000).toISOString(),
    end_time: new Date(now + 3_600_000).toISOString(),
  };
  const firstPage = async (slug: string, token: string) => {
    const res = await api.post(
      '/v1/flaky-tests/list-failing-tests',
      { org_url_slug: slug, repo: repoOf(slug), ...range, page_query: { page_size: 1 } },
      token,
    );
    const page = res.json<{ tests: { id: string }[]; page: { next_page_token: string } }>();
    if (res.status !== 200 || page.page.next_page_token === '') throw new Error(`list: ${res.body}`);
    return page;
  };
  await upload('acme', key);
  await upload('globex', otherKey);
  const ours = await firstPage('acme', key);
  const theirs = await firstPage('globex', otherKey);
  const created = await api.post(
    '/v1/webhooks/subscriptions',
    { url: 'http://127.0.0.1:9/hook', enabled: false },
    key,
  );
  if (created.status !== 201) throw new Error(`subscription: ${created.status} ${created.body}`);
  return {
    flaky: {
      range,
      pageToken: ours.page.next_page_token,
      otherOrgPageToken: theirs.page.next_page_token,
      testId: ours.tests[0]!.id,
    },
    webhooks: { subscriptionId: created.json<{ id: string }>().id },
  };
}

beforeAll(async () => {
  api = await startLiveApi();
  key = await api.key('acme');
  const otherKey = await api.key('globex');
  const ok = async (route: string, body: object) => {
    const res = await api.post(route, body, key);
    if (res.status !== 200) throw new Error(`${route}: ${res.status} ${res.body}`);
    return res;
  };
  await ok('/v1/createQueue', QUEUE);
  await ok('/v1/updateQueue', { ...QUEUE, state: 'paused' });
  api.world.openPrs([1, 2].map((n) => ({ number: n, title: `PR ${n}`, files: { [`f${n}`]: `${n}\n` } })));
  for (const n of [1, 2]) await ok('/v1/submitPullRequest', { ...QUEUE, pr: { number: n } });
  // Visibility lags the records: wait until a one-item page has a cursor.
  let cursor: string | undefined;
  for (let tries = 0; cursor === undefined && tries < 100; tries++) {
    const page = (await ok('/v1/listPullRequests', { ...QUEUE, take: 1 })).json<{ nextCursor?: string }>();
    cursor = page.nextCursor;
    if (!cursor) await new Promise((r) => setTimeout(r, 200));
  }
  if (!cursor) throw new Error('listPullRequests never gave a cursor');
  ctx = {
    queue: QUEUE,
    queuedPr: 1,
    cursor,
    ...(await flakyAndWebhooks(otherKey)),
    sentinel: await startSentinel(),
    executor: { credential: await api.executorCredential() },
  };
}, 90_000);

afterAll(async () => {
  await ctx?.sentinel.close();
  await api?.close();
});

describe.each(SECTIONS)('%s', (_section, rows) => {
  test.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const cpuBefore = process.cpuUsage();
    const res = await send(row);
    const cpu = process.cpuUsage(cpuBefore);
    expect({ status: res.status, body: row.message === null ? null : res.body }).toEqual({
      status: row.status,
      body: row.message,
    });
    if (row.withinCpuSeconds !== undefined)
      expect((cpu.user + cpu.system) / 1e6).toBeLessThan(row.withinCpuSeconds);
    expect(res.type).toBe(
      row.message === null ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
    );
    await row.check?.(res, ctx);
  });
});

// The entity rows assert that nothing touched the sentinel; this shows that a touch would be seen.
test('the sentinel of the entity rows notices an open of its pipe and a connection', async () => {
  const sentinel = await startSentinel();
  try {
    const fd = fs.openSync(fileURLToPath(sentinel.pipeUrl), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    await fetch(sentinel.httpUrl).catch(() => undefined);
    for (let tries = 0; sentinel.touches().length < 2 && tries < 50; tries++)
      await new Promise((r) => setTimeout(r, 20));
    fs.closeSync(fd);
    expect([...sentinel.touches()].sort()).toEqual(['connection', 'pipe opened']);
  } finally {
    await sentinel.close();
  }
});
