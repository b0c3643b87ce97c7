/**
 * Uploads parsed on worker threads store what uploads parsed in-thread store. Two apps share one
 * database: one with the parser pool (as server.ts builds it), one without. Every fixture goes through
 * both, in both request forms, under its own variant (so the tests are distinct rows); the answers and
 * every stored row (results, rollups, fingerprints, test cases) are the same.
 */
import { readdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { type JunitParserPool, startJunitParserPool } from '../../../flaky/junit/pool';
import { createFlakyStore } from '../../../flaky/service';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';
import { fixture, FIXTURES, REPO } from './harness';

let pool: Pool;
let parser: JunitParserPool;
let pooled: FastifyInstance;
let inThread: FastifyInstance;
let key: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('flaky_parser_pool'));
  key = (await createApiKeyStore(pool).create('acme')).key;
  parser = await startJunitParserPool({ threads: 2 });
  const store = createFlakyStore(pool, { now: () => new Date('2026-11-20T12:00:00.000Z') });
  const flaky = { store, pageTokenSecret: TEST_PAGE_TOKEN_SECRET };
  ({ app: pooled } = await buildTestApp(pool, { flaky: { ...flaky, parser } }));
  ({ app: inThread } = await buildTestApp(pool, { flaky }));
}, 90_000);

afterAll(async () => {
  await pooled?.close();
  await inThread?.close();
  await parser?.close();
  await pool?.end();
});

const META = { org_url_slug: 'acme', commit_sha: 'c0ffee1', branch: 'feature/x', pr_number: 7 };
const CODEOWNERS = '* @acme/everyone\n*.py @acme/python\n';

async function upload(
  app: FastifyInstance,
  form: 'json' | 'multipart',
  uploadId: string,
  variant: string,
  files: { name: string; content: string }[],
) {
  const meta = { ...META, upload_id: uploadId, variant, codeowners: CODEOWNERS };
  if (form === 'json') {
    return app.inject({
      method: 'POST',
      url: '/v1/flaky-tests/upload',
      headers: { 'content-type': 'application/json', 'x-api-token': key },
      payload: JSON.stringify({ ...meta, repo: REPO, files }),
    });
  }
  const body = new FormData();
  body.append('repo.host', REPO.host);
  body.append('repo.owner', REPO.owner);
  body.append('repo.name', REPO.name);
  for (const [name, value] of Object.entries(meta)) body.append(name, String(value));
  for (const file of files) body.append('file', new Blob([file.content]), file.name);
  const encoded = new Response(body);
  return app.inject({
    method: 'POST',
    url: '/v1/flaky-tests/upload',
    headers: { 'content-type': encoded.headers.get('content-type')!, 'x-api-token': key },
    payload: Buffer.from(await encoded.arrayBuffer()),
  });
}

/** Every row an upload wrote, by test identity (ids differ: the variant is part of them). */
async function stored(uploadId: string) {
  const results = await pool.query(
    `SELECT t.file, t.classname, t.parent, t.name, t.codeowners, r.attempt, r.outcome, r.infra,
       r.duration_ms, r.fingerprint
     FROM test_results r JOIN test_cases t ON t.pk = r.test_pk JOIN uploads u ON u.pk = r.upload_pk
     WHERE u.upload_id = $1 ORDER BY t.name, t.classname, t.parent, t.file, r.attempt`,
    [uploadId],
  );
  const tests = `SELECT DISTINCT r.test_pk FROM test_results r JOIN uploads u ON u.pk = r.upload_pk
     WHERE u.upload_id = $1`;
  const rollups = await pool.query(
    `SELECT t.name, t.classname, t.parent, d.attempts, d.failures, d.infra_attempts, d.infra_failures
     FROM test_day_rollups d JOIN test_cases t ON t.pk = d.test_pk
     WHERE d.test_pk IN (${tests}) ORDER BY t.name, t.classname, t.parent`,
    [uploadId],
  );
  const fingerprints = await pool.query(
    `SELECT t.name, t.classname, t.parent, f.fingerprint, f.occurrences, f.summary, f.sample
     FROM test_failure_fingerprints f JOIN test_cases t ON t.pk = f.test_pk
     WHERE f.test_pk IN (${tests}) ORDER BY t.name, t.classname, t.parent, f.fingerprint`,
    [uploadId],
  );
  const upload = await pool.query(
    `SELECT files, tests, results, failures, skipped, infra FROM uploads WHERE upload_id = $1`,
    [uploadId],
  );
  return {
    results: results.rows,
    rollups: rollups.rows,
    fingerprints: fingerprints.rows,
    upload: upload.rows,
  };
}

const FIXTURE_FILES = readdirSync(FIXTURES).filter((f) => f.endsWith('.xml'));

describe.each(['multipart', 'json'] as const)('%s uploads', (form) => {
  test.each(FIXTURE_FILES)('%s stores the same rows either way', async (name) => {
    const files = [{ name, content: fixture(name) }];
    const a = await upload(pooled, form, `pool-${form}-${name}`, `pool-${form}`, files);
    const b = await upload(inThread, form, `thread-${form}-${name}`, `thread-${form}`, files);
    expect(a.statusCode).toBe(200);
    expect({ ...a.json(), upload_id: null }).toEqual({ ...b.json(), upload_id: null });
    const rows = await stored(`pool-${form}-${name}`);
    expect(rows.results.length).toBeGreaterThan(0);
    expect(rows).toEqual(await stored(`thread-${form}-${name}`));
  });

  test('an upload of every fixture at once stores the same rows either way', async () => {
    const files = FIXTURE_FILES.map((name) => ({ name, content: fixture(name) }));
    const a = await upload(pooled, form, `pool-${form}-all`, `pool-all-${form}`, files);
    const b = await upload(inThread, form, `thread-${form}-all`, `thread-all-${form}`, files);
    expect(a.statusCode).toBe(200);
    expect({ ...a.json(), upload_id: null }).toEqual({ ...b.json(), upload_id: null });
    expect(await stored(`pool-${form}-all`)).toEqual(await stored(`thread-${form}-all`));
  });
});

test('a refused file gets the same answer either way', async () => {
  const files = [{ name: 'bad.xml', content: '<?xml version="1.0"?><!DOCTYPE x><testsuites/>' }];
  for (const form of ['json', 'multipart'] as const) {
    const a = await upload(pooled, form, `pool-bad-${form}`, 'x', files);
    const b = await upload(inThread, form, `thread-bad-${form}`, 'x', files);
    expect(a.statusCode).toBe(400);
    expect([a.statusCode, a.body]).toEqual([b.statusCode, b.body]);
  }
});

/**
 * Names and failure text the encoded rows must carry as they are (issue 26: the parser thread encodes
 * the COPY rows): tabs, newlines, backslashes, quotes, astral Unicode, and names longer than the
 * 1,000-character bound (shortened by the parser, then identical either way).
 */
function awkwardReport(failing: number, passing: number): string {
  const long = '𝄞'.repeat(1_200);
  const cases: string[] = [];
  for (let i = 0; i < failing; i += 1)
    cases.push(
      `<testcase classname="pkg\\tab&#9;${i}" name="näme\\n&#10;${i} &quot;q&quot; 🧪" time="0.${i}">` +
        `<failure message="boom&#9;at C:\\temp\\x${i}&#10;second line" type="Err\\or">stack\\trace&#10;  at é ${i}</failure></testcase>`,
    );
  for (let i = 0; i < passing; i += 1)
    cases.push(`<testcase classname="${long}" name="${long}${i}" time="99999999"/>`);
  return `<?xml version="1.0" encoding="UTF-8"?><testsuites><testsuite name="s\\uite&#9;x">${cases.join('')}</testsuite></testsuites>`;
}

test.each([
  ['awkward text and names at the bound', awkwardReport(3, 2)],
  ['an infrastructure upload (almost every result failed)', awkwardReport(40, 1)],
])('%s: the same rows either way, and one digest', async (_, content) => {
  const files = [{ name: 'awkward.xml', content }];
  const label = content.length;
  for (const form of ['multipart', 'json'] as const) {
    const a = await upload(pooled, form, `pool-awkward-${label}-${form}`, `awkward-${form}-pool`, files);
    const b = await upload(
      inThread,
      form,
      `thread-awkward-${label}-${form}`,
      `awkward-${form}-thread`,
      files,
    );
    expect(a.statusCode).toBe(200);
    expect({ ...a.json(), upload_id: null }).toEqual({ ...b.json(), upload_id: null });
    const rows = await stored(`pool-awkward-${label}-${form}`);
    expect(rows.results.length).toBeGreaterThan(0);
    expect(rows).toEqual(await stored(`thread-awkward-${label}-${form}`));
    // The same upload sent again through the other parser is the same upload (same content digest):
    // acknowledged as already stored, not refused as a conflict.
    const again = await upload(
      inThread,
      form,
      `pool-awkward-${label}-${form}`,
      `awkward-${form}-pool`,
      files,
    );
    expect([again.statusCode, again.json().created]).toEqual([200, false]);
  }
  expect((await stored(`pool-awkward-${label}-multipart`)).upload[0].infra).toBe(
    content.includes('boom&#9;at C:\\temp\\x39'),
  );
});
