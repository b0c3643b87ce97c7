/**
 * A flaky-test world for integration tests: a migrated scratch database, the real app with a
 * controllable clock, API keys of two organisations, and helpers that upload JUnit through HTTP
 * (multipart or JSON) and call the JSON endpoints.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Pool } from 'pg';
import { createFlakyStore, type FlakyStore, type FoldMode } from '../../../flaky/service';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

export const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'junit');
export const REPO = { host: 'github.com', owner: 'acme', name: 'shop' };
export const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

export interface Harness {
  pool: Pool;
  /** The scratch database's URL (for a child process of the test). */
  url: string;
  app: FastifyInstance;
  store: FlakyStore;
  key: string;
  otherKey: string;
  clock: { now: Date };
  /** Advances the clock by `ms`. */
  tick(ms: number): void;
  post(url: string, body: unknown, key?: string): Promise<LightMyRequestResponse>;
  uploadJson(
    meta: UploadMeta,
    files: { name: string; content: string }[],
    key?: string,
  ): Promise<LightMyRequestResponse>;
  uploadMultipart(
    meta: UploadMeta,
    files: { name: string; content: string }[],
    key?: string,
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface UploadMeta {
  upload_id: string;
  commit_sha?: string;
  branch?: string;
  pr_number?: number | string;
  job_name?: string;
  job_url?: string;
  attempt?: number;
  variant?: string;
  codeowners?: string;
  repo?: typeof REPO;
  org_url_slug?: string;
}

export async function createHarness(
  prefix: string,
  start = new Date('2026-11-20T12:00:00.000Z'),
  options: { fold?: FoldMode } = {},
): Promise<Harness> {
  const { pool, url } = await createMigratedDatabase(prefix);
  const keys = createApiKeyStore(pool);
  const key = (await keys.create('acme')).key;
  const otherKey = (await keys.create('globex')).key;
  const clock = { now: start };
  const store = createFlakyStore(pool, { now: () => clock.now, ...options });
  const { app } = await buildTestApp(pool, { flaky: { store, pageTokenSecret: TEST_PAGE_TOKEN_SECRET } });
  const full = (meta: UploadMeta) => ({
    org_url_slug: 'acme',
    repo: REPO,
    commit_sha: 'c0ffee1',
    branch: 'main',
    ...meta,
  });
  return {
    pool,
    url,
    app,
    store,
    key,
    otherKey,
    clock,
    tick: (ms) => void (clock.now = new Date(clock.now.getTime() + ms)),
    post: (url, body, k = key) =>
      app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', 'x-api-token': k },
        payload: JSON.stringify(body),
      }),
    uploadJson: (meta, files, k = key) =>
      app.inject({
        method: 'POST',
        url: '/v1/flaky-tests/upload',
        headers: { 'content-type': 'application/json', 'x-api-token': k },
        payload: JSON.stringify({ ...full(meta), files }),
      }),
    async uploadMultipart(meta, files, k = key) {
      const form = new FormData();
      const { repo, ...rest } = full(meta);
      form.append('repo.host', repo.host);
      form.append('repo.owner', repo.owner);
      form.append('repo.name', repo.name);
      for (const [name, value] of Object.entries(rest)) {
        if (name === 'codeowners') form.append('codeowners', new Blob([String(value)]), 'CODEOWNERS');
        else if (value !== undefined) form.append(name, String(value));
      }
      for (const file of files)
        form.append('file', new Blob([file.content], { type: 'application/xml' }), file.name);
      const encoded = new Response(form);
      return app.inject({
        method: 'POST',
        url: '/v1/flaky-tests/upload',
        headers: { 'content-type': encoded.headers.get('content-type')!, 'x-api-token': k },
        payload: Buffer.from(await encoded.arrayBuffer()),
      });
    },
    async close() {
      await app.close();
      await pool.end();
    },
  };
}

/** A minimal generic JUnit document: `tests` maps test name → attempt outcomes ('P' | 'F' | 'S'). */
export function junit(
  tests: Record<string, string>,
  options: { classname?: string; file?: string; message?: string } = {},
): string {
  const classname = options.classname ?? 'shop.Cart';
  const cases = Object.entries(tests).flatMap(([name, outcomes]) =>
    [...outcomes].map((outcome, i) => {
      const file = options.file === undefined ? '' : ` file="${options.file}"`;
      const body =
        outcome === 'F'
          ? `<failure message="${options.message ?? `expected 1 to equal ${i + 2}`}" type="AssertionError">at line ${i + 10}</failure>`
          : outcome === 'S'
            ? '<skipped/>'
            : '';
      return `<testcase classname="${classname}" name="${name}"${file} time="0.01">${body}</testcase>`;
    }),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="${classname}" tests="${cases.length}">${cases.join('')}</testsuite></testsuites>`;
}
