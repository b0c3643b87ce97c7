/**
 * Trunk's quarantine lookup (POST /v1/metrics/getQuarantineConfig) through the real app and
 * PostgreSQL, with bodies shaped as trunk-analytics-cli sends them: every quarantined id when no test
 * is named, the quarantined subset otherwise (by the client's id, by the fields when the id is absent,
 * and answered with the client's own id string), `isDisabled` when quarantining is off, and the
 * refusals: a wrong slug, another organisation's repository, too many tests, an oversized field.
 * Also the CLI's telemetry routes: accepted, dropped, bounded, nothing logged as an error.
 */
import { testCaseId } from '../../../flaky/identity';
import { buildTestApp } from '../../support/app';
import { createHarness, type Harness, junit, REPO } from './harness';

let h: Harness;
const SLUG = 'acme';
const CLASSNAME = 'shop.Q';

/** The id trunk-analytics-cli computes for a test of the junit() helper (suite name = classname). */
const cliId = (name: string, file?: string) =>
  testCaseId({
    organisationSlug: SLUG,
    repository: REPO,
    classname: CLASSNAME,
    parent: CLASSNAME,
    name,
    ...(file === undefined ? {} : { file }),
  });

/** A `Test` as the CLI serialises it (bundle/src/types.rs). */
const cliTest = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  parentName: CLASSNAME,
  className: CLASSNAME,
  file: null,
  id: cliId(name),
  timestamp_millis: 1_700_000_000_000,
  is_quarantined: false,
  failure_message: 'expected 1 to equal 2',
  variant: '',
  ...extra,
});

const lookup = (testIdentifiers: unknown[], extra: Record<string, unknown> = {}, key?: string) =>
  h.post(
    '/v1/metrics/getQuarantineConfig',
    {
      repo: REPO,
      remoteUrls: ['https://github.com/acme/shop.git'],
      orgUrlSlug: SLUG,
      testIdentifiers,
      ...extra,
    },
    key,
  );

const setQuarantine = (enabled: boolean) =>
  h.post('/v1/flaky-tests/update-repository-settings', {
    repo: REPO,
    org_url_slug: SLUG,
    quarantine: { enabled, auto_quarantine: true },
  });

beforeAll(async () => {
  h = await createHarness('quarantine_config');
  for (const [i, sha] of ['c1', 'c2'].entries()) {
    h.tick(60_000);
    const res = await h.uploadJson({ upload_id: `u${i}`, commit_sha: sha }, [
      { name: 'q.xml', content: junit({ Flaky: 'FP', Pinned: 'F', Fine: 'P' }, { classname: CLASSNAME }) },
      { name: 'f.xml', content: junit({ InFile: 'P' }, { classname: CLASSNAME, file: './src/f.test.ts' }) },
    ]);
    expect(res.statusCode).toBe(200);
  }
  expect((await setQuarantine(true)).statusCode).toBe(200);
  for (const [name, override] of [
    ['Pinned', 'NEVER_QUARANTINE'],
    ['Fine', 'ALWAYS_QUARANTINE'],
  ] as const) {
    const set = await h.post('/v1/flaky-tests/set-quarantine-override', {
      repo: REPO,
      org_url_slug: SLUG,
      test_id: cliId(name),
      override,
    });
    expect(set.statusCode).toBe(200);
  }
  const inFile = await h.post('/v1/flaky-tests/set-quarantine-override', {
    repo: REPO,
    org_url_slug: SLUG,
    test_id: cliId('InFile', 'src/f.test.ts'),
    override: 'ALWAYS_QUARANTINE',
  });
  expect(inFile.statusCode).toBe(200);
});

afterAll(async () => {
  await h.close();
});

test('no tests named (the plugins): every quarantined id of the repository', async () => {
  const res = await lookup([]);
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({
    isDisabled: false,
    testIds: [cliId('Flaky'), cliId('Fine'), cliId('InFile', 'src/f.test.ts')].sort(),
  });
});

test("the CLI's failures: the quarantined subset, answered with the ids the CLI compares", async () => {
  const res = await lookup([cliTest('Flaky'), cliTest('Pinned'), cliTest('Unknown')]);
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ isDisabled: false, testIds: [cliId('Flaky')] });
});

test('a test without an id is found by its fields; an upper-case id is answered as the client wrote it', async () => {
  const { id: _id, ...withoutId } = cliTest('Fine');
  const upper = cliTest('Flaky', { id: cliId('Flaky').toUpperCase(), name: 'fields that do not match' });
  const res = await lookup([withoutId, upper]);
  expect(res.json()).toEqual({
    isDisabled: false,
    testIds: [cliId('Fine'), cliId('Flaky').toUpperCase(), cliId('Flaky')],
  });
});

test('a file the CLI read as written (./src/…) finds the test railyard stored under its normalised path', async () => {
  const asWritten = cliId('InFile', './src/f.test.ts');
  const res = await lookup([cliTest('InFile', { file: './src/f.test.ts', id: asWritten })]);
  expect(res.json()).toEqual({ isDisabled: false, testIds: [asWritten, cliId('InFile', 'src/f.test.ts')] });
});

test('quarantining off: isDisabled and no ids', async () => {
  expect((await setQuarantine(false)).statusCode).toBe(200);
  try {
    expect((await lookup([cliTest('Flaky')])).json()).toEqual({ isDisabled: true, testIds: [] });
    expect((await lookup([])).json()).toEqual({ isDisabled: true, testIds: [] });
  } finally {
    expect((await setQuarantine(true)).statusCode).toBe(200);
  }
});

test("a slug that is not the key's organisation is a 404 the CLI explains as a wrong slug", async () => {
  const res = await lookup([], { orgUrlSlug: 'globex' });
  expect(res.statusCode).toBe(404);
  expect(res.body).toBe("Organisation 'globex' was not found.");
});

test("another organisation's repository is a 404, with nothing of it in the answer", async () => {
  const res = await lookup([cliTest('Flaky')], { orgUrlSlug: 'globex' }, h.otherKey);
  expect(res.statusCode).toBe(404);
  expect(res.body).toMatch(/^Repository github\.com\/acme\/shop /);
  expect(res.body).not.toContain(cliId('Flaky'));
});

test('no key is a 401', async () => {
  const res = await h.app.inject({
    method: 'POST',
    url: '/v1/metrics/getQuarantineConfig',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ repo: REPO, orgUrlSlug: SLUG, testIdentifiers: [] }),
  });
  expect(res.statusCode).toBe(401);
});

test('bounds: too many tests is a 413, an oversized field a 400, each with a sentence', async () => {
  const many = Array.from({ length: 10_001 }, (_, i) => ({ name: `t${i}`, parentName: '' }));
  const tooMany = await lookup(many);
  expect(tooMany.statusCode).toBe(413);
  expect(tooMany.body).toBe(
    "Field 'testIdentifiers' names 10001 tests; at most 10000 are allowed in one request.",
  );
  const long = await lookup([cliTest('x'.repeat(2001))]);
  expect(long.statusCode).toBe(400);
  expect(long.body).toBe("Field 'testIdentifiers[0].name' must be at most 2000 characters long.");
  const badId = await lookup([cliTest('Flaky', { id: 'i'.repeat(201) })]);
  expect(badId.statusCode).toBe(400);
});

describe('telemetry', () => {
  test.each(['/v1/flakytests-cli/upload-metrics', '/v1/flakytests-uploader/upload-metrics'])(
    '%s accepts a protobuf body, with or without a key, and drops it',
    async (url) => {
      const { app, log } = await buildTestApp(h.pool);
      try {
        const body = Buffer.from([0x0a, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x10, 0x01]);
        for (const headers of [{ 'x-api-token': h.key }, {}]) {
          const res = await app.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/x-protobuf', ...headers },
            payload: body,
          });
          expect(res.statusCode).toBe(204);
          expect(res.body).toBe('');
        }
        const tooLarge = await app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/x-protobuf' },
          payload: Buffer.alloc(65 * 1024),
        });
        expect(tooLarge.statusCode).toBe(413);
        expect(log.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
        expect(log.text()).not.toContain(h.key);
      } finally {
        await app.close();
      }
    },
  );
});
