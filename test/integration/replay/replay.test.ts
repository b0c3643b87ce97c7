/**
 * Determinism guard: the committed histories (test/histories, recorded on the current code by the
 * stories test/histories/README.md names) replay without a non-determinism error against the current
 * workflow bundle. A change that alters what a workflow does for a recorded history fails here: record
 * the histories again if nothing has been released, or make the change a `patched()` branch.
 * The replay runs in a child process (scripts/replay-histories.ts): protobufjs does not work across
 * jest's module realms.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { requireTestEnv } from '../../support/env';
import { tsNode } from '../../../scripts/lib/ts-node';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const DIR = path.join(ROOT, 'test', 'histories');

/** Every workflow type, and the queue's submissions, test runs, merges and continue-as-new. */
const COVERED = [
  'queue-first-run.json',
  'queue-continue-as-new.json',
  'queue-cancellations.json',
  'pull-request-merged.json',
  'pull-request-cancelled.json',
  'test-run.json',
  'webhook-delivery.json',
  'flaky-reevaluation.json',
  'flaky-reevaluation-pages.json',
];

test('the committed workflow histories replay deterministically', async () => {
  const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json'));
  expect(files).toEqual(expect.arrayContaining(COVERED));
  const { stdout } = await promisify(execFile)(
    ...tsNode('scripts/replay-histories.ts', requireTestEnv('TEST_WORKFLOW_BUNDLE')),
    { cwd: ROOT },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? 'the replay script did not run' }));
  expect(stdout).toContain(`${files.length} passed, 0 failed`);
});
