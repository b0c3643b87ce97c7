/**
 * Issue 11: one 1 KB upload froze the whole API for about 110 s, its CODEOWNERS matched on the event
 * loop by backtracking regular expressions. Here the API listens on a real port, once as server.ts
 * runs it (the parser pool's threads match the owners) and once without a pool (matching in slices
 * on the event loop). While CODEOWNERS uploads that cost the old matcher minutes run, GET /healthz is
 * probed over and over from another thread. A stalled loop is told by CPU, not by wall time, which a
 * loaded machine stretches tenfold: while no probe waited did the API's thread spend more than a
 * bound of CPU (the old matcher spent its ~110 s on it); and every probe answers within a few seconds
 * more than a control server on a thread of its own waited. Each upload must answer 200 or a clear 400
 * within a bound of CPU.
 */
import { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { type JunitParser } from '../../../flaky/junit';
import { type JunitParserPool, startJunitParserPool } from '../../../flaky/junit/pool';
import { createFlakyStore } from '../../../flaky/service';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

const REPO = { host: 'github.com', owner: 'acme', name: 'owned' };
const RULE = `${'a*'.repeat(12)}b`;
const rules = (count: number) => Array.from({ length: count }, () => `${RULE} @acme/team`).join('\n');
const suite = (files: string[]) =>
  `<testsuites><testsuite name="s">${files
    .map((file, i) => `<testcase classname="c" name="t${i}" file="${file}" time="0.1"/>`)
    .join('')}</testsuite></testsuites>`;

/** What each upload must answer (the old matcher took minutes of CPU on each). */
const UPLOADS = [
  { name: 'reproduction', codeowners: rules(1), files: ['a'.repeat(43)], status: 200 },
  { name: 'thousand-rules', codeowners: rules(1_000), files: ['a'.repeat(4_096)], status: 200 },
  { name: 'too-costly', codeowners: rules(5_000), files: ['a'.repeat(4_096)], status: 400 },
];
/**
 * The CPU the three uploads may cost this process together (the API, its parser thread, the prober):
 * a few CPU-seconds now, about 110 for the reproduction alone with the old matcher. CPU, not wall time:
 * at load 12 beside a full run the uploads took 30-40 s of wall time for the same work.
 */
const UPLOADS_CPU_BOUND_SECONDS = 20;
/**
 * The CPU the API's thread may spend while one probe waits. A stalled event loop spends the whole
 * match on it (about 110 s before the fix; the largest upload here run without slices, ~0.5 s); a
 * sliced one a slice and the request's own work, a few ms, plus a garbage collection of the test
 * process's heap at worst (a few hundred ms). CPU does not stretch with the machine's load.
 */
const PROBE_CPU_BOUND_MS = 400;
/**
 * Wall time beyond what the control's probes waited. Not the test of a stall (the CPU bound is): at
 * load 12-16 on 2 cores a thread that works all the time waits for a core far longer than the
 * control's idle one (1,802 ms against 75 ms once in CI, 593 against 182 with 14 busy loops beside
 * the test), so this only says the API kept answering at all.
 */
const PROBE_WALL_BOUND_MS = 5_000;

/**
 * Probes GET /healthz every 10 ms from a thread of its own: its event loop is not the API's, so an
 * API loop that stops shows as the latency of the probe in flight (a prober on the same loop would
 * stop with it and see nothing). Beside it, the same probes go to a control server on a third thread of
 * this process, which nothing stalls: on a machine so loaded that the whole process waits for a core,
 * the control's probes wait as long, and the API is judged by how much longer its probes took. `stop`
 * gives every probe's latency in ms (Infinity for a non-200), the API's and the control's, and for
 * each of the API's probes the CPU the main thread of this process (the API's) spent while it waited,
 * read from /proc in clock ticks (USER_HZ, 100 a second on Linux).
 */
function startProber(url: string): {
  started: Promise<void>;
  stop(): Promise<{ api: number[]; apiCpu: number[]; control: number[] }>;
} {
  const worker = new Worker(
    `const { parentPort, workerData, Worker } = require('node:worker_threads');
     const { readFileSync } = require('node:fs');
     const statPath = '/proc/' + process.pid + '/task/' + process.pid + '/stat';
     function mainThreadCpuMs() {
       const fields = readFileSync(statPath, 'utf8');
       const rest = fields.slice(fields.lastIndexOf(')') + 2).split(' ');
       return (Number(rest[11]) + Number(rest[12])) * 10;
     }
     const control = new Worker(
       "const http = require('node:http');" +
       "const s = http.createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1', () =>" +
       " require('node:worker_threads').parentPort.postMessage(s.address().port));",
       { eval: true },
     );
     let running = true;
     const latencies = { api: [], apiCpu: [], control: [] };
     parentPort.on('message', () => { running = false; });
     async function probe(target, into, cpuInto, first) {
       while (running) {
         const cpuBefore = cpuInto && mainThreadCpuMs();
         const started = performance.now();
         const res = await fetch(target + '/healthz');
         await res.text();
         into.push(res.status === 200 ? performance.now() - started : Infinity);
         if (cpuInto) cpuInto.push(mainThreadCpuMs() - cpuBefore);
         if (first && into.length === 1) parentPort.postMessage('started');
         await new Promise((resolve) => setTimeout(resolve, 10));
       }
     }
     control.once('message', async (port) => {
       await Promise.all([
         probe(workerData.url, latencies.api, latencies.apiCpu, true),
         probe('http://127.0.0.1:' + port, latencies.control, undefined, false),
       ]);
       await control.terminate();
       parentPort.postMessage(latencies);
     });`,
    { eval: true, workerData: { url } },
  );
  const started = new Promise<void>((resolve) => worker.once('message', () => resolve()));
  return {
    started,
    async stop() {
      const latencies = new Promise<{ api: number[]; apiCpu: number[]; control: number[] }>((resolve) =>
        worker.once('message', resolve),
      );
      worker.postMessage('stop');
      try {
        return await latencies;
      } finally {
        await worker.terminate();
      }
    },
  };
}

let pool: Pool;
let key: string;
let threads: JunitParserPool;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('codeowners_cost'));
  key = (await createApiKeyStore(pool).create('acme')).key;
  threads = await startJunitParserPool({ threads: 1 });
}, 90_000);

afterAll(async () => {
  await threads?.close();
  await pool?.end();
});

describe.each([
  ['on the parser pool threads (as server.ts runs it)', () => threads as JunitParser | undefined],
  ['without a pool (in slices on the event loop)', () => undefined],
])('CODEOWNERS matched %s', (label, parserOf) => {
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    const parser = parserOf();
    const flaky = { store: createFlakyStore(pool), pageTokenSecret: TEST_PAGE_TOKEN_SECRET };
    ({ app } = await buildTestApp(pool, { flaky: parser ? { ...flaky, parser } : flaky }));
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => app?.close());

  test('/healthz answers while pathological uploads run (no probe waits on a busy loop), and they answer in bounded time', async () => {
    const variant = label.startsWith('on') ? 'pool' : 'slices';
    const prober = startProber(url);
    await prober.started;
    const cpuBefore = process.cpuUsage();
    const results = await Promise.all(
      UPLOADS.map(async (upload) => {
        const res = await fetch(`${url}/v1/flaky-tests/upload`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-token': key },
          body: JSON.stringify({
            org_url_slug: 'acme',
            repo: REPO,
            upload_id: `${variant}-${upload.name}`,
            commit_sha: 'c0ffee1',
            branch: 'main',
            variant,
            codeowners: upload.codeowners,
            files: [{ name: 'junit.xml', content: suite(upload.files) }],
          }),
        });
        return { name: upload.name, status: res.status, body: await res.text() };
      }),
    );
    const cpu = process.cpuUsage(cpuBefore);
    const probes = await prober.stop();

    expect(probes.api.length).toBeGreaterThanOrEqual(5);
    expect(probes.control.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...probes.apiCpu)).toBeLessThan(PROBE_CPU_BOUND_MS);
    expect(Math.max(...probes.api)).toBeLessThan(PROBE_WALL_BOUND_MS + Math.max(...probes.control));
    for (const [i, result] of results.entries()) {
      expect({ name: result.name, status: result.status }).toEqual({
        name: UPLOADS[i]!.name,
        status: UPLOADS[i]!.status,
      });
    }
    expect((cpu.user + cpu.system) / 1e6).toBeLessThan(UPLOADS_CPU_BOUND_SECONDS);
    expect(results[2]!.body).toBe(
      "Field 'codeowners' takes more than 100000000 steps to match against this upload's test files; use fewer or simpler patterns.",
    );
  }, 60_000);
});
