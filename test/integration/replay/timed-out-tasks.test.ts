/**
 * Regression (stop 46, docs/known-issues.md): a queue run must still replay when one of its workflow
 * tasks timed out after the worker had processed it. Live, the worker applied that task's results in an
 * activation of their own; on replay, Temporal's core hands them to the workflow in one activation with
 * the next task's (signals and updates first). A queue that pumped its side effects from the microtask
 * after a call's result sent, on replay, a call without the effects the other result produced, and
 * diverged ("Activity type of scheduled event 'readPullRequest' does not match activity type of
 * activity command 'appendTransitions'", a 20-minute `bench:continuous` run).
 *
 * Each committed queue history is replayed as if each of its tasks that issued nothing had timed out
 * (test/support/timed-out-task.ts rewrites the history as such a task leaves it). On the code before
 * PUMP_IN_TURN_PATCH, `queue-cancellations.json` failed for one of its four such tasks; the 20-minute
 * runs' histories failed for about a third of theirs.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { requireTestEnv } from '../../support/env';
import { tsNode } from '../../../scripts/lib/ts-node';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const DIR = path.join(ROOT, 'test', 'histories');

interface Outcome {
  file: string;
  candidates: number;
  tried: number;
  failed: { task: string; error: string }[];
}

test('the queue histories replay when any task that issued nothing timed out after it was processed', async () => {
  const files = fs
    .readdirSync(DIR)
    .filter((f) => f.startsWith('queue-') && f.endsWith('.json'))
    .map((f) => path.join(DIR, f));
  expect(files.length).toBeGreaterThanOrEqual(4);
  const { stdout, stderr } = await promisify(execFile)(
    ...tsNode(
      'test/support/replay-timed-out-tasks.ts',
      requireTestEnv('TEST_WORKFLOW_BUNDLE'),
      '40',
      ...files,
    ),
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  ).catch((err: { stdout?: string; stderr?: string }) => ({
    stdout: err.stdout ?? '',
    stderr: err.stderr ?? '',
  }));
  const outcomes = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Outcome);
  expect({ stderr: outcomes.length === files.length ? '' : stderr, replayed: outcomes.length }).toEqual({
    stderr: '',
    replayed: files.length,
  });
  // Not vacuous: the recordings hold such tasks, and every one was tried.
  expect(outcomes.reduce((n, o) => n + o.tried, 0)).toBeGreaterThanOrEqual(4);
  expect(
    outcomes.flatMap((o) => o.failed.map((f) => `${path.basename(o.file)} task ${f.task}: ${f.error}`)),
  ).toEqual([]);
});
