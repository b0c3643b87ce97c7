/**
 * Determinism guard: the committed histories of queue and PR workflow runs (test/histories, recorded
 * by `RECORD_HISTORIES=1 npm test -- test/e2e/durability.test.ts`) replay without a non-determinism
 * error against the current workflow bundle. A change that alters what a workflow does for an
 * existing history fails here and needs a `patched()` branch or a new workflow version.
 * The replay runs in a child process (scripts/replay-histories.ts): protobufjs does not work across
 * jest's module realms.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { requireTestEnv } from '../../support/env';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const DIR = path.join(ROOT, 'test', 'histories');

test('the committed queue and PR histories replay deterministically', async () => {
  const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json'));
  expect(files).toEqual(
    expect.arrayContaining([
      'queue-continue-as-new.json',
      'pull-request-merged.json',
      'pull-request-cancelled.json',
    ]),
  );
  const { stdout } = await promisify(execFile)(
    path.join(ROOT, 'node_modules', '.bin', 'tsx'),
    ['scripts/replay-histories.ts', requireTestEnv('TEST_WORKFLOW_BUNDLE')],
    { cwd: ROOT },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? 'the replay script did not run' }));
  expect(stdout).toContain(`${files.length} passed, 0 failed`);
});
