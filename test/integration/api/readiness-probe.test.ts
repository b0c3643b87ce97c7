/**
 * /readyz needs no key, so no caller may make it start work of its own: 50 concurrent
 * /readyz?worker=1 calls run the ping workflow (here a counting fake of the probe) once, later calls
 * within the cache window reuse its result (a failure too), and the window's end lets one new probe
 * run. Concurrent plain /readyz calls share one PostgreSQL and one Temporal probe.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import type { ReadinessProbes } from '../../../api/routes/health';
import { buildTestApp } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('api_readyz'));
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await pool.end();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A probe that takes 50 ms, counts its calls and fails with `failure` when given one. */
function countingProbe(failure?: string) {
  const probe = {
    calls: 0,
    run: async () => {
      probe.calls++;
      await sleep(50);
      if (failure !== undefined) throw new Error(failure);
    },
  };
  return probe;
}

async function appWith(probes: ReadinessProbes, workerProbeCacheMs?: number) {
  const { app } = await buildTestApp(pool, {
    probes,
    ...(workerProbeCacheMs === undefined ? {} : { workerProbeCacheMs }),
  });
  apps.push(app);
  return app;
}

const readyz = (app: FastifyInstance, query = '?worker=1') =>
  app.inject({ method: 'GET', url: `/readyz${query}` });

const burst = (app: FastifyInstance, n: number, query?: string) =>
  Promise.all(Array.from({ length: n }, () => readyz(app, query)));

test('50 concurrent /readyz?worker=1 start one ping workflow; the result is reused', async () => {
  const worker = countingProbe();
  const app = await appWith({ postgres: async () => {}, temporal: async () => {}, worker: worker.run });
  const answers = await burst(app, 50);
  expect(worker.calls).toBe(1);
  for (const res of answers) {
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ready: true, checks: { postgres: 'ok', temporal: 'ok', worker: 'ok' } });
  }
  await burst(app, 10);
  expect(worker.calls).toBe(1);
});

test('a failed worker probe is reused too (a failing probe is the costly one)', async () => {
  const worker = countingProbe('no worker polled the task queue');
  const app = await appWith({ postgres: async () => {}, temporal: async () => {}, worker: worker.run });
  for (const res of [...(await burst(app, 50)), ...(await burst(app, 10))]) {
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      ready: false,
      checks: { postgres: 'ok', temporal: 'ok', worker: 'no worker polled the task queue' },
    });
  }
  expect(worker.calls).toBe(1);
});

test('after the cache window one new probe runs', async () => {
  const worker = countingProbe();
  const app = await appWith({ postgres: async () => {}, temporal: async () => {}, worker: worker.run }, 100);
  await burst(app, 20);
  expect(worker.calls).toBe(1);
  await sleep(150);
  await burst(app, 20);
  expect(worker.calls).toBe(2);
});

test('plain /readyz never runs the worker probe, and concurrent calls share the other probes', async () => {
  const postgres = countingProbe();
  const temporal = countingProbe();
  const worker = countingProbe();
  const app = await appWith({ postgres: postgres.run, temporal: temporal.run, worker: worker.run });
  for (const res of await burst(app, 50, '')) expect(res.statusCode).toBe(200);
  expect([postgres.calls, temporal.calls, worker.calls]).toEqual([1, 1, 0]);
});
