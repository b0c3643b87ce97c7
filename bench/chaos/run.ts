/**
 * `npm run chaos -- --seed 1 --prs 100`: the seeded chaos run on the real stack (scenario.ts). Progress
 * goes to stderr, the summary tables to stdout; the exit code is 1 when any safety number is not 0.
 *
 * Options: --seed, --prs, --concurrency, --batch, --bad-rate, --conflict-rate, --test-seconds,
 * --worker-kills, --api-kills, --executor-kills, --temporal-restarts, --postgres-restarts, --gap-ms,
 * --replicas N (APIs behind one address, workers and executors; kills hit the first of each),
 * --settle-timeout-s, --faults-from start|accepted (when the fault plan's clock starts),
 * --json <file> (the whole report), --keep (leave the run's folder for reading).
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { failedChecks, formatReport } from './report';
import { runChaos } from './scenario';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    prs: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '3' },
    batch: { type: 'string', default: '4' },
    'bad-rate': { type: 'string', default: '0.08' },
    'conflict-rate': { type: 'string', default: '0.06' },
    'test-seconds': { type: 'string', default: '1' },
    'worker-kills': { type: 'string', default: '4' },
    'api-kills': { type: 'string', default: '4' },
    'executor-kills': { type: 'string', default: '0' },
    replicas: { type: 'string', default: '1' },
    'temporal-restarts': { type: 'string', default: '1' },
    'postgres-restarts': { type: 'string', default: '1' },
    'gap-ms': { type: 'string', default: '600' },
    'settle-timeout-s': { type: 'string', default: '600' },
    'faults-from': { type: 'string', default: 'start' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

const num = (name: keyof typeof values): number => {
  const value = Number(values[name]);
  if (!Number.isFinite(value) || value < 0) {
    console.error(`chaos: --${name} must be a non-negative number`);
    process.exit(2);
  }
  return value;
};

const started = Date.now();
const log = (message: string) =>
  console.error(`[chaos ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}`);

async function main(): Promise<number> {
  const seed = num('seed');
  const report = await runChaos({
    seed,
    prs: num('prs'),
    concurrency: num('concurrency'),
    batchSize: num('batch'),
    badRate: num('bad-rate'),
    conflictRate: num('conflict-rate'),
    testSeconds: num('test-seconds'),
    faults: {
      workerKills: num('worker-kills'),
      apiKills: num('api-kills'),
      executorKills: num('executor-kills'),
      temporalRestarts: num('temporal-restarts'),
      postgresRestarts: num('postgres-restarts'),
    },
    submitGapMs: num('gap-ms'),
    settleTimeoutMs: num('settle-timeout-s') * 1000,
    faultsFrom: values['faults-from'] === 'accepted' ? 'accepted' : 'start',
    replicas: num('replicas'),
    keep: values.keep,
    log,
    onStack: (stack) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const)
        process.once(signal, () => void stack.stop().then(() => process.exit(130)));
    },
  });
  console.log(formatReport(report, `Chaos run, seed ${seed}, ${values.prs} PRs`));
  if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  if (values.keep) log(`the run's folder (logs, git, Temporal's file) stays at ${report.dir}`);
  const failed = failedChecks(report);
  if (failed.length > 0) log(`FAILED: ${failed.join('; ')}`);
  else log('every safety check passed');
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`the run could not finish: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(2);
  },
);
