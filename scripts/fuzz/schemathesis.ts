/**
 * Runs the schemathesis CLI (installed into .tools/fuzz-venv by scripts/ensure-schemathesis.sh) against a served OpenAPI
 * document and reads its JSON report. Its output streams to our stderr as progress; the report is the
 * verdict: how many test cases (requests) it generated, and every failure group and error.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/data-dir';
import type { Seeded } from './seed';

export const SCHEMATHESIS = path.join(PROJECT_ROOT, '.tools', 'fuzz-venv', 'bin', 'schemathesis');

/** The checks every run makes: no 5xx, and every response as the document describes it. */
export const CHECKS = [
  'not_a_server_error',
  'response_schema_conformance',
  'status_code_conformance',
  'content_type_conformance',
];

export interface FuzzTarget {
  baseUrl: string;
  key: string;
  /** What the hooks point a share of the requests at, when this run seeded it (seed.ts). */
  seeded?: Seeded;
}

export interface FuzzSettings {
  maxExamples: number;
  phases: string;
  seed: number;
  workers: number;
  reportDir: string;
  /** Also write every request and answer as a HAR file into reportDir. */
  har: boolean;
}

export interface FuzzReport {
  exitCode: number;
  generated: number;
  failures: { title: string; count: number; operations: string[] }[];
  errors: { title: string; count: number }[];
  operations: { total: number; tested: number; errored: number; skipped: number } | null;
}

export async function runSchemathesis(target: FuzzTarget, s: FuzzSettings): Promise<FuzzReport> {
  const reportPath = path.join(s.reportDir, 'schemathesis.json');
  const args = [
    'run',
    `${target.baseUrl}/v1/openapi.json`,
    '--url',
    target.baseUrl,
    '--header',
    `x-api-token: ${target.key}`,
    '--checks',
    CHECKS.join(','),
    '--phases',
    s.phases,
    '--max-examples',
    String(s.maxExamples),
    '--seed',
    String(s.seed),
    '--workers',
    String(s.workers),
    // A change may wait for a busy queue (the API's busy budget) before it answers.
    '--request-timeout',
    '90',
    '--generation-database',
    'none',
    '--suppress-health-check',
    'all',
    '--no-color',
    '--output-sanitize',
    'true',
    '--report',
    s.har ? 'json,junit,har' : 'json,junit',
    '--report-dir',
    s.reportDir,
    '--report-json-path',
    reportPath,
  ];
  const env = {
    ...process.env,
    PYTHONPATH: path.join(PROJECT_ROOT, 'scripts', 'fuzz'),
    SCHEMATHESIS_HOOKS: 'railyard_hooks',
    ...(target.seeded ? { FUZZ_SEED: JSON.stringify(target.seeded) } : {}),
  };
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn(SCHEMATHESIS, args, { cwd: s.reportDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = fs.createWriteStream(path.join(s.reportDir, 'schemathesis.log'));
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        log.write(chunk);
        process.stderr.write(chunk);
      });
    }
    child.on('exit', (code) => resolve(code ?? 1));
    child.on('error', () => resolve(127));
  });
  if (!fs.existsSync(reportPath)) throw new Error(`schemathesis wrote no report (exit ${exitCode})`);
  const doc = JSON.parse(fs.readFileSync(reportPath, 'utf8')) as {
    test_cases: { generated: number };
    failures: FuzzReport['failures'];
    errors: FuzzReport['errors'];
    operations: FuzzReport['operations'];
  };
  return {
    exitCode,
    generated: doc.test_cases.generated,
    failures: doc.failures,
    errors: doc.errors,
    operations: doc.operations,
  };
}
