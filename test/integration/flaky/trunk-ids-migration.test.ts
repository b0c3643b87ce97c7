/**
 * Migration 0013 on a populated database. The database is migrated to 0012, filled through the real
 * API (uploads of two organisations with variants, files and failures, an override, a ticket, an
 * outbox row), and its test ids are put back to railyard's scheme before 0013 (computed here, as the
 * old identity.ts did). After 0013: every test case has the id ingest computes now, every row that
 * refers to a test still refers to the same one, overrides, tickets and statuses are unchanged, a new
 * upload of the same tests lands on the same rows, and tests that only a '#' told apart keep the
 * older one's history under its old id. The migration's SHA-1 and ids agree with Node's (property).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { Client, type Pool } from 'pg';
import { v5 as uuidv5 } from 'uuid';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { testCaseId } from '../../../flaky/identity';
import { createPool } from '../../../stores/db';
import { MIGRATIONS_DIR, runMigrations } from '../../../stores/migrate';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp } from '../../support/app';
import { createScratchDatabase } from '../../support/postgres';
import { junit, REPO } from './harness';

const MIGRATION = '0013_trunk-test-ids';
// Another organisation's repository of the same name: its tests get ids of their own.
const GLOBEX_REPO = { ...REPO, owner: 'globex' };
const OLD_NAMESPACE = '243c6ca1-0eb9-5391-a1ef-5e042bd810b8';

interface Row {
  pk: string;
  id: string;
  slug: string;
  host: string;
  owner: string;
  repo: string;
  file: string | null;
  classname: string;
  parent: string;
  name: string;
  variant: string;
  status: string;
  quarantine_override: string;
  ticket: string | null;
}

/** railyard's ids before 0013 (the identity.ts of migrations 0002-0012). */
const oldId = (r: Row) =>
  uuidv5(
    JSON.stringify([
      'railyard.test-case.v1',
      r.host,
      r.owner,
      r.repo,
      r.file ?? '',
      r.classname,
      r.parent,
      r.name,
      r.variant,
    ]),
    OLD_NAMESPACE,
  );
const newId = (r: Row) =>
  testCaseId({
    organisationSlug: r.slug,
    repository: { host: r.host, owner: r.owner, name: r.repo },
    ...(r.file === null ? {} : { file: r.file }),
    classname: r.classname,
    parent: r.parent,
    name: r.name,
    variant: r.variant,
  });

const REFERRING = [
  'test_results',
  'test_day_rollups',
  'test_failure_fingerprints',
  'test_pr_failures',
  'test_status_history',
  'quarantine_override_history',
  'test_case_event_outbox',
];

let url: string;
let pool: Pool;
let app: FastifyInstance;
let acme: string;
let globex: string;

/**
 * Today's ingestion acknowledges an upload into the fold queue of migration 0025 (issue 26): the 0012
 * database borrows 0025's objects while its history is uploaded, and gives them back (0025's down
 * part, every upload folded) before the migrations run, so that 0025 makes them itself. The same for
 * 0028's per-test summaries table and 0031's quarantine lifecycle, which the fold writes, and 0034's
 * per-test runs in the fold queue.
 */
const FOLD_MIGRATION = readFileSync(path.join(MIGRATIONS_DIR, '0025_flaky-fold.sql'), 'utf8');
const [FOLD_UP, FOLD_DOWN] = FOLD_MIGRATION.split('-- Down Migration') as [string, string];
/** The fold also keeps per-test summaries (migration 0028): their table is borrowed the same way. */
const SUMMARIES_MIGRATION = readFileSync(path.join(MIGRATIONS_DIR, '0028_test-case-summaries.sql'), 'utf8');
const SUMMARIES_UP = SUMMARIES_MIGRATION.slice(
  0,
  SUMMARIES_MIGRATION.indexOf('INSERT INTO test_case_summaries'),
);
const SUMMARIES_DOWN = SUMMARIES_MIGRATION.split('-- Down Migration')[1]!;
/** The fold also counts clean runs and releases (migration 0031): borrowed the same way. */
const LIFECYCLE_MIGRATION = readFileSync(path.join(MIGRATIONS_DIR, '0031_quarantine-lifecycle.sql'), 'utf8');
const [LIFECYCLE_UP, LIFECYCLE_DOWN] = LIFECYCLE_MIGRATION.split('-- Down Migration') as [string, string];
/** The fold queue carries each upload's runs per test (migration 0034): borrowed the same way. */
const RUNS_MIGRATION = readFileSync(path.join(MIGRATIONS_DIR, '0034_fold-runs-per-test.sql'), 'utf8');
const [RUNS_UP, RUNS_DOWN] = RUNS_MIGRATION.split('-- Down Migration') as [string, string];

async function migrateUpTo(name: string | undefined): Promise<void> {
  const { runner } = await import('node-pg-migrate');
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort();
  const count = name === undefined ? Infinity : files.filter((f) => f < `${name}.sql`).length;
  await runner({
    databaseUrl: url,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    count,
    singleTransaction: true,
    log: () => undefined,
  });
}

const post = (path: string, body: unknown, key = acme) =>
  app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', 'x-api-token': key },
    payload: JSON.stringify(body),
  });

const upload = (key: string, slug: string, uploadId: string, variant: string, xml: string) =>
  post(
    '/v1/flaky-tests/upload',
    {
      org_url_slug: slug,
      repo: slug === 'acme' ? REPO : GLOBEX_REPO,
      upload_id: uploadId,
      commit_sha: `sha-${uploadId}`,
      branch: 'main',
      pr_number: 7,
      variant,
      files: [{ name: 'results.xml', content: xml }],
    },
    key,
  );

async function rows(): Promise<Row[]> {
  const { rows: found } = await pool.query<Row>(
    `SELECT tc.pk::text, tc.id::text, o.slug, r.host, r.owner, r.name AS repo, tc.file, tc.classname, tc.parent,
            tc.name, tc.variant, tc.status, tc.quarantine_override, tc.ticket
       FROM test_cases tc JOIN repositories r ON r.pk = tc.repository_pk JOIN organisations o ON o.id = tc.organisation_id
      ORDER BY tc.pk`,
  );
  return found;
}

async function references(): Promise<Record<string, string>> {
  const counts: Record<string, string> = {};
  for (const table of REFERRING) {
    const { rows: found } = await pool.query<{ test_pk: string; n: string }>(
      `SELECT test_pk::text, count(*)::text AS n FROM ${table} GROUP BY test_pk ORDER BY test_pk`,
    );
    for (const r of found) counts[`${table}:${r.test_pk}`] = r.n;
  }
  return counts;
}

beforeAll(async () => {
  url = await createScratchDatabase('trunk_ids');
  await migrateUpTo(MIGRATION);
  pool = createPool(url, { max: 5 });
  await pool.query(FOLD_UP);
  await pool.query(RUNS_UP);
  await pool.query(SUMMARIES_UP);
  await pool.query(LIFECYCLE_UP);
  const keys = createApiKeyStore(pool);
  acme = (await keys.create('acme')).key;
  globex = (await keys.create('globex')).key;
  app = (await buildTestApp(pool)).app;
});

afterAll(async () => {
  await app?.close();
  await pool?.end();
});

test('0013 moves every stored test to its Trunk id and keeps everything attached to it', async () => {
  // History under the old scheme: two organisations with the same repository name, variants, a
  // file attribute, a test flaky on a same-commit retry, one always failing.
  for (const [i, variant] of ['', 'linux'].entries()) {
    for (const [key, slug] of [
      [acme, 'acme'],
      [globex, 'globex'],
    ] as const) {
      expect(
        (await upload(key, slug, `u${i}`, variant, junit({ Flaky: 'FP', Broken: 'F', Fine: 'P' })))
          .statusCode,
      ).toBe(200);
      expect(
        (
          await upload(
            key,
            slug,
            `f${i}`,
            variant,
            junit({ WithFile: 'P' }, { classname: 'shop.F', file: 'src/f.ts' }),
          )
        ).statusCode,
      ).toBe(200);
    }
  }
  // Tests told apart only by where a '#' falls: one Trunk id for two old rows.
  expect((await upload(acme, 'acme', 'h1', '', junit({ 'b#c': 'F' }, { classname: 'a' }))).statusCode).toBe(
    200,
  );
  const before = await rows();
  const hashFirst = before.find((r) => r.name === 'b#c')!;
  const { rows: inserted } = await pool.query<{ pk: string }>(
    `INSERT INTO test_cases (organisation_id, id, repository_pk, classname, parent, name, status_at)
     SELECT organisation_id, gen_random_uuid(), repository_pk, 'a#b', 'a', 'c', now() FROM test_cases WHERE pk = $1
     RETURNING pk::text`,
    [hashFirst.pk],
  );
  // The a#b / parent a / name c row hashes as "a#b#a#c"; make the first row's fields collide with it.
  await pool.query(`UPDATE test_cases SET classname = 'a', parent = 'b#a', name = 'c' WHERE pk = $1`, [
    hashFirst.pk,
  ]);

  const settings = await post('/v1/flaky-tests/update-repository-settings', {
    repo: REPO,
    org_url_slug: 'acme',
    quarantine: { enabled: true, auto_quarantine: true },
  });
  expect(settings.statusCode).toBe(200);
  const fine = before.find((r) => r.slug === 'acme' && r.name === 'Fine' && r.variant === 'linux')!;
  const broken = before.find((r) => r.slug === 'acme' && r.name === 'Broken' && r.variant === '')!;
  expect(
    (
      await post('/v1/flaky-tests/set-quarantine-override', {
        repo: REPO,
        org_url_slug: 'acme',
        test_id: fine.id,
        override: 'ALWAYS_QUARANTINE',
      })
    ).statusCode,
  ).toBe(200);
  expect(
    (
      await post('/v1/flaky-tests/link-ticket-to-test-case', {
        repo: REPO,
        test_case_id: broken.id,
        external_ticket_id: 'KAN-1',
      })
    ).statusCode,
  ).toBeLessThan(300);
  await pool.query(
    `INSERT INTO test_case_event_outbox (organisation_id, test_pk, event_type, source_pk)
     SELECT organisation_id, pk, 'test_case.status_changed', 999999 FROM test_cases WHERE pk = $1`,
    [broken.pk],
  );

  // Put every id back to the pre-0013 scheme.
  const populated = await rows();
  for (const r of populated)
    await pool.query('UPDATE test_cases SET id = $1 WHERE pk = $2', [oldId(r), r.pk]);
  const old = await rows();
  const refsBefore = await references();
  expect(old.length).toBeGreaterThanOrEqual(18);
  expect(old.filter((r) => r.status === 'flaky').length).toBeGreaterThan(0);
  expect(Object.keys(refsBefore).some((k) => k.startsWith('test_case_event_outbox'))).toBe(true);
  expect(Object.keys(refsBefore).some((k) => k.startsWith('quarantine_override_history'))).toBe(true);

  expect((await pool.query('SELECT 1 FROM flaky_fold_pending')).rowCount).toBe(0);
  await pool.query(LIFECYCLE_DOWN);
  await pool.query(SUMMARIES_DOWN);
  await pool.query(RUNS_DOWN);
  await pool.query(FOLD_DOWN);
  await runMigrations(url);

  const after = await rows();
  expect(after.map((r) => r.pk)).toEqual(old.map((r) => r.pk));
  for (const [i, r] of after.entries()) {
    const was = old[i]!;
    if (r.pk === inserted[0]!.pk) expect(r.id).toBe(was.id);
    else expect(r.id).toBe(newId(r));
    expect({ ...r, id: '' }).toEqual({ ...was, id: '' });
  }
  expect(await references()).toEqual(refsBefore);
  const orphans = await pool.query(
    `SELECT count(*)::int AS n FROM test_results tr LEFT JOIN test_cases tc ON tc.pk = tr.test_pk WHERE tc.pk IS NULL`,
  );
  expect(orphans.rows[0]).toEqual({ n: 0 });
  const applied = await pool.query(`SELECT count(*)::int AS n FROM pgmigrations WHERE name = $1`, [
    MIGRATION,
  ]);
  expect(applied.rows[0]).toEqual({ n: 1 });

  // Reads by the new ids find the same tests with their override and ticket.
  const fineAfter = after.find((r) => r.pk === fine.pk)!;
  const quarantined = await post('/v1/flaky-tests/list-quarantined-tests', {
    repo: REPO,
    org_url_slug: 'acme',
    page_query: { page_size: 100 },
  });
  expect(quarantined.body).toContain(fineAfter.id);
  const ticket = await app.inject({
    method: 'GET',
    url: `/v1/flaky-tests/tickets/KAN-1`,
    headers: { 'x-api-token': acme },
  });
  expect(ticket.body).toContain(after.find((r) => r.pk === broken.pk)!.id);

  // New results of the same tests land on the same rows.
  expect(
    (await upload(acme, 'acme', 'u9', 'linux', junit({ Flaky: 'P', Broken: 'F', Fine: 'P' }))).statusCode,
  ).toBe(200);
  expect((await rows()).map((r) => r.pk)).toEqual(after.map((r) => r.pk));
});

test("the migration's SQL computes Node's SHA-1 and identity.ts's ids (property)", async () => {
  const sql = readFileSync(path.join(MIGRATIONS_DIR, `${MIGRATION}.sql`), 'utf8');
  const functions = sql.slice(
    sql.indexOf('CREATE FUNCTION pg_temp.railyard_sha1'),
    sql.indexOf('CREATE TEMPORARY TABLE'),
  );
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(functions);
    const text = fc.string({ unit: 'grapheme', maxLength: 200 }).filter((s) => !s.includes('\u0000'));
    await fc.assert(
      fc.asyncProperty(text, async (s) => {
        const { rows: r } = await client.query<{ h: string }>(
          `SELECT encode(pg_temp.railyard_sha1(convert_to($1, 'UTF8')), 'hex') AS h`,
          [s],
        );
        expect(r[0]!.h).toBe(createHash('sha1').update(s, 'utf8').digest('hex'));
      }),
      { numRuns: 150 },
    );
    const part = fc
      .oneof(fc.constantFrom('', '#', 'a#b', 'é', '📦'), fc.string({ maxLength: 40 }))
      .filter((s) => !s.includes('\u0000'));
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(part, part, part, part, part),
        fc.boolean(),
        async ([file, classname, parent, name, variant], noFile) => {
          const r = {
            slug: 'acme',
            host: 'github.com',
            owner: 'acme',
            repo: 'shop',
            file: noFile ? null : file,
            classname,
            parent,
            name,
            variant,
          };
          const { rows: found } = await client.query<{ id: string }>(
            `SELECT pg_temp.railyard_trunk_test_id($1, $2, $3, $4, $5, $6, $7, $8, $9)::text AS id`,
            [r.slug, r.host, r.owner, r.repo, r.file, r.classname, r.parent, r.name, r.variant],
          );
          expect(found[0]!.id).toBe(newId(r as Row));
        },
      ),
      { numRuns: 150 },
    );
  } finally {
    await client.end();
  }
});
