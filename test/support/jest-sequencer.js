/**
 * Jest's test order: the longest files first, so the two workers do not end the run with one of them
 * alone on a 150 s end-to-end file while the other idles. Durations come from test/durations.json, a
 * committed table of measured seconds per file (scripts/test-durations.ts writes it from a `jest --json`
 * run). A file the table does not know gets a middling estimate: the median of its folder's files
 * (test/e2e, test/integration, ...), else of the whole table. Ties keep a stable path order.
 */
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.resolve(__dirname, '..', '..');
const TABLE = path.join(ROOT, 'test', 'durations.json');

/** @returns {Record<string, number>} */
function loadTable() {
  try {
    return JSON.parse(fs.readFileSync(TABLE, 'utf8'));
  } catch {
    return {};
  }
}

/** @param {number[]} values */
function median(values) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** `test/e2e/github/crash.test.ts` -> `test/e2e`. */
const folderOf = (file) => file.split('/').slice(0, 2).join('/');

/** Seconds per file (relative, `/`-separated) from the table, estimating the ones it lacks. */
function estimator(table) {
  const byFolder = new Map();
  for (const [file, seconds] of Object.entries(table)) {
    const folder = folderOf(file);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), seconds]);
  }
  const overall = median(Object.values(table));
  return (file) =>
    table[file] ?? (byFolder.has(folderOf(file)) ? median(byFolder.get(folderOf(file))) : overall);
}

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    const estimate = estimator(loadTable());
    const keyed = tests.map((test) => ({
      test,
      file: path.relative(ROOT, test.path).split(path.sep).join('/'),
    }));
    for (const k of keyed) k.seconds = estimate(k.file);
    keyed.sort((a, b) => b.seconds - a.seconds || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    return keyed.map((k) => k.test);
  }
}

module.exports = LongestFirstSequencer;
