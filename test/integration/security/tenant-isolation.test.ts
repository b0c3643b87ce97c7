/**
 * Tenancy and secrets, on the real API with the real Temporal service and worker behind it.
 *
 * - A second organisation's key walks every merge-queue endpoint against the first organisation's
 *   queue, PRs and test run, and gets the same 404 a resource that never existed gets (no hint that
 *   it exists), and changes nothing. The table is keyed by endpoint path, and every path the OpenAPI
 *   document tags "merge queue" must have a row.
 * - API keys are stored only as SHA-256 hashes: no row of any table holds a key.
 * - The API's log of the whole scenario (including refused keys) holds no key and no signing secret.
 */
import { createHash } from 'node:crypto';
import { QueueView } from '../../../api/schemas/queue';
import { TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { startLiveApi, type LiveApi } from './support/live-api';

const REPO = { host: 'github.com', owner: 'acme', name: 'app' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const NO_QUEUE = 'No merge queue exists for branch "main" of github.com/acme/app.';

interface Probe {
  method?: 'GET';
  body?: object;
  query?: string;
  status: number;
  message: string;
}

/** What the other organisation tries, per endpoint path, with the first organisation's ids. */
function rows(ids: { queuedPr: number; mergedPr: number; testRunId: string }): Record<string, Probe> {
  const pr = (n: number) => ({ ...QUEUE, pr: { number: n } });
  return {
    '/v1/getQueue': { body: QUEUE, status: 404, message: NO_QUEUE },
    '/v1/updateQueue': {
      body: { ...QUEUE, state: 'paused', concurrency: 7 },
      status: 404,
      message: NO_QUEUE,
    },
    '/v1/deleteQueue': { body: QUEUE, status: 404, message: NO_QUEUE },
    '/v1/submitPullRequest': { body: pr(ids.queuedPr), status: 404, message: NO_QUEUE },
    '/v1/cancelPullRequest': { body: pr(ids.queuedPr), status: 404, message: NO_QUEUE },
    '/v1/restartTestsOnPullRequest': { body: pr(ids.queuedPr), status: 404, message: NO_QUEUE },
    '/v1/setImpactedTargets': {
      body: { ...QUEUE, pr: { number: ids.queuedPr, sha: 'a'.repeat(40) }, impactedTargets: 'ALL' },
      status: 404,
      message: NO_QUEUE,
    },
    '/v1/getSubmittedPullRequest': {
      body: pr(ids.mergedPr),
      status: 404,
      message: `Pull request #${ids.mergedPr} was never submitted to the merge queue for branch "main" of github.com/acme/app.`,
    },
    '/v1/listPullRequests': { body: QUEUE, status: 404, message: NO_QUEUE },
    '/v1/getMergeQueueTestingDetails': {
      body: { ...QUEUE, testRunId: ids.testRunId },
      status: 404,
      message: NO_QUEUE,
    },
    '/v1/reportTestStatus': {
      body: { ...QUEUE, sha: 'a'.repeat(40), context: 'ci', state: 'failure' },
      status: 404,
      message: NO_QUEUE,
    },
    '/v1/getMergeQueueMetrics': {
      method: 'GET',
      query: 'repo=acme/app&repoHost=github.com',
      status: 404,
      message: 'Repository github.com/acme/app was not found.',
    },
    // Queues are named by repository within an organisation: the other one makes a queue of its own.
    '/v1/createQueue': { body: QUEUE, status: 200, message: '{}' },
  };
}

let api: LiveApi;
const keys: Record<'acme' | 'globex' | 'revoked', string> = { acme: '', globex: '', revoked: '' };
let ids: { queuedPr: number; mergedPr: number; testRunId: string };

async function call(route: string, probe: Probe, key: string) {
  if (probe.method !== 'GET') return api.post(route, probe.body, key);
  const res = await fetch(`${api.url}${route}?${probe.query ?? ''}`, { headers: { 'x-api-token': key } });
  return { status: res.status, body: await res.text() };
}

beforeAll(async () => {
  api = await startLiveApi();
  keys.acme = await api.key('acme');
  keys.globex = await api.key('globex');
  keys.revoked = await api.key('acme');
  await api.pool.query('UPDATE api_keys SET revoked_at = now() WHERE prefix = $1', [
    keys.revoked.slice(0, 11),
  ]);
  const ok = async (route: string, body: object) => {
    const res = await api.post(route, body, keys.acme);
    if (res.status !== 200) throw new Error(`${route}: ${res.status} ${res.body}`);
    return res;
  };
  await ok('/v1/createQueue', QUEUE);
  api.world.openPrs([1, 2].map((n) => ({ number: n, title: `PR ${n}`, files: { [`f${n}`]: `${n}\n` } })));
  await ok('/v1/submitPullRequest', { ...QUEUE, pr: { number: 1 } });
  let testRunId: string | null = null;
  for (let tries = 0; testRunId === null && tries < 150; tries++) {
    const record = (await ok('/v1/getSubmittedPullRequest', { ...QUEUE, pr: { number: 1 } })).json<{
      state: string;
      verifiedByTestRun: string | null;
    }>();
    if (record.state === 'merged') testRunId = record.verifiedByTestRun;
    else await new Promise((r) => setTimeout(r, 200));
  }
  if (!testRunId) throw new Error('PR 1 did not merge');
  await ok('/v1/updateQueue', { ...QUEUE, state: 'paused' });
  await ok('/v1/submitPullRequest', { ...QUEUE, pr: { number: 2 } });
  ids = { queuedPr: 2, mergedPr: 1, testRunId };
}, 90_000);

afterAll(async () => {
  await api?.close();
});

describe('a second organisation', () => {
  test('the table has a row for every merge-queue path of the OpenAPI document', async () => {
    const doc = (await (await fetch(`${api.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const tagged = Object.entries(doc.paths)
      .filter(([, ops]) => Object.values(ops).some((op) => op.tags?.includes('merge queue')))
      .map(([path]) => path);
    expect(tagged.length).toBeGreaterThanOrEqual(13);
    expect(Object.keys(rows(ids)).sort()).toEqual(expect.arrayContaining(tagged.sort()));
  });

  test.each(
    Object.entries(rows({ queuedPr: 2, mergedPr: 1, testRunId: '' })).filter(
      ([p]) => p !== '/v1/createQueue',
    ),
  )('%s → 404, the same as for a resource that never existed', async (route) => {
    const probe = rows(ids)[route]!;
    const res = await call(route, probe, keys.globex);
    expect({ status: res.status, body: res.body }).toEqual({ status: probe.status, body: probe.message });
  });

  test("/v1/createQueue makes the other organisation's own queue and leaves the first one alone", async () => {
    const probe = rows(ids)['/v1/createQueue']!;
    const res = await call('/v1/createQueue', probe, keys.globex);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: '{}' });
    const theirs = QueueView.parse((await api.post('/v1/getQueue', QUEUE, keys.globex)).json());
    expect(theirs.enqueuedPullRequests).toEqual([]);
    expect((await api.post('/v1/deleteQueue', QUEUE, keys.globex)).status).toBe(200);
  });

  test('nothing the other organisation sent changed the first organisation’s queue', async () => {
    const ours = QueueView.parse((await api.post('/v1/getQueue', QUEUE, keys.acme)).json());
    expect(ours).toMatchObject({ state: 'paused', concurrency: 1 });
    expect(ours.enqueuedPullRequests.map((p) => p.prNumber)).toEqual([2]);
    const details = await api.post(
      '/v1/getMergeQueueTestingDetails',
      { ...QUEUE, testRunId: ids.testRunId },
      keys.acme,
    );
    expect(details.status).toBe(200);
  });
});

describe('secrets at rest and in logs', () => {
  test('no row of any table holds a key; api_keys keeps SHA-256 hashes and 11-character prefixes', async () => {
    const { rows: tables } = await api.pool.query<{ name: string }>(
      "SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    for (const { name } of tables) {
      const { rows: dump } = await api.pool.query<{ row: string }>(
        `SELECT to_jsonb(t)::text AS row FROM ${name} t`,
      );
      for (const { row } of dump)
        for (const key of Object.values(keys)) {
          expect(row).not.toContain(key);
          expect(row).not.toContain(key.slice(11));
        }
    }
    const { rows: stored } = await api.pool.query<{ prefix: string; key_hash: Buffer }>(
      'SELECT prefix, key_hash FROM api_keys',
    );
    const hashes = stored.map((r) => r.key_hash.toString('hex')).sort();
    const expected = Object.values(keys).map((k) => createHash('sha256').update(k).digest('hex'));
    expect(hashes).toEqual(expected.sort());
    for (const r of stored) expect(r.prefix).toHaveLength(11);
  });

  test('the log of the whole scenario holds no key, no refused key and no signing secret', async () => {
    const refused = `ry_${'x'.repeat(43)}`;
    expect((await api.post('/v1/getQueue', QUEUE, refused)).status).toBe(401);
    expect((await api.post('/v1/getQueue', QUEUE, keys.revoked)).status).toBe(401);
    const text = api.log.text();
    expect(text.length).toBeGreaterThan(1000);
    for (const secret of [...Object.values(keys), refused, TEST_PAGE_TOKEN_SECRET]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(11));
    }
  });
});
