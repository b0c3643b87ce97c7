/**
 * The list pages and get-test-details are JSON written by PostgreSQL (store/test-case-json.ts,
 * store/keyset.ts). They must be byte for byte what the JavaScript wire builders make from the same
 * tests' records: every page of every list, and get-test-details of every test, is compared as text
 * with JSON.stringify of testCase / unhealthyTestCase / quarantinedTest over loadTestCases, on rows
 * with awkward text (quotes, backslashes, control characters, non-BMP characters, empty and NULL
 * optional fields), tickets that need URL encoding, with and without a ticket URL template, and
 * timestamps with microseconds. The building blocks (string escaping, ISO timestamps, rate rounding,
 * URL encoding) are also checked one by one.
 */
import { loadTestCases, fraction } from '../../../flaky/store/test-case-reads';
import { isoSql, jsonText } from '../../../flaky/store/test-case-details';
import { fractionSql, uriComponentSql } from '../../../flaky/store/test-case-json';
import { createLinks, quarantinedTest, testCase, unhealthyTestCase } from '../../../flaky/test-case-wire';
import {
  ListFailingTestsResponse,
  ListQuarantinedTestsResponse,
  ListUnhealthyTestsResponse,
} from '../../../api/schemas/flaky-tests';
import { createHarness, type Harness, junit, REPO } from './harness';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = new Date('2026-11-20T12:00:00.000Z');
const links = createLinks('http://127.0.0.1:8080');
const scoped = { repo: REPO, org_url_slug: 'acme' };
const AWKWARD = 'q"uote \\ back\nnew\ttab \u0001\u001f\u007f \u2028 é € 😀 </script>';

let h: Harness;
beforeAll(async () => {
  h = await createHarness('flaky_json_pages', new Date(T0.getTime() - 5 * DAY));
  const names = Array.from({ length: 9 }, (_, i) => `T${i}`);
  const outcomes = ['FP', 'F', 'FFP', 'PF', 'FF', 'P', 'FPF', 'F', 'PPF'];
  const suite = (i: number) =>
    Object.fromEntries(names.map((n, j) => [n, outcomes[(i + j) % outcomes.length]!]));
  for (let i = 0; i < 6; i += 1) {
    h.tick(13 * HOUR + 17 * 60_000 + 123);
    await h.uploadJson(
      {
        upload_id: `u${i}`,
        commit_sha: `c${i % 3}`,
        branch: i % 2 ? 'main' : `f/${i}`,
        pr_number: i % 2 ? undefined : 10 + i,
      },
      [
        {
          name: 'a.xml',
          content: junit(suite(i), { message: i % 3 === 0 ? 'Timeout of 5000ms exceeded' : `boom ${i % 2}` }),
        },
      ],
    );
  }
  h.clock.now = T0;
  // Awkward text and timestamps with microseconds, straight into the rows.
  await h.pool.query(
    `UPDATE test_cases SET name = $1 || name, parent = '', classname = '', file = NULL,
       codeowners = ARRAY['@a/"b"', '@c\\d', $1], status = 'flaky', status_reason = 'why "so" \\',
       status_at = '2026-11-18 10:00:00.123456+00', quarantine_override = 'ALWAYS_QUARANTINE',
       override_at = NULL, ticket = $2
     WHERE name = 'T0'`,
    [AWKWARD, `a/b?c#d%é€😀'()*!~+=&${AWKWARD.replace(/\s/g, '')}`],
  );
  await h.pool.query(
    `UPDATE test_cases SET file = 'src/"x".ts', variant = $1, status = 'broken', status_reason = 'broken',
       quarantine_override = 'ALWAYS_QUARANTINE', override_at = '2026-11-19 08:00:00.999999+00', ticket = 'KAN-1'
     WHERE name = 'T1'`,
    [AWKWARD],
  );
  await h.pool.query(
    `UPDATE test_cases SET status = 'flaky', quarantine_override = 'NEVER_QUARANTINE' WHERE name = 'T2'`,
  );
  await h.pool.query(
    `UPDATE test_cases SET status = 'flaky', status_at = '2026-11-19 23:59:59.999999+00' WHERE name = 'T3'`,
  );
  await h.pool.query(`UPDATE test_cases SET status = 'broken' WHERE name IN ('T4', 'T5')`);
  await h.pool.query(
    `UPDATE repositories SET quarantine_enabled = true, auto_quarantine = true,
       quarantine_changed_at = '2026-11-19 00:00:00.000500+00', ticket_url_template = 'https://t.example/{ticket}?k={ticket}'`,
  );
});
afterAll(() => h.close());

const pksOf = async (ids: readonly string[]) => {
  const { rows } = await h.pool.query<{ id: string; pk: string }>(
    `SELECT id, pk FROM test_cases WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r.pk]));
  return ids.map((id) => byId.get(id)!);
};

/** Every page of a list, following next_page_token; checks each body against `expected`. */
async function walk(
  url: string,
  body: object,
  check: (text: string, parsed: { page: { next_page_token: string } }) => Promise<void>,
): Promise<number> {
  let token = '';
  let pages = 0;
  do {
    const res = await h.post(url, { ...scoped, ...body, page_query: { page_size: 2, page_token: token } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const parsed = res.json<{ page: { next_page_token: string } }>();
    await check(res.body, parsed);
    token = parsed.page.next_page_token;
    pages += 1;
  } while (token !== '');
  return pages;
}

describe.each([
  ['with a ticket URL template', true],
  ['without one (ticket links to this service)', false],
])('pages are byte for byte the JavaScript builders’ output, %s', (_name, template) => {
  beforeAll(async () => {
    if (!template) await h.pool.query(`UPDATE repositories SET ticket_url_template = NULL`);
  });

  test('list-failing-tests', async () => {
    const window = { start_time: new Date(T0.getTime() - 7 * DAY).toISOString(), end_time: T0.toISOString() };
    const seen: string[] = [];
    const pages = await walk('/v1/flaky-tests/list-failing-tests', window, async (text, parsed) => {
      const body = ListFailingTestsResponse.parse(parsed);
      const records = await loadTestCases(h.pool, await pksOf(body.tests.map((t) => t.id)), h.clock.now);
      const tests = records.map((r) => testCase(r, links));
      expect(text).toBe(JSON.stringify({ tests, page: body.page }));
      seen.push(...tests.map((t) => t.name));
    });
    expect(pages).toBeGreaterThan(2);
    expect(seen).toHaveLength(new Set(seen).size);
    expect(seen.some((name) => name.startsWith(AWKWARD))).toBe(true);
  });

  test('get-test-details, for every test', async () => {
    const { rows } = await h.pool.query<{ pk: string; id: string }>(`SELECT pk, id FROM test_cases`);
    const records = await loadTestCases(
      h.pool,
      rows.map((r) => r.pk),
      h.clock.now,
    );
    expect(records).toHaveLength(9);
    for (const record of records) {
      const res = await h.post('/v1/flaky-tests/get-test-details', { ...scoped, test_id: record.id });
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toBe(JSON.stringify({ test: testCase(record, links) }));
    }
  });

  test.each(['FLAKY', 'BROKEN'])('list-unhealthy-tests %s', async (status) => {
    let count = 0;
    await walk('/v1/flaky-tests/list-unhealthy-tests', { status }, async (text, parsed) => {
      const body = ListUnhealthyTestsResponse.parse(parsed);
      const records = await loadTestCases(
        h.pool,
        await pksOf(body.tests.map((t) => t.id)),
        h.clock.now,
        'brief',
      );
      const tests = records.map((r) => unhealthyTestCase(r, links));
      expect(text).toBe(JSON.stringify({ tests, page: body.page }));
      count += tests.length;
    });
    const { rows } = await h.pool.query(`SELECT 1 FROM test_cases WHERE status = $1`, [status.toLowerCase()]);
    expect(count).toBe(rows.length);
    expect(count).toBeGreaterThanOrEqual(3);
  });

  test('list-quarantined-tests', async () => {
    let count = 0;
    await walk('/v1/flaky-tests/list-quarantined-tests', {}, async (text, parsed) => {
      const body = ListQuarantinedTestsResponse.parse(parsed);
      const ids = body.quarantined_tests.map((t) => t.test_case_id);
      const records = await loadTestCases(h.pool, await pksOf(ids), h.clock.now, 'brief');
      const quarantined_tests = records.map((r) => quarantinedTest(r));
      expect(text).toBe(JSON.stringify({ quarantined_tests, page: body.page }));
      count += ids.length;
    });
    const all = await h.pool.query<{ pk: string }>(`SELECT pk FROM test_cases`);
    const records = await loadTestCases(
      h.pool,
      all.rows.map((r) => r.pk),
      h.clock.now,
      'brief',
    );
    expect(count).toBe(records.filter((r) => r.quarantine.quarantined).length);
    expect(count).toBeGreaterThanOrEqual(5);
  });
});

describe('building blocks agree with JavaScript', () => {
  const one = async <T>(sql: string, values: unknown[] = []) =>
    (await h.pool.query<{ v: T }>(`SELECT ${sql} AS v`, values)).rows[0]!.v;

  test('to_json escapes text as JSON.stringify does (every BMP character but surrogates, and more)', async () => {
    const chars: string[] = [];
    for (let c = 1; c < 0x10000; c += 1) if (c < 0xd800 || c > 0xdfff) chars.push(String.fromCharCode(c));
    const text = `${chars.join('')}😀𝄞`;
    expect(await one<string>(jsonText('$1::text'), [text])).toBe(JSON.stringify(text));
  });

  test('isoSql writes what node-pg’s Date.toISOString() writes (microseconds truncated)', async () => {
    const stamps = ['2026-11-19 23:59:59.999999+00', '2026-01-01 00:00:00+00', '2026-03-04 05:06:07.0005+02'];
    for (const stamp of stamps) {
      const { rows } = await h.pool.query<{ iso: string; at: Date }>(
        `SELECT ${isoSql('$1::timestamptz')} AS iso, $1::timestamptz AS at`,
        [stamp],
      );
      expect(rows[0]!.iso).toBe(rows[0]!.at.toISOString());
    }
  });

  test('fractionSql rounds and prints as fraction() and JSON.stringify do', async () => {
    const { rows } = await h.pool.query<{ f: number; a: number; v: string }>(
      `SELECT f, a, ${fractionSql('f', 'a')} AS v
       FROM (SELECT f, a FROM generate_series(0, 300) a, generate_series(0, 300) f WHERE f <= a
             UNION ALL SELECT f, 20000 FROM generate_series(1, 20000, 2) f
             UNION ALL SELECT f, 60000 FROM generate_series(1, 60000, 3) f) x`,
    );
    const wrong = rows.filter((r) => r.v !== JSON.stringify(fraction(r.f, r.a)));
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  test('uriComponentSql is encodeURIComponent', async () => {
    for (const text of ['KAN-123', "a/b?c#d%é€😀'()*!~+=& ", AWKWARD, "-_.!~*'()ABCxyz019"])
      expect(await one<string>(uriComponentSql('$1::text'), [text])).toBe(encodeURIComponent(text));
  });
});
