/**
 * Prints the slowest test files of the run and the totals at its end (just above jest's own summary
 * lines, which jest always prints last): where the time went, at a glance. The run's order comes from
 * test/durations.json (jest-sequencer.js). Quiet for a run of one file.
 */
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
    ];
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}

module.exports = SlowestFilesReporter;
