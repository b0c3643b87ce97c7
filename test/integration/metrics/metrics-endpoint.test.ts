/**
 * GET /v1/getMergeQueueMetrics end to end: a scripted hour appended through appendTransitions into the
 * real PostgreSQL, the endpoint's text read back with an independent parser of the Prometheus text
 * format (prom2javascript), and every metric checked: names, types, HELP, labels, values, histogram
 * buckets, main vs bisection. Then the 400/404/401 cases and the all-repositories form.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import {
  getMetricsFromStream,
  type PromData,
  type PromHistogramData,
  type PromMetrics,
} from 'prom2javascript';
import { createEventActivities } from '../../../activities/events';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp } from '../../support/app';
import { claimRepository } from '../../support/ownership';
import { createMigratedDatabase } from '../../support/postgres';
import { submission } from '../../unit/events/fixtures';
import { scriptedHour, type ExpectedQueueType } from '../../unit/events/scenario';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const BUCKETS = ['60', '300', '600', '900', '1800', '3600', '5400', '7200', '+Inf'];

let pool: Pool;
let app: FastifyInstance;
let key: string;
let otherKey: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('queue_metrics'));
  const keys = createApiKeyStore(pool);
  key = (await keys.create('acme')).key;
  otherKey = (await keys.create('globex')).key;
  const acme = (await keys.authenticate(key))!.id;
  const globex = (await keys.authenticate(otherKey))!.id;
  const { appendTransitions } = createEventActivities({ pool, allowPrivateWebhookUrls: false });
  const { events } = scriptedHour(acme, NOW);
  // Two drains, as the queue workflow would send them.
  await appendTransitions({ events: events.slice(0, 20) });
  await appendTransitions({ events: events.slice(20) });
  const tools = { host: 'gitlab.com', owner: 'acme/platform', name: 'tools' };
  await appendTransitions({
    events: submission({ organisationId: acme, prNumber: 1, repo: tools }, [{ to: 'not_ready', at: NOW }]),
  });
  const secret = { host: 'github.com', owner: 'globex', name: 'secret' };
  await appendTransitions({
    events: submission({ organisationId: globex, prNumber: 1, repo: secret }, [{ to: 'not_ready', at: NOW }]),
  });
  // The queues' repositories belong to the organisations that use them (ADR 0006).
  const repos = new Set(events.map((e) => JSON.stringify(e.repo)));
  for (const repo of repos) await claimRepository(pool, 'acme', JSON.parse(repo) as typeof tools);
  await claimRepository(pool, 'acme', tools);
  await claimRepository(pool, 'globex', secret);
  ({ app } = await buildTestApp(pool, { queueMetrics: { pool, now: () => NOW } }));
});

afterAll(async () => {
  await app.close();
  await pool.end();
});

const get = (query: string, token: string | null = key) =>
  app.inject({
    method: 'GET',
    url: `/v1/getMergeQueueMetrics${query}`,
    headers: token === null ? {} : { 'x-api-token': token },
  });

const parse = (text: string): Promise<PromMetrics> => getMetricsFromStream(Readable.from([text]));

const series = (metrics: PromMetrics, name: string) => metrics[name]!.data as PromData[];
const histograms = (metrics: PromMetrics, name: string) => metrics[name]!.data as PromHistogramData[];

function valueOf(metrics: PromMetrics, name: string, labels: Record<string, string>): number {
  const found = series(metrics, name).filter((d) => JSON.stringify(d.labels) === JSON.stringify(labels));
  expect(found).toHaveLength(1);
  return found[0]!.value;
}

/** The cumulative buckets, sum and count a list of observations must give. */
function histogramOf(values: number[]) {
  const buckets: Record<string, number> = {};
  for (const le of BUCKETS) buckets[le] = values.filter((v) => le === '+Inf' || v <= Number(le)).length;
  return { buckets, sum: values.reduce((a, b) => a + b, 0), count: values.length };
}

test('repo=acme/app: every metric of every queue and queue type, parsed independently', async () => {
  const response = await get('?repo=acme/app&repoHost=github.com');
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  const metrics = await parse(response.body);

  expect(Object.fromEntries(Object.entries(metrics).map(([name, m]) => [name, [m.type, m.help]]))).toEqual({
    mq_depth_current: ['gauge', 'PRs currently in the queue'],
    mq_awaiting_mergeability: ['gauge', 'Number of PRs currently awaiting mergeability'],
    mq_testing_slots_active: ['gauge', 'PRs currently in TESTING state'],
    mq_pr_conclusions_1h_total: ['gauge', 'PRs exiting the queue in last hour'],
    mq_pr_restarts_1h_total: ['gauge', 'PR restarts in last hour'],
    mq_pr_wait_duration_1h_seconds: ['histogram', expect.stringContaining('before testing started')],
    mq_pr_test_duration_1h_seconds: ['histogram', expect.stringContaining('TESTING')],
    mq_pr_time_in_queue_1h_seconds: ['histogram', expect.stringContaining('leaving the queue')],
  });

  const { expected } = scriptedHour('unused', NOW);
  for (const branch of ['main', 'release']) {
    for (const queue_type of ['main', 'bisection'] as const) {
      const labels = { repo: 'acme/app', branch, queue_type };
      const want: ExpectedQueueType = expected[branch]![queue_type];
      const got = {
        depth: valueOf(metrics, 'mq_depth_current', labels),
        awaiting: valueOf(metrics, 'mq_awaiting_mergeability', labels),
        testing: valueOf(metrics, 'mq_testing_slots_active', labels),
        restarts: valueOf(metrics, 'mq_pr_restarts_1h_total', labels),
        merged: valueOf(metrics, 'mq_pr_conclusions_1h_total', { ...labels, conclusion: 'merged' }),
        failed: valueOf(metrics, 'mq_pr_conclusions_1h_total', { ...labels, conclusion: 'failed' }),
        cancelled: valueOf(metrics, 'mq_pr_conclusions_1h_total', { ...labels, conclusion: 'cancelled' }),
      };
      expect({ labels, ...got }).toEqual({
        labels,
        depth: want.depth,
        awaiting: want.awaiting,
        testing: want.testing,
        restarts: want.restarts,
        merged: want.merged,
        failed: want.failed,
        cancelled: want.cancelled,
      });
      for (const [name, values] of [
        ['mq_pr_wait_duration_1h_seconds', want.wait],
        ['mq_pr_test_duration_1h_seconds', want.test],
        ['mq_pr_time_in_queue_1h_seconds', want.inQueue],
      ] as const) {
        const found = histograms(metrics, name).filter(
          (h) => JSON.stringify(h.labels) === JSON.stringify(labels),
        );
        expect(found).toHaveLength(1);
        const { buckets, sum, count } = found[0]!;
        expect({ name, labels, buckets, sum, count }).toEqual({ name, labels, ...histogramOf(values) });
      }
    }
  }
  // Exactly the two queues of this repository, each with both queue types.
  expect(series(metrics, 'mq_depth_current')).toHaveLength(4);
  expect(series(metrics, 'mq_pr_conclusions_1h_total')).toHaveLength(12);
  // A spot check of the shape a scraper sees (Trunk's label order).
  expect(response.body).toContain(
    'mq_pr_conclusions_1h_total{repo="acme/app",branch="main",queue_type="bisection",conclusion="failed"} 1',
  );
  expect(response.body).toContain(
    'mq_pr_time_in_queue_1h_seconds_bucket{le="+Inf",repo="acme/app",branch="main",queue_type="bisection"} 1',
  );
});

test('without repo: every repository of the organisation, and only of it', async () => {
  const response = await get('');
  expect(response.statusCode).toBe(200);
  const metrics = await parse(response.body);
  const queues = new Set(
    series(metrics, 'mq_depth_current').map((d) => `${d.labels.repo}@${d.labels.branch}`),
  );
  expect([...queues].sort()).toEqual(['acme/app@main', 'acme/app@release', 'acme/platform/tools@main']);
  expect(
    valueOf(metrics, 'mq_awaiting_mergeability', {
      repo: 'acme/platform/tools',
      branch: 'main',
      queue_type: 'main',
    }),
  ).toBe(1);
});

test('an owner with slashes (GitLab subgroups): the name is what follows the last slash', async () => {
  const response = await get(`?repo=${encodeURIComponent('acme/platform/tools')}&repoHost=gitlab.com`);
  expect(response.statusCode).toBe(200);
  const metrics = await parse(response.body);
  expect(series(metrics, 'mq_depth_current').map((d) => d.labels.repo)).toEqual([
    'acme/platform/tools',
    'acme/platform/tools',
  ]);
});

test.each([
  ['?repo=acme/app', 400, "Field 'repoHost' is required when 'repo' is given."],
  ['?repo=app&repoHost=github.com', 400, "Field 'repo' must be in owner/name format."],
  ['?repo=acme/&repoHost=github.com', 400, "Field 'repo' must be in owner/name format."],
  ['?repo=acme/nothing&repoHost=github.com', 404, 'Repository github.com/acme/nothing was not found.'],
  ['?repo=acme/app&repoHost=gitlab.com', 404, 'Repository gitlab.com/acme/app was not found.'],
  // Another organisation's repository is unknown here.
  ['?repo=globex/secret&repoHost=github.com', 404, 'Repository github.com/globex/secret was not found.'],
])('%s → %d', async (query, status, message) => {
  const response = await get(query);
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(response.body).toBe(message);
});

test('without an API key → 401; an organisation without queues gets an empty exposition', async () => {
  expect((await get('', null)).statusCode).toBe(401);
  const keys = createApiKeyStore(pool);
  const empty = await get('', (await keys.create('initech')).key);
  expect(empty.statusCode).toBe(200);
  const metrics = await parse(empty.body);
  expect(series(metrics, 'mq_depth_current')).toEqual([]);
});

test('a created queue without submissions is known at once and reports zeros', async () => {
  const fresh = { host: 'github.com', owner: 'acme', name: 'fresh' };
  expect((await get('?repo=acme/fresh&repoHost=github.com')).statusCode).toBe(404);
  const created = await app.inject({
    method: 'POST',
    url: '/v1/createQueue',
    headers: { 'x-api-token': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ repo: fresh, targetBranch: 'main' }),
  });
  expect(created.statusCode).toBe(200);

  const response = await get('?repo=acme/fresh&repoHost=github.com');
  expect(response.statusCode).toBe(200);
  const metrics = await parse(response.body);
  for (const queue_type of ['main', 'bisection']) {
    const labels = { repo: 'acme/fresh', branch: 'main', queue_type };
    for (const name of [
      'mq_depth_current',
      'mq_awaiting_mergeability',
      'mq_testing_slots_active',
      'mq_pr_restarts_1h_total',
    ])
      expect({ name, value: valueOf(metrics, name, labels) }).toEqual({ name, value: 0 });
    for (const conclusion of ['merged', 'failed', 'cancelled'])
      expect(valueOf(metrics, 'mq_pr_conclusions_1h_total', { ...labels, conclusion })).toBe(0);
    for (const name of [
      'mq_pr_wait_duration_1h_seconds',
      'mq_pr_test_duration_1h_seconds',
      'mq_pr_time_in_queue_1h_seconds',
    ]) {
      const found = histograms(metrics, name).filter(
        (h) => JSON.stringify(h.labels) === JSON.stringify(labels),
      );
      expect(found).toHaveLength(1);
      expect({ name, sum: found[0]!.sum, count: found[0]!.count }).toEqual({ name, sum: 0, count: 0 });
    }
  }
  expect(series(metrics, 'mq_depth_current')).toHaveLength(2);
  // Creating it is idempotent for the listing, and another organisation still cannot see it.
  const all = await parse((await get('')).body);
  expect(series(all, 'mq_depth_current').filter((d) => d.labels.repo === 'acme/fresh')).toHaveLength(2);
  expect((await get('?repo=acme/fresh&repoHost=github.com', otherKey)).statusCode).toBe(404);
});
