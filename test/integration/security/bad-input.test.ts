/**
 * The bad-input matrix of issue 7: one named test per row, each asserting the status and the exact
 * plain-text sentence. Requests go over HTTP to the real API, with the real Temporal service and an
 * in-process worker behind it, so the 404s and 409s are the queue workflow's own answers. The rows
 * live in bad-input/ by area; an area adds its file there and its sections below.
 */
import { MERGE_QUEUE_SECTIONS } from './bad-input/merge-queue';
import { PLATFORM_SECTIONS } from './bad-input/platform';
import { QUEUE, type BadInputContext, type BadInputRow } from './bad-input/rows';
import { startLiveApi, type LiveApi } from './support/live-api';

const SECTIONS: [string, BadInputRow[]][] = [...MERGE_QUEUE_SECTIONS, ...PLATFORM_SECTIONS];

let api: LiveApi;
let key: string;
let ctx: BadInputContext;

async function send(row: BadInputRow): Promise<{ status: number; body: string; type: string }> {
  const body = row.bodyOf ? row.bodyOf(ctx) : row.body;
  const auth = row.auth === undefined ? key : row.auth === 'none' ? undefined : row.auth.token;
  const res = await fetch(`${api.url}${row.route}`, {
    method: row.method ?? 'POST',
    headers: {
      ...(row.method === 'GET' ? {} : { 'content-type': 'application/json' }),
      ...(auth !== undefined ? { 'x-api-token': auth } : {}),
      ...row.headers,
    },
    ...(row.method === 'GET'
      ? {}
      : { body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') ?? '' };
}

beforeAll(async () => {
  api = await startLiveApi();
  key = await api.key('acme');
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
  ctx = { queue: QUEUE, queuedPr: 1, cursor };
}, 90_000);

afterAll(async () => {
  await api?.close();
});

describe.each(SECTIONS)('%s', (_section, rows) => {
  test.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const res = await send(row);
    expect({ status: res.status, body: row.message === null ? null : res.body }).toEqual({
      status: row.status,
      body: row.message,
    });
    expect(res.type).toBe(
      row.message === null ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
    );
  });
});
