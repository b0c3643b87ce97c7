/**
 * Coalesced refreshes (api/temporal/coalesced-refresh.ts): every caller is answered by a run that
 * started after its call, a burst costs two runs, keys are independent, failures reach their callers.
 */
import { createCoalescedRefresh } from '../../../api/temporal/coalesced-refresh';

/** A run per call that the test finishes by hand, recording when each started. */
function manualRuns() {
  const started: { key: string; finish: (err?: Error) => void }[] = [];
  const run = (key: string) =>
    new Promise<void>((resolve, reject) =>
      started.push({ key, finish: (err) => (err ? reject(err) : resolve()) }),
    );
  return { started, run };
}
const tick = () => new Promise((r) => setImmediate(r));

test('a lone refresh is one run', async () => {
  const { started, run } = manualRuns();
  const refresh = createCoalescedRefresh();
  const done = refresh('q', () => run('q'));
  expect(started).toHaveLength(1);
  started[0]!.finish();
  await done;
});

test('callers arriving during a run share one run that starts after it', async () => {
  const { started, run } = manualRuns();
  const refresh = createCoalescedRefresh();
  const first = refresh('q', () => run('q'));
  const settled: string[] = [];
  const later = Array.from({ length: 50 }, (_, i) =>
    refresh('q', () => run('q')).then(() => settled.push(`later ${i}`)),
  );
  expect(started).toHaveLength(1);
  started[0]!.finish();
  await first;
  await tick();
  // The later callers are not answered by the run that began before them.
  expect(settled).toEqual([]);
  expect(started).toHaveLength(2);
  started[1]!.finish();
  await Promise.all(later);
  expect(settled).toHaveLength(50);
  expect(started).toHaveLength(2);
});

test('keys do not wait for each other', async () => {
  const { started, run } = manualRuns();
  const refresh = createCoalescedRefresh();
  void refresh('a', () => run('a'));
  const b = refresh('b', () => run('b'));
  expect(started.map((s) => s.key)).toEqual(['a', 'b']);
  started[1]!.finish();
  await b;
  started[0]!.finish();
});

test('a failed run fails its callers; the waiting run still goes', async () => {
  const { started, run } = manualRuns();
  const refresh = createCoalescedRefresh();
  const first = refresh('q', () => run('q'));
  const second = refresh('q', () => run('q'));
  started[0]!.finish(new Error('no view'));
  await expect(first).rejects.toThrow('no view');
  await tick();
  expect(started).toHaveLength(2);
  started[1]!.finish();
  await expect(second).resolves.toBeUndefined();
});

test('an idle key starts afresh', async () => {
  const { started, run } = manualRuns();
  const refresh = createCoalescedRefresh();
  const one = refresh('q', () => run('q'));
  started[0]!.finish();
  await one;
  const two = refresh('q', () => run('q'));
  expect(started).toHaveLength(2);
  started[1]!.finish();
  await two;
});
