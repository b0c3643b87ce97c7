/**
 * Prints the slowest test files of the run and the totals at its end (just above jest's own summary
 * lines, which jest always prints last): where the time went, at a glance. The run's order comes from
 * test/durations.json (jest-sequencer.js). Quiet for a run of one file.
 *
 * Then the files that cost the most CPU, from what jest-cpu-environment.js recorded: the run is bound
 * by the cores, so these are the files worth making cheaper.
 */
const fs = require('node:fs');
const path = require('node:path');

const SHOWN = 15;

class SlowestFilesReporter {
  /** @param {import('@jest/reporters').Config.GlobalConfig} globalConfig */
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.workers = globalConfig.maxWorkers;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults.map((r) => ({
      file: path.relative(this.rootDir, r.testFilePath).split(path.sep).join('/'),
      seconds: Math.max(0, (r.perfStats.end - r.perfStats.start) / 1000),
      failed: r.numFailingTests > 0 || r.testExecError != null,
    }));
    if (files.length < 2) return;
    files.sort((a, b) => b.seconds - a.seconds);
    const sum = files.reduce((s, f) => s + f.seconds, 0);
    const wall = (Date.now() - results.startTime) / 1000;
    const shown = files.slice(0, SHOWN);
    const width = shown[0].seconds.toFixed(1).length;
    const lines = [
      '',
      `Slowest ${shown.length} of ${files.length} test files:`,
      ...shown.map(
        (f) => `  ${f.seconds.toFixed(1).padStart(width)} s  ${f.file}${f.failed ? '  (failed)' : ''}`,
      ),
      `Total: ${wall.toFixed(1)} s of jest on ${this.workers} worker${this.workers === 1 ? '' : 's'}; ` +
        `${sum.toFixed(1)} s in the ${files.length} files` +
        (shown.length < files.length
          ? ` (${shown.reduce((s, f) => s + f.seconds, 0).toFixed(1)} s in these ${shown.length}).`
          : '.'),
      '',
      ...cpuLines(this.rootDir),
    ];
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}

/**
 * The files that cost the most CPU, and the total; nothing when no file's CPU was recorded. Every
 * file's figures go to .data/test-cpu-by-file.tsv (git-ignored): the whole list, to find the
 * per-file cost no top 15 shows.
 */
function cpuLines(rootDir) {
  const dir = process.env.TEST_TMP;
  let text = '';
  try {
    if (dir) text = fs.readFileSync(path.join(dir, 'cpu-by-file.jsonl'), 'utf8');
  } catch {
    return [];
  }
  const files = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map((f) => ({ ...f, total: f.self + f.children }));
  if (files.length < 2) return [];
  files.sort((a, b) => b.total - a.total);
  const table = path.join(rootDir, '.data', 'test-cpu-by-file.tsv');
  try {
    fs.mkdirSync(path.dirname(table), { recursive: true });
    const rows = files.map(
      (f) => `${f.total.toFixed(2)}\t${f.self.toFixed(2)}\t${f.children.toFixed(2)}\t${f.file}`,
    );
    fs.writeFileSync(table, `total\tself\tchildren\tfile\n${rows.join('\n')}\n`);
  } catch {
    /* a read-only checkout: the summary below is still printed */
  }
  const self = files.reduce((s, f) => s + f.self, 0);
  const children = files.reduce((s, f) => s + f.children, 0);
  const shown = files.slice(0, SHOWN);
  const width = shown[0].total.toFixed(1).length;
  return [
    `Most CPU, ${shown.length} of ${files.length} files (a jest worker's own + the processes it reaped):`,
    ...shown.map(
      (f) =>
        `  ${f.total.toFixed(1).padStart(width)} CPU-s  ${f.file}  (${f.self.toFixed(1)} + ${f.children.toFixed(1)})`,
    ),
    `CPU: ${(self + children).toFixed(0)} CPU-s charged to the files (${self.toFixed(0)} in jest workers, ` +
      `${children.toFixed(0)} in processes they started); the Temporal and PostgreSQL servers are not counted. ` +
      `Every file: ${path.relative(rootDir, table)}.`,
    '',
  ];
}

module.exports = SlowestFilesReporter;
