/**
 * `npm run bench:reads`: getQueue and listPullRequests on a queue holding 1,000 PRs (issue 25 target:
 * p99 under 50 ms), answered from the read projection (ADR 0016), next to the same requests answered by
 * querying the workflows (the path before it, still what the service does without a projection),
 * measured in the same run on the same queue.
 *
 * The real stack: a Temporal dev server, the real worker (bundled workflows, real activities), a
 * private PostgreSQL, real git; the API in process (`app.inject`: routing, auth, validation and
 * serialisation included, no socket). The queue is paused, so its PRs stay queued (pending) and no
 * test runs: the reads see 1,000 enqueued PRs and 1,000 running PR workflows.
 *
 * getQueue is timed twice: on a view unchanged since the previous read (the API reuses the answer it
 * built from that version) and right after a one-entry change of the view (the answer is built again).
 * Then the write path: one change of the queue's view stored as rows (a delta naming one entry) next to
 * the whole view stored as one document (what the projection wrote before migration 0024).
 *
 * Usage: npx tsx bench/reads/run.ts [--prs 1000] [--requests 300] [--baseline-requests 20] [--take 100]
 *        [--writes 100]
 * Progress goes to stderr, the table to stdout.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { createMergeQueueService } from '../../api/temporal/merge-queue-service';
import { createPrRecordStore } from '../../events/store/pr-records';
import { createQueueViewStore } from '../../events/store/queue-views';
import { viewDeltaOf } from '../../contract';
import { createQueueClient, createTemporalGateway } from '../../queue-client';
import { createApiKeyStore } from '../../stores/api-keys';
import { createRepositoryOwnerStore } from '../../stores/repository-owners';
import { table } from '../../scripts/lib/markdown-table';
import { buildTestApp } from '../../test/support/app';
import { percentile } from '../queue/stats';
import { startBenchStack } from '../lib/stack';
import { startBenchWorker } from '../lib/worker';

const { values } = parseArgs({
  options: {
    prs: { type: 'string', default: '1000' },
    requests: { type: 'string', default: '300' },
    'baseline-requests': { type: 'string', default: '20' },
    take: { type: 'string', default: '100' },
    writes: { type: 'string', default: '100' },
  },
});
const PRS = Number(values.prs);
const REQUESTS = Number(values.requests);
const BASELINE_REQUESTS = Number(values['baseline-requests']);
const TAKE = Number(values.take);
const WRITES = Number(values.writes);
const TARGET_MS = 50;
const SUBMITTERS = 8;
const log = (m: string) => console.error(`[bench:reads] ${m}`);

interface Api {
  app: FastifyInstance;
  post(route: string, body: object): Promise<{ ms: number; body: unknown }>;
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ name: 'reads-bench', log, poolMax: 10 });
  const { address, pool, fx } = stack;
  try {
    const taskQueue = 'bench-reads';
    const benchWorker = await startBenchWorker(stack, taskQueue);

    const temporal = createTemporalGateway({
      address,
      namespace: 'default',
      taskQueue,
      callTimeoutMs: 30_000,
    });
    const projected = createMergeQueueService(createQueueClient(temporal), {
      projection: { views: createQueueViewStore(pool), records: createPrRecordStore(pool) },
    });
    const workflows = createMergeQueueService(createQueueClient(temporal));
    const keys = createApiKeyStore(pool);
    const token = (await keys.create('bench')).key;
    const { rows } = await pool.query<{ id: string }>("SELECT id FROM organisations WHERE slug = 'bench'");
    await createRepositoryOwnerStore(pool).claim(rows[0]!.id, fx.repo, 'operator');
    const apiOver = async (mergeQueue: typeof projected): Promise<Api> => {
      const { app } = await buildTestApp(pool, { mergeQueue });
      return {
        app,
        async post(route, body) {
          const t0 = performance.now();
          const res = await app.inject({
            method: 'POST',
            url: `/v1/${route}`,
            headers: { 'x-api-token': token },
            payload: body,
          });
          const ms = performance.now() - t0;
          if (res.statusCode !== 200) throw new Error(`${route}: ${res.statusCode} ${res.body}`);
          return { ms, body: res.json() };
        },
      };
    };
    const fromProjection = await apiOver(projected);
    const fromWorkflows = await apiOver(workflows);
    const queue = { repo: fx.repo, targetBranch: 'main' };

    await fromProjection.post('createQueue', { ...queue, concurrency: 4 });
    // Paused: PRs are admitted and stay queued, nothing is tested.
    await fromProjection.post('updateQueue', { ...queue, state: 'paused' });

    log(`opening ${PRS} PRs...`);
    fx.git('fetch', '--quiet', 'origin');
    fx.branchFrom('bench-pr', 'origin/main');
    const head = fx.commit('a PR', { 'pr.txt': 'pr\n' });
    for (let from = 1; from <= PRS; from += 200) {
      const refspecs = [];
      for (let n = from; n < Math.min(from + 200, PRS + 1); n++) refspecs.push(`${head}:refs/pull/${n}/head`);
      fx.git('push', '--quiet', '--force', 'origin', ...refspecs);
    }

    log(`submitting ${PRS} PRs (${SUBMITTERS} at a time)...`);
    const s0 = Date.now();
    let next = 1;
    let submitted = 0;
    await Promise.all(
      Array.from({ length: SUBMITTERS }, async () => {
        for (let n = next++; n <= PRS; n = next++) {
          await fromProjection.post('submitPullRequest', { ...queue, pr: { number: n } });
          if (++submitted % 100 === 0)
            log(`  ${submitted}/${PRS} submitted (${((Date.now() - s0) / 1000).toFixed(0)} s)`);
        }
      }),
    );
    const submitSeconds = (Date.now() - s0) / 1000;
    const view = (await fromProjection.post('getQueue', queue)).body as { enqueuedPullRequests: unknown[] };
    log(`queue holds ${view.enqueuedPullRequests.length} enqueued PRs`);
    if (view.enqueuedPullRequests.length !== PRS) throw new Error('not every PR is enqueued');

    // The same answers: the whole view, and the first page as a set (visibility orders open runs by
    // start time, the projection by submission time: the same 100 here).
    const ids = (b: unknown) =>
      (b as { pullRequests: { id: string }[] }).pullRequests
        .map((p) => p.id)
        .sort()
        .join();
    const sameQueue =
      JSON.stringify((await fromProjection.post('getQueue', queue)).body) ===
      JSON.stringify((await fromWorkflows.post('getQueue', queue)).body);
    const sameList =
      ids((await fromProjection.post('listPullRequests', { ...queue, take: TAKE })).body) ===
      ids((await fromWorkflows.post('listPullRequests', { ...queue, take: TAKE })).body);
    log(
      `same answers: getQueue ${sameQueue ? 'yes' : 'NO'}, listPullRequests first page ${sameList ? 'yes' : 'NO'}`,
    );

    // A cursor into the middle of the listing, so later pages are measured too.
    let middle: string | undefined;
    {
      let cursor: string | undefined;
      for (let page = 0; page < Math.floor(PRS / TAKE / 2); page++) {
        const b = (
          await fromProjection.post('listPullRequests', {
            ...queue,
            take: TAKE,
            ...(cursor ? { cursor } : {}),
          })
        ).body as { nextCursor?: string };
        cursor = b.nextCursor;
      }
      middle = cursor;
    }

    const samples: Record<string, number[]> = {};
    const time = async (name: string, api: Api, route: string, body: object) => {
      (samples[name] ??= []).push((await api.post(route, body)).ms);
    };
    // Warm-up: JIT, connections, the worker's cache.
    for (let i = 0; i < 10; i++) {
      await fromProjection.post('getQueue', queue);
      await fromProjection.post('listPullRequests', { ...queue, take: TAKE });
    }
    log(
      `measuring: ${REQUESTS} requests per read from the projection, ${BASELINE_REQUESTS} from the workflows, interleaved...`,
    );
    // One change of the view as the queue's append stores it (the last PR retitled): before each read of
    // a view that changed since the last read, and on the write path below.
    const viewStore = createQueueViewStore(pool);
    const queueKey = { organisationId: rows[0]!.id, repo: fx.repo, targetBranch: 'main' };
    const held = (await viewStore.get(queueKey))!.snapshot;
    let acked = viewDeltaOf(held, null).view;
    let revision = held.revision ?? 0;
    let changes = 0;
    const last = held.enqueued.length - 1;
    const nextChange = () => {
      const next = {
        ...held,
        revision: ++revision,
        enqueued: held.enqueued.map((e, j) => (j === last ? { ...e, title: `retitled ${++changes}` } : e)),
      };
      const { delta, view } = viewDeltaOf(next, acked);
      acked = view;
      return { next, delta };
    };
    const loadBefore = os.loadavg()[0]!;
    const every = Math.max(1, Math.floor(REQUESTS / BASELINE_REQUESTS));
    for (let i = 0; i < REQUESTS; i++) {
      await time('getQueue/projection', fromProjection, 'getQueue', queue);
      const moved = await viewStore.apply(queueKey, nextChange().delta);
      if (moved !== 'stored') throw new Error(`a one-entry delta was ${moved}`);
      await time('getQueue-changed/projection', fromProjection, 'getQueue', queue);
      await time('list/projection', fromProjection, 'listPullRequests', { ...queue, take: TAKE });
      if (middle)
        await time('list-middle/projection', fromProjection, 'listPullRequests', {
          ...queue,
          take: TAKE,
          cursor: middle,
        });
      if (i % every === 0 && (samples['getQueue/workflows']?.length ?? 0) < BASELINE_REQUESTS) {
        await time('getQueue/workflows', fromWorkflows, 'getQueue', queue);
        await time('list/workflows', fromWorkflows, 'listPullRequests', { ...queue, take: TAKE });
      }
      if ((i + 1) % 50 === 0) {
        const p = samples['getQueue/projection']!;
        const l = samples['list/projection']!;
        log(
          `  ${i + 1}/${REQUESTS}: getQueue p50 ${percentile(p, 50).toFixed(1)} ms, list p50 ${percentile(l, 50).toFixed(1)} ms`,
        );
      }
    }

    // The write path: storing one change of the queue's view as rows (a delta naming one entry, what an
    // append of one PR's transition writes) and as the whole view (what every append and every API
    // change wrote before migration 0024), on the same 1,000-PR view, alternately.
    log(`measuring view writes: ${WRITES} one-entry deltas and ${WRITES} whole-view writes...`);
    await pool.query('CREATE TABLE bench_whole_views (id integer PRIMARY KEY, snapshot jsonb NOT NULL)');
    // What each write costs PostgreSQL in WAL (the bench is the cluster's only writer meanwhile).
    const walAt = async () =>
      (await pool.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn;
    const walSince = async (lsn: string) =>
      Number(
        (
          await pool.query<{ n: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) AS n', [
            lsn,
          ])
        ).rows[0]!.n,
      );
    const walBytes = { delta: 0, whole: 0 };
    for (let i = 0; i < WRITES; i++) {
      const { next, delta } = nextChange();
      const w0 = await walAt();
      const t0 = performance.now();
      const outcome = await viewStore.apply(queueKey, delta);
      (samples['write/delta'] ??= []).push(performance.now() - t0);
      walBytes.delta += await walSince(w0);
      if (outcome !== 'stored') throw new Error(`a one-entry delta was ${outcome}`);
      const w1 = await walAt();
      const t1 = performance.now();
      await pool.query(
        `INSERT INTO bench_whole_views VALUES (1, $1::jsonb)
         ON CONFLICT (id) DO UPDATE SET snapshot = EXCLUDED.snapshot`,
        [JSON.stringify(next)],
      );
      (samples['write/whole'] ??= []).push(performance.now() - t1);
      walBytes.whole += await walSince(w1);
    }
    const viewBytes = JSON.stringify(held).length;

    const loadAfter = os.loadavg()[0]!;
    await fromProjection.app.close();
    await fromWorkflows.app.close();
    await temporal.close();
    await benchWorker.close();
    await pool.end();
    fx.cleanup();

    const ms = (v: number) => v.toFixed(1);
    const row = (label: string, mine: string, base: string | null) => {
      const a = samples[mine]!;
      const b = base ? samples[base]! : null;
      return [
        label,
        `${ms(percentile(a, 50))} / ${ms(percentile(a, 99))} (${a.length})`,
        b ? `${ms(percentile(b, 50))} / ${ms(percentile(b, 99))} (${b.length})` : '—',
        b ? `${(percentile(b, 50) / percentile(a, 50)).toFixed(0)}x faster` : '—',
        percentile(a, 99) < TARGET_MS ? 'PASS' : 'MISS',
      ];
    };
    console.log(
      `\nReads on a queue holding ${PRS} PRs (${PRS} running PR workflows), API in process, ${TAKE} per page; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} on ${os.cpus().length} cores.\n`,
    );
    console.log(
      table(
        [
          'read',
          'projection p50 / p99 ms (n)',
          'workflow queries p50 / p99 ms (n)',
          'p50 ratio',
          `p99 < ${TARGET_MS} ms`,
        ],
        [
          row('getQueue, view unchanged since the last read', 'getQueue/projection', 'getQueue/workflows'),
          row(
            'getQueue, view changed since the last read',
            'getQueue-changed/projection',
            'getQueue/workflows',
          ),
          row(`listPullRequests, first page`, 'list/projection', 'list/workflows'),
          ...(middle
            ? [
                row(
                  `listPullRequests, page ${Math.floor(PRS / TAKE / 2) + 1}`,
                  'list-middle/projection',
                  null,
                ),
              ]
            : []),
        ],
      ),
    );
    console.log(
      `\nSame answers as the workflow reads: getQueue ${sameQueue ? 'yes' : 'NO'}, first page of listPullRequests ${sameList ? 'yes' : 'NO'}.`,
    );
    console.log(`Submitting the ${PRS} PRs (${SUBMITTERS} at a time) took ${submitSeconds.toFixed(0)} s.\n`);
    const w = (name: string) =>
      `${ms(percentile(samples[name]!, 50))} / ${ms(percentile(samples[name]!, 99))}`;
    console.log(
      table(
        ['storing one change of the view', 'p50 / p99 ms', 'written', 'WAL per write'],
        [
          [
            'as rows: a delta naming one entry (migration 0024)',
            w('write/delta'),
            'one row',
            `${(walBytes.delta / WRITES / 1000).toFixed(1)} KB`,
          ],
          [
            'whole view (before 0024)',
            w('write/whole'),
            `${(viewBytes / 1000).toFixed(0)} KB`,
            `${(walBytes.whole / WRITES / 1000).toFixed(1)} KB`,
          ],
        ],
      ),
    );
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
