/**
 * Phase 3: read latency through the API under concurrent load, next to the plain indexed query each
 * endpoint boils down to, run with psql in the same run.
 *  - list-failing-tests: 7-day range ending at the simulated now, page size 100; the first, a middle
 *    and the last page (tokens collected by walking the pages once). Baseline: the per-day rollup
 *    aggregation of the same 7 days (whole days), sorted and limited to 100.
 *  - get-test-details: random tests, half of them failing ones. Baseline: the test row by
 *    (organisation, id) plus its 7-day rollup sum.
 * Each is measured with one client, paced at the documented rates, and saturated by N clients, with
 * the CPU per request of the API process and (on a private cluster) of PostgreSQL: on a shared
 * machine the latencies move with the neighbours, the CPU per request does not.
 */
import { timedStatements } from './psql';
import { type Latencies, summarise } from './stats';

export interface ReadOptions {
  readonly baseUrl: string;
  readonly databaseUrl: string;
  readonly key: string;
  readonly repo: string;
  readonly end: Date;
  readonly concurrency: number;
  readonly requests: number;
  readonly tmp: string;
  readonly log: (line: string) => void;
  readonly query: <T>(sql: string, values?: unknown[]) => Promise<T[]>;
  /** CPU seconds used so far by the API process (a contention-independent cost per request). */
  readonly apiCpu: () => number;
  /** The same for PostgreSQL's process tree; absent on DATABASE_URL's server (not ours alone). */
  readonly dbCpu?: () => number;
  /** Which loads to offer (all three when absent): one client, the documented rates, N clients. */
  readonly loads?: readonly ReadLoad[];
  /** Appended to each row's load, e.g. what else runs meanwhile. */
  readonly loadNote?: string;
}

export type ReadLoad = 'one client' | 'paced' | 'clients';

export interface ReadRow {
  readonly endpoint: string;
  /** How the load was offered: one client, a fixed request rate, or N closed-loop clients. */
  readonly load: string;
  readonly api: Latencies;
  /** API process CPU per request, ms. */
  readonly cpuMs: number;
  /** PostgreSQL CPU per request, ms (private cluster only). */
  readonly dbCpuMs?: number;
  readonly baseline: Latencies;
}

const DAY = 86_400_000;

interface Mode {
  readonly mode: string;
  readonly run: (rate: number, call: () => Promise<{ ms: number }>) => Promise<number[]>;
}

export async function reads(
  options: ReadOptions,
): Promise<{ rows: ReadRow[]; pages: number; failing: number }> {
  const repo = { host: 'github.com', owner: 'bench', name: options.repo };
  const window = {
    start_time: new Date(options.end.getTime() - 7 * DAY).toISOString(),
    end_time: options.end.toISOString(),
  };
  const list = (token?: string) => ({
    repo,
    org_url_slug: 'bench',
    ...window,
    page_query: { page_size: 100, ...(token === undefined ? {} : { page_token: token }) },
  });
  const post = async (path: string, body: unknown) => {
    const started = performance.now();
    const res = await fetch(`${options.baseUrl}/v1/flaky-tests/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': options.key },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text}`);
    return { ms: performance.now() - started, json: JSON.parse(text) as Record<string, unknown> };
  };

  type Page = {
    tests: { id: string }[];
    page: { total_pages: number; total_rows: number; next_page_token: string; last_page_token: string };
  };
  const first = (await post('list-failing-tests', list())).json as unknown as Page;
  const pages = first.page.total_pages;
  let middleToken = '';
  let cursor: Page = first;
  const failingIds = first.tests.map((t) => t.id);
  for (let i = 1; i <= Math.floor(pages / 2) && cursor.page.next_page_token !== ''; i += 1) {
    middleToken = cursor.page.next_page_token;
    cursor = (await post('list-failing-tests', list(middleToken))).json as unknown as Page;
    failingIds.push(...cursor.tests.map((t) => t.id));
  }
  options.log(`reads: ${first.page.total_rows} failing tests in 7 days, ${pages} pages of 100`);
  const kinds = [
    { name: 'first', body: list() },
    { name: 'middle', body: list(middleToken || undefined) },
    { name: 'last', body: list(first.page.last_page_token || undefined) },
  ];
  const randomIds = await options.query<{ id: string }>(
    `SELECT t.id FROM test_cases t JOIN repositories r ON r.pk = t.repository_pk WHERE r.name = $1 ORDER BY md5(t.id::text) LIMIT $2`,
    [options.repo, options.requests],
  );
  const detailIds = randomIds.map((r, i) =>
    i % 2 === 0 && failingIds.length > 0 ? failingIds[i % failingIds.length]! : r.id,
  );

  const rows: ReadRow[] = [];
  const listBaseline = await listBaselineTimes(options);
  const detailBaseline = await detailBaselineTimes(options, detailIds);
  let next = 0;
  const details = () =>
    post('get-test-details', { repo, org_url_slug: 'bench', test_id: detailIds[next++ % detailIds.length] });
  const n = options.requests;
  // Sequential (what psql does), paced at the documented request rates (flaky-detection.md §6:
  // 50 list/s, 100 details/s), and saturated by `concurrency` closed-loop clients.
  const allModes: (Mode & { load: ReadLoad })[] = [
    { load: 'one client', mode: '1 client', run: (_rate, call) => closedLoop(Math.min(300, n), 1, call) },
    { load: 'paced', mode: 'paced', run: (rate, call) => openLoop(n, rate, call) },
    {
      load: 'clients',
      mode: `${options.concurrency} clients`,
      run: (_rate, call) => closedLoop(n, options.concurrency, call),
    },
  ];
  const modes = allModes.filter((m) => options.loads === undefined || options.loads.includes(m.load));
  const note = options.loadNote === undefined ? '' : `, ${options.loadNote}`;
  const measured = async (rate: number, run: Mode['run'], call: () => Promise<{ ms: number }>) => {
    const cpuBefore = options.apiCpu();
    const dbBefore = options.dbCpu?.();
    const samples = await run(rate, call);
    const dbAfter = options.dbCpu?.();
    return {
      api: summarise(samples),
      cpuMs: ((options.apiCpu() - cpuBefore) * 1000) / samples.length,
      ...(dbBefore === undefined || dbAfter === undefined
        ? {}
        : { dbCpuMs: ((dbAfter - dbBefore) * 1000) / samples.length }),
    };
  };
  for (const { mode, run } of modes) {
    for (const kind of kinds) {
      await closedLoop(10, 2, () => post('list-failing-tests', kind.body));
      const result = await measured(50, run, () => post('list-failing-tests', kind.body));
      const load = `${mode === 'paced' ? '50 req/s' : mode}${note}`;
      rows.push({
        endpoint: `list-failing-tests, ${kind.name} page`,
        load,
        ...result,
        baseline: listBaseline,
      });
    }
    const result = await measured(100, run, details);
    rows.push({
      endpoint: 'get-test-details',
      load: `${mode === 'paced' ? '100 req/s' : mode}${note}`,
      ...result,
      baseline: detailBaseline,
    });
    options.log(`reads: ${mode} done`);
  }
  return { rows, pages, failing: first.page.total_rows };
}

/** `count` calls, `concurrency` at a time (each client waits for its answer); latencies in ms. */
async function closedLoop(
  count: number,
  concurrency: number,
  call: () => Promise<{ ms: number }>,
): Promise<number[]> {
  const samples: number[] = [];
  let issued = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < count) {
        issued += 1;
        samples.push((await call()).ms);
      }
    }),
  );
  return samples;
}

/**
 * `count` calls at a fixed rate whatever the answers do (open loop). Latency counts from when the
 * call was due, so a server that falls behind is charged for the queue it builds (no coordinated
 * omission).
 */
async function openLoop(
  count: number,
  perSecond: number,
  call: () => Promise<{ ms: number }>,
): Promise<number[]> {
  const started = performance.now();
  const pending: Promise<number>[] = [];
  for (let i = 0; i < count; i += 1) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(call().then(() => performance.now() - due));
  }
  return Promise.all(pending);
}

async function listBaselineTimes(options: ReadOptions): Promise<Latencies> {
  const [repository] = await options.query<{ pk: string }>(`SELECT pk FROM repositories WHERE name = $1`, [
    options.repo,
  ]);
  const to = options.end.toISOString().slice(0, 10);
  const from = new Date(options.end.getTime() - 7 * DAY).toISOString().slice(0, 10);
  const statement = `SELECT test_pk, sum(failures + infra_failures) AS failures FROM test_day_rollups
    WHERE repository_pk = ${repository!.pk} AND day >= '${from}' AND day < '${to}' AND failures + infra_failures > 0
    GROUP BY test_pk ORDER BY failures DESC, test_pk LIMIT 100`;
  const times = await timedStatements(
    options.databaseUrl,
    Array.from({ length: 300 }, () => statement),
    options.tmp,
    'baseline-list',
  );
  return summarise(times.slice(20));
}

async function detailBaselineTimes(options: ReadOptions, ids: readonly string[]): Promise<Latencies> {
  const [org] = await options.query<{ id: string }>(`SELECT id FROM organisations WHERE slug = 'bench'`);
  const from = new Date(options.end.getTime() - 7 * DAY).toISOString().slice(0, 10);
  const statements = ids.slice(0, 300).map(
    (
      id,
    ) => `SELECT t.*, (SELECT sum(d.attempts) FROM test_day_rollups d WHERE d.test_pk = t.pk AND d.day >= '${from}') AS attempts_7d
      FROM test_cases t WHERE t.organisation_id = '${org!.id}' AND t.id = '${id}'`,
  );
  return summarise(await timedStatements(options.databaseUrl, statements, options.tmp, 'baseline-details'));
}
