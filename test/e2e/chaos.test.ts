/**
 * The short chaos run of `npm test` (the long one is `npm run chaos`, bench/chaos/): 12 PRs, two of
 * them bad and two a conflicting pair, through a batching queue with concurrency 2 on the real stack:
 * the API and the worker as processes of their own and a Temporal dev server keeping its state in a
 * file, while the worker and the API are killed with SIGKILL and Temporal is restarted. Every safety
 * number must be 0 and every fault must be recovered from.
 */
import { runChaos } from '../../bench/chaos/scenario';
import { expectSafeChaosRun } from '../support/chaos-report';
import { requireTestEnv } from '../support/env';
import { createScratchDatabase } from '../support/postgres';

test('12 PRs through worker and API kills and a Temporal restart: nothing lost, merged twice or untested', async () => {
  const lines: string[] = [];
  const report = await runChaos({
    seed: 3,
    prs: 12,
    concurrency: 2,
    batchSize: 3,
    badRate: 0.1,
    conflictRate: 0.15,
    testSeconds: 0.5,
    faults: { workerKills: 1, apiKills: 1, temporalRestarts: 1, postgresRestarts: 0 },
    submitGapMs: 400,
    settleTimeoutMs: 90_000,
    // Faults start with the first submit, so kills land while submissions are being admitted too.
    faultsFrom: 'start',
    databaseUrl: await createScratchDatabase('chaos', requireTestEnv('TEST_PG_TEMPLATE')),
    workflowBundle: requireTestEnv('TEST_WORKFLOW_BUNDLE'),
    log: (m) => lines.push(m),
  });
  expectSafeChaosRun(report, {
    title: 'short chaos run',
    lines,
    faults: ['kill API', 'kill worker', 'restart Temporal'],
  });
  expect(report.accepted).toBe(12);
  // Every good PR lands despite the faults, the two bad ones fail, and one of the conflicting pair lands.
  expect(report.outcomes.merged).toBe(9);
}, 240_000);
