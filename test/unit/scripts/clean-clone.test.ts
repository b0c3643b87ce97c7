/**
 * `npm test` leaves a fresh clone as it found it (issue 29), cheaply held here rather than by cloning:
 * scripts/test.sh notes a clean checkout before its first setup step and scripts/test.ts fails when it
 * is not clean at the end (so any test or step that writes into the repository is named by the next
 * fresh-clone run); the browser tests write their screenshots into the repository only when asked.
 * The install's side (package-lock.json never written) is lock-file.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { screenshotFolder } from '../../browser/browser';

const ROOT = join(__dirname, '..', '..', '..');
const script = (file: string) => readFileSync(join(ROOT, 'scripts', file), 'utf8');

it('test.sh notes a clean checkout before any setup step, and test.ts judges it at the end', () => {
  const sh = script('test.sh');
  const noted = sh.indexOf('export TEST_TREE_CLEAN_AT_START=1');
  expect(noted).toBeGreaterThan(-1);
  for (const step of [
    'ensure-chart-tools.sh',
    'ensure-schemathesis.sh',
    'ensure-deps.sh',
    'ensure-chromium.sh',
    'ensure-bwrap.sh',
  ])
    expect([step, sh.indexOf(step) > noted]).toEqual([step, true]);
  const ts = script('test.ts');
  expect(ts).toMatch(/TEST_TREE_CLEAN_AT_START !== '1'/);
  expect(ts).toMatch(/return jest !== 0 \? jest : checked && clean \? 0 : 1;/);
});

it('screenshots go to a temporary folder unless TEST_UPDATE_SCREENSHOTS=1 asks for docs/screenshots', () => {
  expect(relative(ROOT, screenshotFolder({})).startsWith('..')).toBe(true);
  expect(relative(ROOT, screenshotFolder({ TEST_UPDATE_SCREENSHOTS: '1' }))).toBe(
    join('docs', 'screenshots'),
  );
});
