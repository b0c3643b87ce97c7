/**
 * Renders one job's results as JUnit XML the way real runners write it: one <testsuite> per module,
 * a retried test written again as a repeated <testcase> (gotestsum and per-attempt reporters do this;
 * the parser joins the repeats into ordered attempts), failures with a message and a short stack.
 */
import { type Rng } from '../simulate/rng';
import { type Attempt, runTest, type WorldTest } from './world';

export interface RenderedJob {
  readonly xml: string;
  /** Attempts written (what ingestion will store). */
  readonly attempts: number;
}

export function renderJob(rng: Rng, tests: readonly WorldTest[]): RenderedJob {
  const suites = new Map<string, string[]>();
  let attempts = 0;
  for (const test of tests) {
    const cases = suites.get(test.classname) ?? [];
    for (const attempt of runTest(rng, test)) {
      cases.push(testcase(test, attempt, rng));
      attempts += 1;
    }
    suites.set(test.classname, cases);
  }
  const body = [...suites].map(
    ([name, cases]) =>
      `  <testsuite name="${name}" tests="${cases.length}">\n${cases.join('')}  </testsuite>\n`,
  );
  return {
    xml: `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="bench">\n${body.join('')}</testsuites>\n`,
    attempts,
  };
}

function testcase(test: WorldTest, attempt: Attempt, rng: Rng): string {
  const time = (rng.next() * 2).toFixed(3);
  const open = `    <testcase classname="${test.classname}" name="${test.name}" file="${test.file}" time="${time}"`;
  switch (attempt.outcome) {
    case 'P':
      return `${open}/>\n`;
    case 'S':
      return `${open}><skipped message="disabled"/></testcase>\n`;
    case 'F':
      return `${open}><failure message="${attempt.message}" type="AssertionError">${attempt.message}\n    at Object.&lt;anonymous&gt; (${test.file}:${10 + Math.floor(rng.next() * 200)}:7)</failure></testcase>\n`;
  }
}
