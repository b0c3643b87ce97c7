/**
 * A listening railyard for Trunk bundle upload tests: a migrated scratch database, API keys of two
 * organisations (acme, globex), the real app with bundle uploads on (small limits so refusals are
 * cheap to provoke) listening on a free loopback port that is also its public URL, and the CLI's
 * calls made with fetch as the CLI makes them.
 */
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { type BundleLimits, DEFAULT_BUNDLE_LIMITS } from '../../../flaky/bundle';
import type { JunitParser } from '../../../flaky/junit';
import { createFlakyStore } from '../../../flaky/service';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createRepositoryPublicIds } from '../../../stores/repository-public-ids';
import { buildTestApp, type CapturedLog, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { bundleOf, metaJson, type BundleEntry } from '../../support/bundles';
import { createMigratedDatabase } from '../../support/postgres';

export const REPO = { host: 'github.com', owner: 'acme', name: 'shop' };
export const MAX_BUNDLE_BYTES = 64 * 1024;
export const MAX_UNPACKED_BYTES = 1024 * 1024;

export interface BundleWorld {
  readonly pool: Pool;
  readonly app: FastifyInstance;
  readonly log: CapturedLog;
  readonly base: string;
  readonly key: string;
  readonly otherKey: string;
  /** Real time plus this offset (the reads end their window at the request's time). */
  readonly clock: { offsetMs: number };
  now(): number;
  createUpload(body?: object, token?: string): Promise<Response>;
  /** createBundleUpload that must succeed, checked for the CLI's response shape. */
  uploadUrl(): Promise<{ id: string; url: string }>;
  put(url: string, bundle: Uint8Array, headers?: Record<string, string>): Promise<Response>;
  count(table: string): Promise<number>;
  close(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

export const JUNIT = (tests: Record<string, 'P' | 'F'>) =>
  `<?xml version="1.0"?><testsuites><testsuite name="checkout">${Object.entries(tests)
    .map(
      ([name, r]) =>
        `<testcase classname="Cart" name="${name}" file="src/cart/${name}.test.ts">${r === 'F' ? '<failure message="expected 2">trace</failure>' : ''}</testcase>`,
    )
    .join('')}</testsuite></testsuites>`;

/** The bundle the CLI writes for one JUnit file with a pass and a failure, plus `extra` entries. */
export const cliBundle = (options: Parameters<typeof metaJson>[0] = {}, extra: BundleEntry[] = []) =>
  bundleOf([
    { name: 'meta.json', content: JSON.stringify(metaJson({ junit: ['reports/cart.xml'], ...options })) },
    { name: 'junit/0', content: JUNIT({ adds: 'P', totals: 'F' }) },
    ...extra,
  ]);

export interface BundleWorldOptions {
  /** The parser the app uses (the in-thread one by default); a pool reads bundles on its threads. */
  readonly parser?: JunitParser;
  /** Bundle limits instead of the small ones above. */
  readonly limits?: BundleLimits;
}

export async function createBundleWorld(
  prefix: string,
  options: BundleWorldOptions = {},
): Promise<BundleWorld> {
  const { pool } = await createMigratedDatabase(prefix);
  const keys = createApiKeyStore(pool);
  const key = (await keys.create('acme')).key;
  const otherKey = (await keys.create('globex')).key;
  const clock = { offsetMs: 0 };
  const now = () => Date.now() + clock.offsetMs;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app, log } = await buildTestApp(pool, {
    publicUrl: base,
    flaky: {
      store: createFlakyStore(pool, { now: () => new Date(now()) }),
      pageTokenSecret: TEST_PAGE_TOKEN_SECRET,
      ...(options.parser === undefined ? {} : { parser: options.parser }),
    },
    forkAuth: { publicIds: createRepositoryPublicIds(pool) },
    bundleUploads: {
      pool,
      secret: TEST_PAGE_TOKEN_SECRET,
      maxBundleBytes: MAX_BUNDLE_BYTES,
      limits: options.limits ?? { ...DEFAULT_BUNDLE_LIMITS, maxUnpackedBytes: MAX_UNPACKED_BYTES },
      urlTtlSeconds: 600,
      now,
    },
  });
  await app.listen({ host: '127.0.0.1', port });
  const createUpload = (body: object = {}, token = key) =>
    fetch(`${base}/v1/metrics/createBundleUpload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': token },
      // What the CLI sends (api/src/message.rs), plus a field it may add one day.
      body: JSON.stringify({
        repo: REPO,
        orgUrlSlug: 'acme',
        clientVersion: 'trunk-analytics-cli cargo=0.0.0',
        remoteUrls: ['https://github.com/acme/shop'],
        externalId: null,
        testCollectionShortId: null,
        somethingNew: true,
        ...body,
      }),
    });
  return {
    pool,
    app,
    log,
    base,
    key,
    otherKey,
    clock,
    now,
    createUpload,
    async uploadUrl() {
      const res = await createUpload();
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id: string; idV2: string; url: string; key: string };
      expect(body).toEqual({
        id: expect.any(String),
        idV2: body.id,
        url: expect.any(String),
        key: expect.any(String),
      });
      return body;
    },
    // The CLI's PUT: the bundle as application/octet-stream with its Content-Length, no API key.
    put: (url, bundle, headers = {}) =>
      fetch(url, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream', ...headers },
        body: bundle,
      }),
    count: async (table) =>
      Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n),
    async close() {
      // fetch keeps connections open; close them so close() does not wait for their idle timeout.
      app.server.closeAllConnections();
      await app.close();
      await pool.end();
    },
  };
}
