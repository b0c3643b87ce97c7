/**
 * `npx tsx scripts/test-durations.ts <jest.json>...`: merges the per-file durations of one or more
 * `jest --json` reports into test/durations.json, the table the test order comes from
 * (test/support/jest-sequencer.js: the longest files first). Files a report measured get its seconds;
 * the others keep theirs; files that no longer exist are dropped. After a full run on the 2-core
 * reference machine:
 *
 *   RAILYARD_TEST_REPORT=/tmp/jest.json npm test && npx tsx scripts/test-durations.ts /tmp/jest.json
 *
 * (the variable keeps the check and works through a fresh clone's .ci/run too: a report of another
 * clone is matched by its test/ paths).
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const TABLE = path.join(ROOT, 'test', 'durations.json');

interface JestReport {
  testResults: { name: string; startTime: number; endTime: number }[];
}

function main(reports: string[]): number {
  if (reports.length === 0) {
    console.error('usage: npx tsx scripts/test-durations.ts <jest --json report>...');
    return 2;
  }
  const table: Record<string, number> = fs.existsSync(TABLE)
    ? (JSON.parse(fs.readFileSync(TABLE, 'utf8')) as Record<string, number>)
    : {};
  let measured = 0;
  for (const report of reports) {
    const { testResults } = JSON.parse(fs.readFileSync(report, 'utf8')) as JestReport;
    for (const r of testResults) {
      if (!(r.endTime > r.startTime)) continue;
      const file = projectPath(r.name);
      table[file] = Math.round((r.endTime - r.startTime) / 100) / 10;
      measured++;
    }
  }
  const kept = Object.keys(table)
    .filter((file) => fs.existsSync(path.join(ROOT, file)))
    .sort();
  fs.writeFileSync(TABLE, `${JSON.stringify(Object.fromEntries(kept.map((f) => [f, table[f]])), null, 2)}\n`);
  console.error(
    `test/durations.json: ${measured} files measured, ${kept.length} in the table; ` +
      `the sequencer reads it on the next run.`,
  );
  return 0;
}

/**
 * A report's file as this checkout names it: relative to it, or for a report of another clone (a
 * fresh-clone run) the part from a `test/` folder on that this checkout has too.
 */
function projectPath(file: string): string {
  const own = path.relative(ROOT, file).split(path.sep).join('/');
  if (!own.startsWith('../')) return own;
  const parts = file.split(path.sep);
  for (let i = parts.indexOf('test'); i >= 0; i = parts.indexOf('test', i + 1)) {
    const candidate = parts.slice(i).join('/');
    if (fs.existsSync(path.join(ROOT, candidate))) return candidate;
  }
  return own;
}

process.exit(main(process.argv.slice(2)));
