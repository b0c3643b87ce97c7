/**
 * Ingestion through HTTP: every real fixture in both request forms, idempotency, conflicting
 * re-sends, concurrent uploads, refusals of bad files and bodies, and organisation scoping.
 */
import { readdirSync } from 'node:fs';
import { combineUploadFiles, parseJunitText } from '../../../flaky/junit';
import { createHarness, fixture, FIXTURES, type Harness, junit, REPO } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness('flaky_upload');
});
afterAll(() => h.close());

const count = async (table: string) =>
  Number((await h.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);

const FIXTURE_FILES = readdirSync(FIXTURES).filter((f) => f.endsWith('.xml'));

describe.each(['multipart', 'json'] as const)('each fixture through %s', (form) => {
  test.each(FIXTURE_FILES)('%s', async (name) => {
    const xml = fixture(name);
    const expected = combineUploadFiles([await parseJunitText(xml, { fileName: name })]);
    const attempts = expected.flatMap((t) => t.attempts);
    const send = form === 'json' ? h.uploadJson : h.uploadMultipart;
    const res = await send({ upload_id: `${form}-${name}`, variant: form }, [{ name, content: xml }]);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      upload_id: `${form}-${name}`,
      created: true,
      tests: expected.length,
      results: attempts.filter((a) => a.status !== 'skipped').length,
      failures: attempts.filter((a) => a.status === 'failed' || a.status === 'error').length,
      skipped: attempts.filter((a) => a.status === 'skipped').length,
    });
    expect(body.files).toEqual([expect.objectContaining({ name, attempts: attempts.length })]);
    const stored = await h.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM test_results r JOIN uploads u ON u.pk = r.upload_pk WHERE u.upload_id = $1`,
      [`${form}-${name}`],
    );
    expect(Number(stored.rows[0]!.n)).toBe(attempts.length);
  });
});

test('a retried test becomes ordered attempts (Surefire rerun children)', async () => {
  const { rows } = await h.pool.query<{ attempt: number; outcome: string }>(
    `SELECT r.attempt, r.outcome FROM test_results r JOIN test_cases t ON t.pk = r.test_pk
     JOIN uploads u ON u.pk = r.upload_pk
     WHERE u.upload_id = 'json-surefire-rerun.xml' AND t.name = 'computesTax' ORDER BY r.attempt`,
  );
  expect(rows.map((r) => r.attempt)).toEqual([0, 1, 2]);
  expect(rows.every((r) => r.outcome === 'fail')).toBe(true);
});

test('the same upload twice changes nothing; other content under the same id is a 409', async () => {
  const xml = junit({ adds: 'P', flips: 'FP' });
  const first = await h.uploadMultipart({ upload_id: 'twice' }, [{ name: 'junit.xml', content: xml }]);
  expect(first.json()).toMatchObject({ created: true, tests: 2, results: 3 });
  const tables = [
    'uploads',
    'test_results',
    'test_cases',
    'test_day_rollups',
    'test_status_history',
    'test_failure_fingerprints',
  ];
  const before = await Promise.all(tables.map(count));
  const again = await h.uploadJson({ upload_id: 'twice' }, [{ name: 'junit.xml', content: xml }]);
  expect(again.statusCode).toBe(200);
  expect(again.json()).toMatchObject({
    created: false,
    tests: 2,
    results: 3,
    failures: 1,
    status_changes: 0,
  });
  expect(await Promise.all(tables.map(count))).toEqual(before);
  const rollup = await h.pool.query(
    `SELECT sum(attempts)::int AS a FROM test_day_rollups d JOIN test_cases t ON t.pk = d.test_pk WHERE t.name IN ('adds', 'flips')`,
  );
  expect(rollup.rows[0]).toEqual({ a: 3 });

  const changed = await h.uploadJson({ upload_id: 'twice' }, [
    { name: 'junit.xml', content: junit({ adds: 'F' }) },
  ]);
  expect(changed.statusCode).toBe(409);
  expect(changed.body).toBe(
    'Upload "twice" was already received with different content; send new results under a new upload_id.',
  );
});

test('concurrent uploads of the same tests lose nothing', async () => {
  const names = Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [`shared-${i}`, i % 7 === 0 ? 'FP' : 'P']),
  );
  const sends = Array.from({ length: 12 }, (_, i) =>
    (i % 2 === 0 ? h.uploadJson : h.uploadMultipart)(
      { upload_id: `concurrent-${i}`, commit_sha: `sha${i % 3}` },
      [{ name: 'junit.xml', content: junit(names, { classname: 'shop.Concurrent' }) }],
    ),
  );
  // The same upload id twice at the same time: exactly one of them creates it.
  sends.push(
    h.uploadJson({ upload_id: 'concurrent-0', commit_sha: 'sha0' }, [
      { name: 'junit.xml', content: junit(names, { classname: 'shop.Concurrent' }) },
    ]),
  );
  const responses = await Promise.all(sends);
  expect(responses.map((r) => r.statusCode)).toEqual(responses.map(() => 200));
  expect(responses.filter((r) => r.json<{ created: boolean }>().created)).toHaveLength(12);
  const { rows } = await h.pool.query<{ attempts: number; results: number; tests: number }>(
    `SELECT (SELECT sum(d.attempts)::int FROM test_day_rollups d JOIN test_cases t ON t.pk = d.test_pk WHERE t.classname = 'shop.Concurrent') AS attempts,
            (SELECT count(*)::int FROM test_results r JOIN test_cases t ON t.pk = r.test_pk WHERE t.classname = 'shop.Concurrent') AS results,
            (SELECT count(*)::int FROM test_cases WHERE classname = 'shop.Concurrent') AS tests`,
  );
  const perUpload = Object.values(names).join('').length;
  expect(rows[0]).toEqual({ attempts: 12 * perUpload, results: 12 * perUpload, tests: 40 });
});

test('codeowners are resolved from the upload’s CODEOWNERS', async () => {
  const xml = junit({ owned: 'P' }, { classname: 'shop.Owned', file: 'src/cart/owned.test.ts' });
  const res = await h.uploadMultipart(
    { upload_id: 'owners', codeowners: '* @acme/all\nsrc/cart/ @acme/cart\n' },
    [{ name: 'junit.xml', content: xml }],
  );
  expect(res.statusCode).toBe(200);
  const { rows } = await h.pool.query(`SELECT codeowners FROM test_cases WHERE classname = 'shop.Owned'`);
  expect(rows[0]).toEqual({ codeowners: ['@acme/cart'] });
});

describe('refusals', () => {
  test.each([
    [
      'not XML',
      'this is not xml',
      /^JUnit file "bad.xml" is not well-formed XML at line 1, column \d+: .+\.$/,
    ],
    [
      'a DOCTYPE',
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><testsuites/>',
      /^JUnit file "bad.xml" contains a DOCTYPE declaration, which is refused because it can define entities/,
    ],
    ['not JUnit', '<html/>', /^JUnit file "bad.xml" has the root element <html>, but JUnit XML starts with/],
  ])('%s → 400 with the parser’s sentence (both forms)', async (_what, content, message) => {
    for (const send of [h.uploadJson, h.uploadMultipart]) {
      const res = await send({ upload_id: 'refused' }, [{ name: 'bad.xml', content }]);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('text/plain');
      expect(res.body).toMatch(message);
    }
    expect(await h.pool.query(`SELECT 1 FROM uploads WHERE upload_id = 'refused'`)).toMatchObject({
      rowCount: 0,
    });
  });

  test('metadata errors name the field', async () => {
    const res = await h.uploadJson({ upload_id: '' }, [{ name: 'a.xml', content: junit({ a: 'P' }) }]);
    expect(res.statusCode).toBe(400);
    expect(res.body).toBe("Field 'upload_id' must be at least 1 characters long.");
    const noFiles = await h.uploadMultipart({ upload_id: 'no-files' }, []);
    expect(noFiles.body).toBe('The upload has no JUnit file; send at least one file part.');
    const badPr = await h.uploadMultipart({ upload_id: 'x', pr_number: 'abc' }, [
      { name: 'a.xml', content: junit({ a: 'P' }) },
    ]);
    expect(badPr.body).toBe("Field 'pr_number' must be a number or a numeric string.");
  });

  test('multipart file data over 20 MiB is a 413', async () => {
    const big = `<testsuites>${' '.repeat(21 * 1024 * 1024)}</testsuites>`;
    const res = await h.uploadMultipart({ upload_id: 'big' }, [{ name: 'big.xml', content: big }]);
    expect(res.statusCode).toBe(413);
    expect(res.body).toBe('The request body is larger than the 20 MiB limit.');
  });

  test('another organisation’s slug is a 404, and its key sees nothing of ours', async () => {
    const res = await h.uploadJson({ upload_id: 'x', org_url_slug: 'globex' }, [
      { name: 'a.xml', content: junit({ a: 'P' }) },
    ]);
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe("Organisation 'globex' was not found.");
    const theirs = await h.post(
      '/v1/flaky-tests/get-repository-settings',
      { repo: REPO, org_url_slug: 'globex' },
      h.otherKey,
    );
    expect(theirs.statusCode).toBe(404);
    expect(theirs.body).toBe('Repository github.com/acme/shop was not found.');
  });

  test('no key is a 401 in plain text', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/v1/flaky-tests/upload', payload: {} });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toContain('text/plain');
  });
});
