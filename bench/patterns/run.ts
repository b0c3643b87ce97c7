/**
 * `npx tsx bench/patterns/run.ts`: how long the patterns that made the old regular expressions backtrack
 * for minutes (issue 11) take now, each next to a baseline measured in the same run, and against the
 * 1 s budget the unit tests used to assert (a wall-clock bound flaked under load; the tests now assert
 * the step bounds that make these fast, test/unit/platform/glob.test.ts, codeowners.test.ts,
 * runners/junit-files.test.ts).
 *
 * - Globs: one match of the path; baseline: the same path against `**` (one walk of the path).
 * - CODEOWNERS past its step limit: 1,000 reproduced rules against 50 long paths, stopped at 5M steps;
 *   baseline: the same job with the rule `a*c` (no match, linear per pair), stopped at the same limit.
 * - JUnit walk: a checkout 30 folders deep with `**\/` repeated 10 and 50 times in the globs; baseline:
 *   the same walk with `**\/x.xml` and `**\/a/*.xmk`.
 *
 * Each figure is the median of `--runs` (default 5), after one warm-up run. Usage: npx tsx bench/patterns/run.ts [--runs 5]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { collectJunitFiles } from '../../executor/junit-files';
import { matchOwnersNow } from '../../flaky/owners-matching';
import { compileGlob } from '../../platform/glob';
import { table } from '../../scripts/lib/markdown-table';
import { deepJunitGlobs, OWNERS_PAST_THE_LIMIT, PATHOLOGICAL_GLOBS } from './cases';

const BUDGET_MS = 1_000;
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Math.max(1, Number(values.runs));

async function median(fn: () => unknown): Promise<number> {
  const times: number[] = [];
  await fn(); // warm-up: compilation, first file-system reads
  for (let i = 0; i < RUNS; i += 1) {
    const started = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const ms = (n: number) => (n < 10 ? n.toFixed(3) : n.toFixed(1));
const rows: string[][] = [];
function row(name: string, measured: number, baseline: number): void {
  rows.push([
    name,
    ms(measured),
    ms(baseline),
    baseline > 0 ? `${(measured / baseline).toFixed(1)}x` : '-',
    measured < BUDGET_MS ? 'PASS' : 'MISS',
  ]);
}

async function main(): Promise<void> {
  for (const [name, dialect, pattern, path] of PATHOLOGICAL_GLOBS) {
    const glob = compileGlob(pattern, dialect);
    const all = compileGlob('**', dialect);
    row(
      `glob (${dialect}): ${name}`,
      await median(() => glob.matches(path, { steps: 0 })),
      await median(() => all.matches(path, { steps: 0 })),
    );
  }

  const benign = { ...OWNERS_PAST_THE_LIMIT, patterns: OWNERS_PAST_THE_LIMIT.patterns.map(() => 'a*c') };
  row(
    'CODEOWNERS: 1,000 reproduced rules x 50 paths, stopped at 5M steps',
    await median(() => matchOwnersNow(OWNERS_PAST_THE_LIMIT)),
    await median(() => matchOwnersNow(benign)),
  );

  const dir = mkdtempSync(join(tmpdir(), 'railyard-bench-patterns-'));
  try {
    const deep = join(dir, ...Array.from({ length: 30 }, () => 'a'));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'junit.xmk'), '<no/>');
    writeFileSync(join(deep, 'x.xml'), '<x/>');
    const baseline = await median(() => collectJunitFiles(dir, ['**/x.xml', '**/a/*.xmk']));
    for (const times of [10, 50])
      row(
        `JUnit walk, 30 folders deep, \`**/\` x ${times}`,
        await median(() => collectJunitFiles(dir, deepJunitGlobs(times))),
        baseline,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  console.log(
    `Pathological patterns (issue 11): median of ${RUNS} run(s), ms; budget ${BUDGET_MS} ms (the unit tests' old bound)\n`,
  );
  console.log(table(['case', 'ms', 'baseline ms', 'ratio', `< ${BUDGET_MS} ms`], rows));
}

void main();
