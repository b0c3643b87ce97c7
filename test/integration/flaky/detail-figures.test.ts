/**
 * The per-test figures every read shows (store/test-case-details.ts: attempts and failures over the
 * last 7 days and 24 hours, PRs impacted over 7 days) are read from day rollups plus raw attempts at
 * the window edges. Here they are checked against the same figures counted straight from the raw
 * attempts, for every test, at instants that cut days in every way: mid-day, a millisecond either side
 * of midnight, exactly midnight (no partial day at all), and just after a batch of uploads. Uploads
 * are spread over 9 days at irregular times, with pull requests, skips, retries and an infrastructure
 * upload (left out of every figure).
 */
import { detailJoins } from '../../../flaky/store/test-case-details';
import { sqlParams } from '../../../flaky/store/sql-params';
import { createHarness, type Harness, junit } from './harness';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = new Date('2026-11-11T03:00:00.000Z');

let h: Harness;
beforeAll(async () => {
  h = await createHarness('flaky_detail_figures', START);
  const names = Array.from({ length: 7 }, (_, i) => `T${i}`);
  const outcomes = ['FP', 'F', 'S', 'PF', 'FF', 'P', 'FPF', 'PPF', 'SF'];
  for (let i = 0; i < 40; i += 1) {
    // 40 uploads over ~9.5 days at uneven steps (5 h 43 m 17.123 s, every fifth one 11 minutes).
    h.tick(i % 5 === 4 ? 11 * 60_000 : 5 * HOUR + 43 * 60_000 + 17_123);
    const suite = Object.fromEntries(names.map((n, j) => [n, outcomes[(i * 3 + j) % outcomes.length]!]));
    const res = await h.uploadJson(
      {
        upload_id: `u${i}`,
        commit_sha: `c${i}`,
        branch: `f/${i}`,
        pr_number: i % 3 === 0 ? undefined : 100 + (i % 7),
      },
      [{ name: 'a.xml', content: junit(suite, { message: `boom ${i % 4}` }) }],
    );
    expect(res.statusCode).toBe(200);
  }
  // An infrastructure upload (every test failing, with 25 others) in the last day.
  const infra = Object.fromEntries(
    [...names, ...Array.from({ length: 25 }, (_, i) => `I${i}`)].map((n) => [n, 'F']),
  );
  h.tick(HOUR);
  const res = await h.uploadJson(
    { upload_id: 'infra', commit_sha: 'c-infra', branch: 'f/infra', pr_number: 999 },
    [{ name: 'a.xml', content: junit(infra) }],
  );
  expect(res.json()).toMatchObject({ infra: true });
});
afterAll(() => h.close());

interface Figures {
  a7: number;
  f7: number;
  a24: number;
  f24: number;
  prs: number;
}

/** The figures counted from raw attempts alone: the definition the rollups must reproduce. */
async function fromRaw(now: Date): Promise<Map<string, Figures>> {
  const { rows } = await h.pool.query<{ pk: string } & Figures>(
    `SELECT t.pk,
       count(r.*) FILTER (WHERE r.at >= $1 AND r.outcome <> 'skip' AND NOT r.infra)::int AS a7,
       count(r.*) FILTER (WHERE r.at >= $1 AND r.outcome = 'fail' AND NOT r.infra)::int AS f7,
       count(r.*) FILTER (WHERE r.at >= $2 AND r.outcome <> 'skip' AND NOT r.infra)::int AS a24,
       count(r.*) FILTER (WHERE r.at >= $2 AND r.outcome = 'fail' AND NOT r.infra)::int AS f24,
       count(DISTINCT u.pr_number) FILTER (WHERE r.at >= $1 AND r.outcome = 'fail' AND NOT r.infra)::int AS prs
     FROM test_cases t
     LEFT JOIN test_results r ON r.test_pk = t.pk AND r.at < $3 AND r.at >= $1
     LEFT JOIN uploads u ON u.pk = r.upload_pk
     GROUP BY t.pk`,
    [new Date(now.getTime() - 7 * DAY), new Date(now.getTime() - DAY), now],
  );
  return new Map(rows.map(({ pk, ...figures }) => [pk, figures]));
}

/** The figures as every read reads them: the detail joins over rollups and window edges. */
async function fromReads(now: Date, rates = true): Promise<Map<string, Figures>> {
  const p = sqlParams();
  const { rows } = await h.pool.query<{ pk: string } & Figures>(
    `SELECT t.pk, figures.a7, figures.f7, figures.a24, figures.f24, figures.prs
     FROM test_cases t JOIN repositories rp ON rp.pk = t.repository_pk
     ${detailJoins(p, now, { rates, prs: true, failures: 'none' })}`,
    [...p.values],
  );
  return new Map(rows.map(({ pk, ...figures }) => [pk, figures]));
}

const midnight = Date.parse('2026-11-18T00:00:00.000Z');
const instants = [
  ['mid-day', new Date('2026-11-18T13:37:21.456Z')],
  ['exactly midnight', new Date(midnight)],
  ['a millisecond before midnight', new Date(midnight - 1)],
  ['a millisecond after midnight', new Date(midnight + 1)],
  ['the last day, late', new Date('2026-11-18T23:59:59.999Z')],
  ['after the last upload', new Date(START.getTime() + 10 * DAY)],
] as const;

test.each(instants)('at %s the figures equal the raw attempts’ counts', async (name, now) => {
  const raw = await fromRaw(now);
  expect(await fromReads(now)).toEqual(raw);
  // The joins asked for PRs alone (the unhealthy list) give the same PRs and zero rates.
  const prsOnly = await fromReads(now, false);
  expect(prsOnly).toEqual(
    new Map([...raw].map(([pk, f]) => [pk, { a7: 0, f7: 0, a24: 0, f24: 0, prs: f.prs }])),
  );
  // The instants are not idle: each sees attempts and PRs in both windows.
  const totals = [...raw.values()].reduce(
    (s, f) => ({ a7: s.a7 + f.a7, a24: s.a24 + f.a24, prs: s.prs + f.prs }),
    {
      a7: 0,
      a24: 0,
      prs: 0,
    },
  );
  expect(totals.a7).toBeGreaterThan(0);
  expect(totals.prs).toBeGreaterThan(0);
  if (name !== 'after the last upload') expect(totals.a24).toBeGreaterThan(0);
});
