/** Batching, bisection, optimistic merging and pending failure depth on the real stack. */
import fs from 'node:fs';
import path from 'node:path';
import { startQueueHarness, type QueueHarness } from '../support/queue-harness';

let h: QueueHarness;
afterEach(async () => {
  await h?.close();
});

test('a bad PR in a batch is isolated by bisection and the rest merge', async () => {
  h = await startQueueHarness();
  await h.createQueue({
    batch: true,
    batchingMinSize: 4,
    batchingMaxWaitTimeMinutes: 0.05,
    concurrency: 1,
    bisectionConcurrency: 2,
  });
  h.openPr(1, { 'f1.txt': '1\n' });
  h.openPr(2, { 'f2.txt': '2\n' });
  h.openPr(3, { BROKEN: 'yes\n' });
  h.openPr(4, { 'f4.txt': '4\n' });
  for (const n of [1, 2, 3, 4]) await h.submit(n);
  const states = [];
  for (const n of [1, 2, 3, 4]) states.push((await h.settled(n, 120_000)).state);
  expect(states).toEqual(['merged', 'merged', 'failed', 'merged']);
  expect(h.mainLog()).toEqual(['PR 1 (#1)', 'PR 2 (#2)', 'PR 4 (#4)']);
  const failed = await h.pr(3);
  expect(failed?.timeline.some((t) => t.reason === 'BISECTION_REQUIRED' || t.to === 'pending_failure')).toBe(
    true,
  );
}, 180_000);

/** A command that fails the first run containing FLAKY_ONCE and passes afterwards. */
const FLAKY =
  'test ! -e BROKEN && if [ -e FLAKY_ONCE ] && [ ! -e $GATE/flaked ]; then touch $GATE/flaked; exit 1; fi; sleep 1';

test('optimistic merging: a later passing run carries a flaked PR ahead of it', async () => {
  h = await startQueueHarness({ command: FLAKY });
  await h.createQueue({ concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 1 });
  h.openPr(1, { FLAKY_ONCE: 'x\n' });
  h.openPr(2, { 'f2.txt': '2\n' });
  await h.submit(1);
  await h.submit(2);
  const [one, two] = [await h.settled(1), await h.settled(2)];
  expect([one.state, two.state]).toEqual(['merged', 'merged']);
  expect(fs.existsSync(path.join(h.gate, 'flaked'))).toBe(true);
  expect(one.timeline.map((t) => t.to)).toContain('pending_failure');
  expect(h.mainLog()).toEqual(['PR 1 (#1)', 'PR 2 (#2)']);
}, 120_000);

test('pending failure depth without optimistic merging: a flaked PR is retested after its successor, not blamed at once', async () => {
  h = await startQueueHarness({ command: FLAKY });
  await h.createQueue({ concurrency: 2, pendingFailureDepth: 1 });
  h.openPr(1, { FLAKY_ONCE: 'x\n' });
  h.openPr(2, { 'f2.txt': '2\n' });
  await h.submit(1);
  await h.submit(2);
  const one = await h.settled(1);
  const two = await h.settled(2);
  expect(one.timeline.map((t) => t.to)).toContain('pending_failure');
  // Whatever the engine concludes, the target only holds tested trees and nothing merges twice.
  const merged = [one, two]
    .filter((r) => r.state === 'merged')
    .map((r) => `PR ${r.prNumber} (#${r.prNumber})`);
  expect(h.mainLog()).toEqual(merged);
}, 120_000);
