/**
 * The multi-replica story (issue 27): two APIs behind one round-robin address, two workers and two
 * executors against one Temporal and one PostgreSQL (npm test's own), through the chaos harness (bench/chaos): PRs are
 * submitted through either API, and one replica of each kind is killed with SIGKILL mid-run (then
 * started again, as a supervisor would). Every PR ends once, nothing merges twice or untested, and the
 * organisation's executor run slots (RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION, 1 here so it binds)
 * are never exceeded although two workers take them, sampled from PostgreSQL while the run goes on.
 * The GitHub stories run on one replica of each (test/e2e/github); not here.
 */
import { runChaos } from '../../bench/chaos/scenario';
import { createPool } from '../../stores/db';
import { expectSafeChaosRun } from '../support/chaos-report';
import { requireTestEnv } from '../support/env';
import { createScratchDatabase } from '../support/postgres';

test('2 APIs, 2 workers, 2 executors, one of each killed: every PR ends once, nothing merged twice, no slot over the cap', async () => {
  const lines: string[] = [];
  const databaseUrl = await createScratchDatabase('replicas', requireTestEnv('TEST_PG_TEMPLATE'));
  const pool = createPool(databaseUrl, { max: 1 });
  let maxSlots = 0;
  let samples = 0;
  const sampler = setInterval(() => {
    void pool
      .query<{ n: number }>('SELECT count(*)::int AS n FROM run_slots WHERE expires_at > now()')
      .then((r) => {
        samples++;
        maxSlots = Math.max(maxSlots, r.rows[0]!.n);
      })
      .catch(() => undefined);
  }, 100);
  try {
    const report = await runChaos({
      seed: 5,
      prs: 8,
      concurrency: 2,
      batchSize: 2,
      badRate: 0.15,
      conflictRate: 0,
      testSeconds: 0.5,
      replicas: 2,
      env: { RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION: '1' },
      faults: { workerKills: 1, apiKills: 1, executorKills: 1, temporalRestarts: 0, postgresRestarts: 0 },
      submitGapMs: 400,
      settleTimeoutMs: 120_000,
      faultsFrom: 'start',
      databaseUrl,
      // npm test's Temporal (the stack's task queue is its own): no fault here restarts it.
      temporalAddress: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
      workflowBundle: requireTestEnv('TEST_WORKFLOW_BUNDLE'),
      log: (m) => lines.push(m),
    });
    expect(lines.join('\n')).toContain('starting 2 workers, APIs and executors');
    expectSafeChaosRun(report, {
      title: 'multi-replica run',
      lines,
      faults: ['kill API', 'kill executor', 'kill worker'],
    });
    expect(report.accepted).toBe(8);
  } finally {
    clearInterval(sampler);
    await pool.end();
  }
  // The cap held across both workers the whole time (and the sampler saw the run).
  expect(samples).toBeGreaterThan(50);
  expect(maxSlots).toBe(1);
}, 300_000);
