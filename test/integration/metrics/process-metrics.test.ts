/**
 * The API process's own metrics: GET /metrics (public by default, configurable, or off) serves
 * prom-client's default metrics, a latency histogram labelled by route pattern, and the outcomes of
 * Temporal calls counted by the instrumented gateway. Parsed with prom2javascript.
 */
import { Readable } from 'node:stream';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Pool } from 'pg';
import { getMetricsFromStream, type PromData, type PromHistogramData } from 'prom2javascript';
import { createApiKeyStore } from '../../../stores/api-keys';
import { unavailable, notFound } from '../../../api/errors';
import { createProcessMetrics, instrumentTemporalGateway } from '../../../api/plugins/process-metrics';
import { buildTestApp } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let key: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('process_metrics'));
  key = (await createApiKeyStore(pool).create('acme')).key;
});
afterAll(() => pool.end());

test('GET /metrics: default metrics and request latency by route pattern, without an API key', async () => {
  const { app } = await buildTestApp(pool);
  try {
    await app.inject({ method: 'GET', url: '/v1/webhooks/subscriptions', headers: { 'x-api-token': key } });
    await app.inject({
      method: 'GET',
      url: '/v1/webhooks/subscriptions/00000000-0000-4000-8000-000000000000',
      headers: { 'x-api-token': key },
    });
    await app.inject({ method: 'GET', url: '/no/such/route' });
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    // prom2javascript cannot read NaN samples (the event-loop gauges before their first sample), though
    // the text format allows them: check those lines here and give the parser the rest.
    const nanLines = response.body.split('\n').filter((l) => / NaN$/.test(l));
    for (const line of nanLines) expect(line).toMatch(/^[a-z_:][a-z0-9_:]*(\{[^}]*\})? NaN$/);
    const metrics = await getMetricsFromStream(
      Readable.from([
        response.body
          .split('\n')
          .filter((l) => !/ NaN$/.test(l))
          .join('\n'),
      ]),
    );
    expect(metrics.process_cpu_user_seconds_total?.type).toBe('counter');
    expect(metrics.nodejs_eventloop_lag_seconds?.type).toBe('gauge');
    const latency = metrics.railyard_api_request_duration_seconds!.data as PromHistogramData[];
    expect(latency.map((h) => h.labels).sort((a, b) => a.route!.localeCompare(b.route!))).toEqual([
      { method: 'GET', route: '/v1/webhooks/subscriptions', status_code: '200' },
      { method: 'GET', route: '/v1/webhooks/subscriptions/:id', status_code: '404' },
      { method: 'GET', route: 'unmatched', status_code: '404' },
    ]);
    expect(latency.every((h) => h.count === 1)).toBe(true);
  } finally {
    await app.close();
  }
});

test('the route can require an API key, move, or be switched off', async () => {
  const guarded = await buildTestApp(pool, {
    processMetricsRoute: { path: '/internal/metrics', public: false },
  });
  const off = await buildTestApp(pool, { processMetricsRoute: false });
  try {
    expect((await guarded.app.inject({ method: 'GET', url: '/internal/metrics' })).statusCode).toBe(401);
    const ok = await guarded.app.inject({
      method: 'GET',
      url: '/internal/metrics',
      headers: { 'x-api-token': key },
    });
    expect(ok.statusCode).toBe(200);
    expect((await off.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  } finally {
    await Promise.all([guarded.app.close(), off.app.close()]);
  }
});

test('an instrumented gateway counts Temporal calls by outcome, and the app serves them', async () => {
  const processMetrics = createProcessMetrics({ defaultMetrics: false });
  const gateway = instrumentTemporalGateway(
    { taskQueue: 'q', call: <T>(_what: string, fn: () => Promise<T>) => fn() },
    processMetrics,
  );
  await gateway.call('getQueue', () => Promise.resolve(1));
  await gateway.call('getQueue', () => Promise.resolve(2));
  await expect(
    gateway.call('submitPullRequest', () => Promise.reject(notFound('no queue'))),
  ).rejects.toThrow();
  await expect(
    gateway.call('submitPullRequest', () => Promise.reject(unavailable('down'))),
  ).rejects.toThrow();
  await expect(gateway.call('createQueue', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  const missing = new WorkflowNotFoundError('gone', 'queue/x', undefined);
  await expect(gateway.call('getQueue', () => Promise.reject(missing))).rejects.toBe(missing);
  expect(gateway.taskQueue).toBe('q');

  const { app } = await buildTestApp(pool, { processMetrics });
  try {
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const metrics = await getMetricsFromStream(
      Readable.from([
        text
          .split('\n')
          .filter((l) => !/ NaN$/.test(l))
          .join('\n'),
      ]),
    );
    const calls = (metrics.railyard_api_temporal_calls_total!.data as PromData[]).map((d) => [
      d.labels.call,
      d.labels.outcome,
      d.value,
    ]);
    expect(calls.sort()).toEqual([
      ['createQueue', 'error', 1],
      ['getQueue', 'ok', 2],
      ['getQueue', 'rejected', 1],
      ['submitPullRequest', 'rejected', 1],
      ['submitPullRequest', 'unavailable', 1],
    ]);
    expect(metrics.railyard_api_temporal_call_duration_seconds?.type).toBe('histogram');
    expect(metrics.process_cpu_user_seconds_total).toBeUndefined();
  } finally {
    await app.close();
  }
});
