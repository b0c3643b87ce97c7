/**
 * The baselines run with psql itself, in the same run as the API measurements: a script of
 * statements with `\timing on`, whose "Time: … ms" lines are the server round trips psql saw.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function psql(url: string, script: string, dir: string, name: string): Promise<string> {
  const file = join(dir, `${name}.sql`);
  writeFileSync(file, script);
  const { stdout } = await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', file], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/** Runs each statement with timing and returns the times psql printed, in ms. */
export async function timedStatements(
  url: string,
  statements: readonly string[],
  dir: string,
  name: string,
): Promise<number[]> {
  const script = [
    '\\timing on',
    '\\o /dev/null',
    ...statements.map((s) => `${s.trim().replace(/;?$/, ';')}`),
  ].join('\n');
  const file = join(dir, `${name}.sql`);
  writeFileSync(file, script);
  // \o sends results away; \timing lines still go to stdout.
  const { stdout } = await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', file], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return [...stdout.matchAll(/^Time: ([\d.]+) ms/gm)].map((m) => Number(m[1]));
}
