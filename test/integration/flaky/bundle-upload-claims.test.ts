/**
 * Who holds a bundle upload URL, through a listening railyard and real PostgreSQL
 * (flaky/store/pending-uploads.ts, api/routes/bundle-uploads/put.ts):
 *  - a PUT while another PUT of the same URL is still receiving is 409, and the first one still lands;
 *  - a failure of railyard's own (5xx), or a client dropping the connection mid-bundle, gives the URL
 *    back, so the client's retry of the same URL stores the bundle once, after which the URL is spent
 *    (410); a refusal (4xx) spends it;
 *  - an organisation holds at most `maxLiveUploads` unexpired URLs, across its repositories: the next
 *    createBundleUpload is 429 with Retry-After, another organisation is not affected, an expired URL
 *    frees its place, and concurrent calls never go past the cap.
 */
import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createFlakyStore, type FlakyStore } from '../../../flaky/service';
import { createPendingBundleUploads, DEFAULT_MAX_LIVE_UPLOADS } from '../../../flaky/store/pending-uploads';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createPool } from '../../../stores/db';
import { buildTestApp, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { waitFor } from '../../support/pr-waiting';
import { createMigratedDatabase } from '../../support/postgres';
import { cliBundle } from './bundle-harness';

/** The cap this app runs with (the setting behind DEFAULT_MAX_LIVE_UPLOADS), small to reach it cheaply. */
const LIVE_CAP = 3;
const TTL_SECONDS = 600;

let pool: Pool;
let databaseUrl: string;
let app: FastifyInstance;
let base: string;
const keys: Record<string, string> = {};
const clock = { offsetMs: 0 };
const now = () => Date.now() + clock.offsetMs;
/** Set to make the next ingest fail as a database outage would (railyard's own failure). */
const faults = { failNextIngest: false };

const repoOf = (org: string, name = 'shop') => ({ host: 'github.com', owner: org, name });

beforeAll(async () => {
  ({ pool, url: databaseUrl } = await createMigratedDatabase('bundle_claims'));
  const apiKeys = createApiKeyStore(pool);
  // One organisation per story: each holds at most LIVE_CAP live URLs.
  for (const org of ['acme', 'umbrella', 'wayne', 'stark', 'globex', 'initech', 'hooli'])
    keys[org] = (await apiKeys.create(org)).key;
  const real = createFlakyStore(pool, { now: () => new Date(now()) });
  const store: FlakyStore = {
    ...real,
    ingest(input) {
      if (!faults.failNextIngest) return real.ingest(input);
      faults.failNextIngest = false;
      return Promise.reject(new Error('connection terminated unexpectedly'));
    },
  };
  ({ app } = await buildTestApp(pool, {
    flaky: { store, pageTokenSecret: TEST_PAGE_TOKEN_SECRET },
    bundleUploads: {
      pool,
      secret: TEST_PAGE_TOKEN_SECRET,
      urlTtlSeconds: TTL_SECONDS,
      maxLiveUploads: LIVE_CAP,
      now,
    },
  }));
  // On a free port; the URLs createBundleUpload answers (on the public URL) are rebased onto it.
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});

afterAll(async () => {
  app.server.closeAllConnections();
  await app.close();
  await pool.end();
});

const createUpload = (org: string, repo = repoOf(org)) =>
  fetch(`${base}/v1/metrics/createBundleUpload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': keys[org]! },
    body: JSON.stringify({ repo, orgUrlSlug: org, clientVersion: 'trunk-analytics-cli cargo=0.0.0' }),
  });

/** createBundleUpload that must succeed; the URL rebased on the listening address. */
async function uploadUrl(org: string): Promise<{ id: string; url: string }> {
  const res = await createUpload(org);
  expect(res.status).toBe(200);
  const { id, url } = (await res.json()) as { id: string; url: string };
  const signed = new URL(url);
  return { id, url: `${base}${signed.pathname}${signed.search}` };
}

const put = (url: string, bundle: Uint8Array) =>
  fetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: bundle });

const stateOf = async (id: string) =>
  (await pool.query<{ state: string }>('SELECT state FROM bundle_uploads WHERE id = $1', [id])).rows[0]
    ?.state;

const uploadsStored = async (id: string) =>
  Number(
    (await pool.query<{ n: string }>('SELECT count(*) AS n FROM uploads WHERE upload_id = $1', [id])).rows[0]!
      .n,
  );

/**
 * A PUT whose body is sent in two parts: the first at once, the rest when `finish` is called, so the
 * request is held while railyard is receiving it.
 */
function heldPut(url: string, bundle: Buffer) {
  const cut = Math.floor(bundle.length / 2);
  const req = httpRequest(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(bundle.length) },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
  });
  req.write(bundle.subarray(0, cut));
  return {
    answer,
    finish: () => req.end(bundle.subarray(cut)),
    abort: () => req.destroy(),
  };
}

test('a PUT while another PUT of the same URL is being received is 409; the first one lands', async () => {
  const { id, url } = await uploadUrl('acme');
  const bundle = await cliBundle({ repo: repoOf('acme') });
  const first = heldPut(url, bundle);
  await waitFor('the first PUT to claim the upload', async () => (await stateOf(id)) === 'receiving');

  const second = await put(url, bundle);
  expect(second.status).toBe(409);
  expect(await second.text()).toBe('A bundle is being received on this upload URL; retry when it is done.');
  expect(await stateOf(id)).toBe('receiving');
  expect(await uploadsStored(id)).toBe(0);

  first.finish();
  const landed = await first.answer;
  expect(landed.status).toBe(200);
  expect(JSON.parse(landed.body)).toMatchObject({ upload_id: id, created: true, tests: 2, failures: 1 });
  expect(await stateOf(id)).toBe('received');
  expect(await uploadsStored(id)).toBe(1);
  // Once received, the URL is spent.
  expect((await put(url, bundle)).status).toBe(410);
});

test("after railyard's own failure (5xx) the same URL works again, once", async () => {
  const { id, url } = await uploadUrl('umbrella');
  const bundle = await cliBundle({ repo: repoOf('umbrella') });
  faults.failNextIngest = true;
  const failed = await put(url, bundle);
  expect(failed.status).toBe(500);
  expect(await failed.text()).not.toContain('connection terminated');
  expect(faults.failNextIngest).toBe(false);
  // Given back: pending again, nothing stored.
  expect(await stateOf(id)).toBe('pending');
  expect(await uploadsStored(id)).toBe(0);

  const retried = await put(url, bundle);
  expect(retried.status).toBe(200);
  expect(await retried.json()).toMatchObject({ upload_id: id, created: true, tests: 2, failures: 1 });
  expect(await stateOf(id)).toBe('received');
  expect(await uploadsStored(id)).toBe(1);
  const again = await put(url, bundle);
  expect(again.status).toBe(410);
  expect(await again.text()).toBe(
    'The upload URL was already used; call createBundleUpload again for a new one.',
  );
});

test('a client that drops the connection mid-bundle gets the URL back for its retry', async () => {
  const { id, url } = await uploadUrl('wayne');
  const bundle = await cliBundle({ repo: repoOf('wayne') });
  const dropped = heldPut(url, bundle);
  dropped.answer.catch(() => undefined);
  await waitFor('the PUT to claim the upload', async () => (await stateOf(id)) === 'receiving');
  dropped.abort();
  await waitFor('the upload to be given back', async () => (await stateOf(id)) === 'pending');
  expect(await uploadsStored(id)).toBe(0);
  const retried = await put(url, bundle);
  expect(retried.status).toBe(200);
  expect(await retried.json()).toMatchObject({ upload_id: id, created: true, tests: 2 });
});

test('a refusal (4xx) spends the URL: the retry is 410, unlike after a 5xx', async () => {
  const { id, url } = await uploadUrl('stark');
  const refused = await put(url, Buffer.from('not a zstd stream at all'));
  expect(refused.status).toBe(400);
  expect(await stateOf(id)).toBe('refused');
  expect((await put(url, await cliBundle({ repo: repoOf('stark') }))).status).toBe(410);
});

describe('the live-URL cap of an organisation', () => {
  const liveRows = async (org: string) =>
    Number(
      (
        await pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM bundle_uploads u JOIN organisations o ON o.id = u.organisation_id
            WHERE o.slug = $1`,
          [org],
        )
      ).rows[0]!.n,
    );

  test('is 1,000 unless configured, as docs/flaky-tests.md says', () => {
    expect(DEFAULT_MAX_LIVE_UPLOADS).toBe(1_000);
  });

  test('is counted across repositories; past it 429 with Retry-After; others unaffected; expiry frees it', async () => {
    for (let i = 0; i < LIVE_CAP; i += 1) {
      const res = await createUpload('initech', repoOf('initech', i === 0 ? 'shop' : 'billing'));
      expect(res.status).toBe(200);
    }
    const refused = await createUpload('initech', repoOf('initech', 'search'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(TTL_SECONDS));
    expect(await refused.text()).toBe(
      `Organisation initech already has ${LIVE_CAP} unexpired bundle upload URLs; retry after ${TTL_SECONDS} seconds.`,
    );
    expect(await liveRows('initech')).toBe(LIVE_CAP);
    // Another organisation still gets URLs.
    expect((await createUpload('globex')).status).toBe(200);

    // Once the URLs expire, they no longer count (and their rows are purged).
    clock.offsetMs += (TTL_SECONDS + 1) * 1000;
    try {
      expect((await createUpload('initech')).status).toBe(200);
      expect(await liveRows('initech')).toBe(1);
    } finally {
      clock.offsetMs -= (TTL_SECONDS + 1) * 1000;
    }
  });

  test('holds under concurrent createBundleUpload calls', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => createUpload('hooli')));
    const statuses = answers.map((r) => r.status).sort();
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIVE_CAP);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12 - LIVE_CAP);
    expect(await liveRows('hooli')).toBe(LIVE_CAP);
  });

  test('holds when many API processes create at once (regression: one statement counted a stale snapshot)', async () => {
    // Before the per-organisation lock, 20 concurrent creates at a cap of 3 stored 4 or more URLs in
    // about 4 rounds of 10; every round must now stop at the cap.
    const wide = createPool(databaseUrl, { max: 20 });
    try {
      const pending = createPendingBundleUploads(wide, { maxLive: LIVE_CAP });
      for (let round = 0; round < 30; round += 1) {
        const { rows } = await wide.query<{ id: string }>(
          'INSERT INTO organisations (id, slug) VALUES (gen_random_uuid(), $1) RETURNING id',
          [`race-${round}`],
        );
        const org = rows[0]!.id;
        const at = new Date(now());
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, () =>
            pending.create(org, repoOf('race'), new Date(at.getTime() + TTL_SECONDS * 1000), at),
          ),
        );
        expect([round, outcomes.filter((o) => o.kind === 'created').length]).toEqual([round, LIVE_CAP]);
        expect(await liveRows(`race-${round}`)).toBe(LIVE_CAP);
      }
    } finally {
      await wide.end();
    }
  });
});
