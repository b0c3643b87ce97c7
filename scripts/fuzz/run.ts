/**
 * `npm run fuzz` (through scripts/fuzz.sh, which installs schemathesis): fuzzes the served OpenAPI
 * document with an API key and fails unless every response is a non-5xx that the document allows.
 *
 * Without --url it starts its own stack (PostgreSQL, Temporal, worker, API: scripts/lib/stack.ts), seeds
 * a queue with open PRs, uploaded test results and webhook subscriptions for the hooks to aim at
 * (seed.ts, railyard_hooks.py), and afterwards counts from the API's own log what every route
 * answered, failing if a route of the document was never called.
 *
 * Options: --max-examples N (per operation and phase, default 200), --phases (schemathesis phases,
 * default examples,coverage,fuzzing), --seed, --workers, --min-requests N (fail below), --url and --key
 * (fuzz a running server instead), --keep (leave the reports and logs), --har (with --keep: every
 * request and answer as a HAR file, to see what the 4xx said), --database-url and --temporal-address
 * (the stack it starts uses that migrated-or-empty database and that Temporal instead of its own;
 * `npm test` hands its own).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { table } from '../lib/markdown-table';
import { startStack, type Stack } from '../lib/stack';
import { routeCounts, type RouteCount } from './routes';
import { CHECKS, runSchemathesis, type FuzzTarget } from './schemathesis';
import { seed } from './seed';

const { values } = parseArgs({
  options: {
    'max-examples': { type: 'string', default: '200' },
    phases: { type: 'string', default: 'examples,coverage,fuzzing' },
    seed: { type: 'string', default: '1' },
    workers: { type: 'string', default: '1' },
    'min-requests': { type: 'string', default: '0' },
    url: { type: 'string' },
    key: { type: 'string' },
    'database-url': { type: 'string' },
    'temporal-address': { type: 'string' },
    keep: { type: 'boolean', default: false },
    har: { type: 'boolean', default: false },
  },
});

const started = Date.now();
const say = (m: string) =>
  console.error(`[fuzz ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}`);
function summary(counts: RouteCount[]): string {
  return table(
    ['operation', 'requests', '2xx', '4xx', '5xx', 'declared 5xx'],
    counts.map((c) => [
      c.route,
      String(c.total),
      String(c.ok),
      String(c.client),
      String(c.server),
      String(c.declared),
    ]),
  );
}

async function main(): Promise<number> {
  const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-fuzz-'));
  let stack: Stack | null = null;
  let closeSeed: (() => Promise<void>) | null = null;
  try {
    let target: FuzzTarget;
    if (values.url) {
      if (!values.key) throw new Error('--url needs --key (an API key of that server)');
      if (values['database-url'] || values['temporal-address'])
        throw new Error('--database-url and --temporal-address are for the stack it starts, not with --url');
      target = { baseUrl: values.url.replace(/\/$/, ''), key: values.key };
    } else {
      // The seeded subscriptions deliver to a receiver on loopback.
      stack = await startStack({
        dir: reportDir,
        durableTemporal: false,
        ...(values['database-url'] ? { databaseUrl: values['database-url'] } : {}),
        ...(values['temporal-address'] ? { temporalAddress: values['temporal-address'] } : {}),
        env: {
          RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
          // A prebuilt workflow bundle (npm test hands its own) saves the worker its bundling.
          ...(process.env.RAILYARD_WORKFLOW_BUNDLE
            ? { RAILYARD_WORKFLOW_BUNDLE: process.env.RAILYARD_WORKFLOW_BUNDLE }
            : {}),
        },
        log: say,
      });
      for (const signal of ['SIGINT', 'SIGTERM'] as const)
        process.once(signal, () => void stack?.stop().then(() => process.exit(130)));
      say('seeding a queue, test results and webhook subscriptions...');
      const seeded = await seed(stack);
      closeSeed = seeded.close;
      target = { baseUrl: stack.apiUrl, key: seeded.key, seeded: seeded.seeded };
    }
    const fuzzingFrom = Date.now();
    say(
      `fuzzing ${target.baseUrl} (max ${values['max-examples']} examples per operation, seed ${values.seed})...`,
    );
    const report = await runSchemathesis(target, {
      maxExamples: Number(values['max-examples']),
      phases: values.phases,
      seed: Number(values.seed),
      workers: Number(values.workers),
      reportDir,
      har: values.har,
    });
    const problems = [
      ...report.failures.map((f) => `${f.count}× ${f.title} (${f.operations.join(', ')})`),
      ...report.errors.map((e) => `${e.count}× error: ${e.title}`),
    ];
    if (report.generated < Number(values['min-requests']))
      problems.push(
        `only ${report.generated} requests were generated (at least ${values['min-requests']} wanted)`,
      );
    if (stack) {
      const counts = await routeCounts(target.baseUrl, path.join(stack.logDir, 'api.log'), fuzzingFrom);
      console.log(summary(counts));
      for (const c of counts) if (c.total === 0) problems.push(`${c.route} was never called`);
      for (const c of counts)
        if (c.server > 0) problems.push(`${c.route} answered ${c.server} server errors`);
    }
    console.log(
      `\nschemathesis generated ${report.generated} requests over ${report.operations?.tested ?? '?'} operations; ` +
        `checks ${CHECKS.join(', ')}: ` +
        `${problems.length === 0 ? 'all passed' : `${problems.length} problem(s)`}`,
    );
    for (const p of problems) console.log(`- ${p}`);
    if (values.keep) say(`reports and logs stay in ${reportDir}`);
    return problems.length === 0 && report.exitCode === 0 ? 0 : 1;
  } finally {
    await stack?.stop();
    await closeSeed?.();
    if (!values.keep) fs.rmSync(reportDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    say(`the fuzz run could not finish: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
