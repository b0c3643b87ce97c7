/**
 * The short fuzz run of `npm test` (the long one is `npm run fuzz`): scripts/fuzz.sh as a user runs it,
 * which installs schemathesis when it is missing, starts its own API and worker (on npm test's
 * PostgreSQL, a scratch database, and Temporal) and fuzzes every operation of
 * the served OpenAPI document with an API key, a few hundred requests, with the same checks as the
 * long run: no server error, and every status, content type and body as the document describes it.
 * The run seeds a queue, test results and webhook subscriptions (scripts/fuzz/seed.ts) that the hooks
 * aim requests at, so the flaky-test and webhook operations answer past validation and "not found".
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { requireTestEnv } from '../../support/env';
import { createScratchDatabase } from '../../support/postgres';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/**
 * The test launcher's own settings would be refused by the processes the script starts; the run's
 * workflow bundle is handed on, so the stack's worker does not bundle its own.
 */
function scriptEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(RAILYARD_|TEST_)/.test(k)) env[k] = v;
  return { ...env, RAILYARD_WORKFLOW_BUNDLE: requireTestEnv('TEST_WORKFLOW_BUNDLE') };
}

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['scripts/fuzz.sh', ...args], { cwd: ROOT, env: scriptEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

test('a few hundred fuzzed requests over every operation: no server error, nothing off the document', async () => {
  // npm test's PostgreSQL (a scratch database) and Temporal: the stack starts only its API and worker.
  const database = await createScratchDatabase('fuzz', requireTestEnv('TEST_PG_TEMPLATE'));
  const shared = ['--database-url', database, '--temporal-address', requireTestEnv('TEST_TEMPORAL_ADDRESS')];
  const args = [
    '--max-examples',
    '20',
    '--phases',
    'fuzzing',
    '--seed',
    '7',
    '--min-requests',
    '300',
    ...shared,
  ];
  const res = await run(args);
  if (res.code !== 0) console.log(`${res.stdout}\n${res.stderr.slice(-6000)}`);
  expect(res.code).toBe(0);
  expect(res.stdout).toMatch(/schemathesis generated \d+ requests over \d+ operations; .*: all passed/);
  const generated = Number(/generated (\d+) requests/.exec(res.stdout)?.[1]);
  expect(generated).toBeGreaterThanOrEqual(300);
  // Every operation of the document answered, and none with a 5xx (counted from the API's own log).
  const rows = res.stdout.split('\n').filter((l) => /^\| (GET|POST|PATCH|DELETE|PUT) /.test(l));
  expect(rows.length).toBeGreaterThanOrEqual(14);
  let deepOk = 0;
  for (const row of rows) {
    const [route = '', total, ok, , server] = row
      .split('|')
      .map((c) => c.trim())
      .slice(1);
    expect(Number(total)).toBeGreaterThan(0);
    expect(Number(server)).toBe(0);
    if (/ \/v1\/(flaky-tests|webhooks)\//.test(route)) deepOk += Number(ok);
  }
  // The seeded data is reached: a good share of the flaky-test and webhook requests succeed.
  expect(deepOk).toBeGreaterThanOrEqual(100);
  // A hang guard, not a speed check: about 60 s on a quiet machine, but it starts first in npm test (the
  // longest file) while every other worker starts its stack, and took 200-240 s beside it on a slow host.
}, 420_000);
