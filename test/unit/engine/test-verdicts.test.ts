/**
 * Issue 28, test-level verdicts: the failed tests a run names (failed-tests.ts), flaky retries
 * (flaky-retry.ts) and bisection by failing test ids (bisection.ts). Tables for the pure rules, short
 * stories on the harness, and properties over random batches, culprits and flakes.
 */
import fc from 'fast-check';
import { type QueueConfigPatch, type TestCaseResult } from '../../../engine';
import {
  convictingTests,
  failedTestsOf,
  MAX_FAILED_TEST_CHARS,
  MAX_FAILED_TESTS,
  MAX_FAILED_TESTS_READ,
  MAX_TEST_ID_LENGTH,
  onlyKnownFlaky,
  unrelatedFailure,
  type FailedTests,
} from '../../../engine/failed-tests';
import { Harness } from './harness';

const failed = (name: string, known: 'flaky' | 'quarantined' | 'plain' = 'plain'): TestCaseResult => ({
  name,
  status: 'failed',
  quarantined: known === 'quarantined',
  ...(known === 'flaky' ? { flaky: true } : {}),
});
const passed = (name: string): TestCaseResult => ({ name, status: 'passed', quarantined: false });
const many = (n: number, known: 'flaky' | 'plain' = 'plain') =>
  Array.from({ length: n }, (_, i) => failed(`t${i}`, known));
const complete = (...ids: string[]): FailedTests => ({ ids, complete: true });

describe('failed tests of a run', () => {
  it.each<[string, TestCaseResult[] | undefined, FailedTests | null]>([
    ['no detail', undefined, null],
    ['no failed test', [passed('a')], null],
    [
      'the failed ones, in order, once each',
      [failed('b'), passed('a'), failed('c'), failed('b')],
      complete('b', 'c'),
    ],
    [
      'at most MAX_FAILED_TESTS',
      many(MAX_FAILED_TESTS + 1),
      { ids: many(MAX_FAILED_TESTS).map((t) => t.name), complete: false },
    ],
    ['quarantined failures left out', [failed('a', 'quarantined'), failed('b', 'flaky')], complete('b')],
    ['only quarantined failures', [failed('a', 'quarantined')], null],
    [
      'an id with a line break or NUL is left out (the command reads one id per line)',
      [failed('a\nb'), failed('c\u0000'), failed('d')],
      { ids: ['d'], complete: false },
    ],
    [
      'an id too long is left out, not cut',
      [failed('x'.repeat(MAX_TEST_ID_LENGTH + 1)), failed('a')],
      { ids: ['a'], complete: false },
    ],
    [
      'at most MAX_FAILED_TEST_CHARS in all',
      Array.from({ length: MAX_FAILED_TESTS }, (_, i) => failed(`${i}`.padEnd(MAX_TEST_ID_LENGTH, '.'))),
      {
        ids: Array.from({ length: MAX_FAILED_TEST_CHARS / MAX_TEST_ID_LENGTH }, (_, i) =>
          `${i}`.padEnd(MAX_TEST_ID_LENGTH, '.'),
        ),
        complete: false,
      },
    ],
  ])('%s', (_name, tests, expected) => {
    expect(failedTestsOf(tests)).toEqual(expected);
  });

  it('reads a hostile report of a million failed tests only up to its bounds', () => {
    let read = 0;
    const million = {
      *[Symbol.iterator]() {
        for (let i = 0; i < 1_000_000; i += 1) {
          read += 1;
          yield failed(`t${i}`, 'flaky');
        }
      },
    } as unknown as TestCaseResult[];
    expect(failedTestsOf(million)).toMatchObject({ complete: false });
    expect(read).toBe(MAX_FAILED_TESTS + 1);
    expect(failedTestsOf(million)?.ids).toHaveLength(MAX_FAILED_TESTS);
    read = 0;
    expect(onlyKnownFlaky(million)).toBe(false);
    expect(read).toBe(MAX_FAILED_TESTS + 1);
    // Repeats of one name are read up to MAX_FAILED_TESTS_READ, no further.
    const repeats = new Array<TestCaseResult>(1_000_000).fill(failed('t', 'flaky'));
    expect(failedTestsOf(repeats)).toEqual({ ids: ['t'], complete: false });
    expect(failedTestsOf(repeats.slice(0, MAX_FAILED_TESTS_READ))).toEqual({ ids: ['t'], complete: true });
  });

  it.each<[string, TestCaseResult[] | undefined, boolean]>([
    ['every failed test known flaky', [failed('a', 'flaky'), passed('b')], true],
    ['flaky and quarantined ones', [failed('a', 'flaky'), failed('b', 'quarantined')], true],
    ['only quarantined ones (the run passed already)', [failed('a', 'quarantined')], false],
    ['one failed test not known flaky', [failed('a', 'flaky'), failed('b')], false],
    ['no failed test named', [passed('a')], false],
    ['no detail', undefined, false],
    ['too many to know them all', many(MAX_FAILED_TESTS + 1, 'flaky'), false],
  ])('flaky-only failure: %s', (_name, tests, expected) => {
    expect(onlyKnownFlaky(tests)).toBe(expected);
  });

  it.each<[string, FailedTests | null, FailedTests | undefined, boolean, string[]]>([
    ['a chunk failing a suspect', complete('calc'), complete('calc', 'io'), false, ['calc']],
    ['a chunk failing only other tests', complete('net'), complete('calc'), true, ['net']],
    ['a chunk failing a suspect and another', complete('net', 'calc'), complete('calc'), false, ['calc']],
    ['a chunk naming no test', null, complete('calc'), false, ['calc']],
    ['an incomplete chunk list', { ids: ['net'], complete: false }, complete('calc'), false, ['net']],
    ['no suspects (the batch named none)', complete('net'), undefined, false, ['net']],
    ['incomplete suspects', complete('net'), { ids: ['calc'], complete: false }, false, ['net']],
  ])('bisection by test ids: %s', (_name, chunk, suspects, unrelated, convicting) => {
    expect(unrelatedFailure(chunk, suspects)).toBe(unrelated);
    expect(convictingTests(chunk, suspects)).toEqual(convicting);
  });
});

describe('flaky retries', () => {
  it('runs a failure in known-flaky tests again, its failed tests only, and passes it on the retry', () => {
    const q = new Harness();
    q.submit(1);
    const first = q.runOf(1);
    q.fail(1, [failed('calc › divides', 'flaky'), passed('calc › adds')]);
    const retry = q.runOf(1);
    expect(retry).not.toBe(first);
    expect(q.commandsOf('startTestRun').at(-1)).toMatchObject({
      runId: retry,
      onlyTests: ['calc › divides'],
    });
    expect(q.timeline(1).at(-1)).toBe('testing:FLAKY_TESTS_RETRIED');
    q.pass(1);
    expect(q.timeline(1).at(-1)).toBe('tests_passed:FLAKY_TESTS_PASSED_ON_RETRY');
    expect(q.mergeAll()).toEqual([[1]]);
    expect(q.state.knownResults).toEqual([]);
  });

  it('ejects after the retries, naming every run and the failed tests', () => {
    const q = new Harness({ flakyRetries: 2 });
    q.submit(1);
    const runs = [q.runOf(1)];
    q.fail(1, [failed('calc › divides', 'flaky')]);
    runs.push(q.runOf(1));
    q.fail(1, [failed('calc › divides', 'flaky')]);
    runs.push(q.runOf(1));
    q.fail(1, [failed('calc › divides', 'flaky')]);
    expect(q.commandsOf('startTestRun').map((c) => c.runId)).toEqual(runs);
    // Each retry is told to the PR's record, with its run, though state and reason stay the same.
    const retries = q.notifications(1).filter((n) => n.reason === 'FLAKY_TESTS_RETRIED');
    expect(retries.map((n) => n.runId)).toEqual(runs.slice(1));
    expect(q.notifications(1).at(-1)).toMatchObject({
      to: 'failed',
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      runId: runs[2],
      convictedBy: runs,
      failedTests: ['calc › divides'],
    });
  });

  it.each<[string, QueueConfigPatch, TestCaseResult[], 'timeout' | 'failed']>([
    ['flakyRetries 0', { flakyRetries: 0 }, [failed('a', 'flaky')], 'failed'],
    ['a failed test not known flaky', {}, [failed('a', 'flaky'), failed('b')], 'failed'],
    ['no failed test named', {}, [passed('a')], 'failed'],
    ['too many failed tests to know them all', {}, many(MAX_FAILED_TESTS + 1, 'flaky'), 'failed'],
    ['a timeout', {}, [failed('a', 'flaky')], 'timeout'],
  ])('does not retry: %s', (_name, config, tests, outcome) => {
    const q = new Harness(config);
    q.submit(1);
    q.send({ type: 'testRunFinished', runId: q.runOf(1), outcome, tests });
    expect(q.stateOf(1)).toBe('failed');
    expect(q.commandsOf('startTestRun')).toHaveLength(1);
  });

  it('retries a batch in place: nothing is bisected, and the run stacked on it stays valid', () => {
    const q = new Harness({ batch: true, batchingMinSize: 2, concurrency: 2 });
    [1, 2, 3, 4].forEach((pr) => q.submit(pr));
    expect(q.batches()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    const above = q.runOf(3);
    q.fail(1, [failed('net › retries', 'flaky')]);
    expect(q.runs()).toEqual([
      [1, 2],
      [1, 2, 3, 4],
    ]);
    expect(q.runOf(3)).toBe(above);
    expect(q.commandsOf('cancelTestRun')).toEqual([]);
    q.pass(1);
    q.pass(3);
    expect(q.mergeAll().flat()).toEqual([1, 2, 3, 4]);
    expect(q.log.some((c) => c.type === 'notifyPr' && c.reason === 'BISECTION_REQUIRED')).toBe(false);
  });
});

describe('bisection by failing test ids', () => {
  function failedBatch(config: QueueConfigPatch = {}): Harness {
    const q = new Harness({ batch: true, batchingMinSize: 4, bisectionConcurrency: 2, ...config });
    [1, 2, 3, 4].forEach((pr) => q.submit(pr));
    q.fail(1, [failed('calc › divides'), passed('calc › adds')]);
    return q;
  }

  it('tells each chunk to run only the tests that failed in the batch', () => {
    const q = failedBatch();
    const chunks = q.commandsOf('startTestRun').filter((c) => c.bisection);
    expect(chunks.map((c) => [c.prs, c.onlyTests])).toEqual([
      [[1, 2], ['calc › divides']],
      [[3, 4], ['calc › divides']],
    ]);
  });

  it('does not convict on an unrelated failure; ejects the culprit naming the test and the runs', () => {
    const q = failedBatch();
    const [batchRun] = q.commandsOf('startTestRun').map((c) => c.runId);
    const half = q.runOf(1);
    q.fail(1, [failed('net › retries'), passed('calc › divides')]);
    expect(q.timeline(1).slice(-3, -1)).toEqual([
      'tests_passed:UNRELATED_FAILURE_IN_BISECTION',
      'pending:BISECTION_CLEARED',
    ]);
    const otherHalf = q.runOf(3);
    q.fail(3, [failed('calc › divides')]);
    const [three, four] = [q.runOf(3), q.runOf(4)];
    q.pass(3);
    q.fail(4, [failed('calc › divides')]);
    expect(q.notifications(4).at(-1)).toMatchObject({
      to: 'failed',
      failedTests: ['calc › divides'],
      convictedBy: [batchRun, half, otherHalf, three, four],
    });
    expect(q.stateOf(3)).toBe('pending');
    expect(q.stateOf(2)).not.toBe('failed');
  });

  it('convicts as before when the batch named no failed test', () => {
    const q = new Harness({ batch: true, batchingMinSize: 2 });
    [1, 2].forEach((pr) => q.submit(pr));
    q.fail(1);
    q.fail(1, [failed('net › retries')]);
    expect(q.timeline(1).at(-1)).toBe('failed:TEST_RUN_REQUIRED_STATUS_FAILED');
    expect(q.commandsOf('startTestRun').every((c) => c.onlyTests === undefined)).toBe(true);
  });
});

/**
 * A world of guilty PRs: each breaks some tests, whatever tree holds it; a run fails the tests its
 * tree's PRs break, within the tests it was told to run. `flakes` fail the first run of a given index
 * in a known-flaky test that passes when run again.
 */
function play(config: QueueConfigPatch, prs: number, guilt: Map<number, string[]>, flakes: Set<number>) {
  const q = new Harness({ bisectionConcurrency: 2, ...config });
  for (let pr = 1; pr <= prs; pr += 1) q.submit(pr);
  let index = 0;
  for (let step = 0; step < 500; step += 1) {
    q.mergeAll();
    const run = q
      .commandsOf('startTestRun')
      .find((c) => q.state.groups.some((g) => g.runId === c.runId && g.status === 'testing'));
    if (!run) {
      if (q.state.entries.length === 0) break;
      q.advance(10);
      continue;
    }
    const broken = [...run.ahead, ...run.prs].flatMap((pr) => guilt.get(pr) ?? []);
    const selected = run.onlyTests ? broken.filter((t) => run.onlyTests!.includes(t)) : broken;
    const tests = [...new Set(selected)].map((t) => failed(t));
    const flake = flakes.has(index) && !run.onlyTests;
    index += 1;
    if (flake) tests.push(failed('flaky › clock', 'flaky'));
    q.send({
      type: 'testRunFinished',
      runId: run.runId,
      outcome: tests.length > 0 ? 'failed' : 'passed',
      tests,
    });
  }
  return q;
}

describe('properties', () => {
  const config: fc.Arbitrary<QueueConfigPatch> = fc.record({
    batch: fc.constant(true),
    batchingMinSize: fc.integer({ min: 2, max: 8 }),
    batchingMaxWaitTimeMinutes: fc.constant(0),
    concurrency: fc.integer({ min: 1, max: 3 }),
    optimizationMode: fc.constantFrom('off' as const, 'bisection_skip_redundant_tests' as const),
  });

  it('a flaky-only failure retried once ejects no one and bisects nothing', () => {
    fc.assert(
      fc.property(
        config,
        fc.integer({ min: 2, max: 10 }),
        fc.uniqueArray(fc.nat(20)),
        (patch, prs, flakes) => {
          const q = play(patch, prs, new Map(), new Set(flakes));
          const reasons = q.log.flatMap((c) => (c.type === 'notifyPr' ? [c.reason] : []));
          expect(reasons).not.toContain('BISECTION_REQUIRED');
          for (let pr = 1; pr <= prs; pr += 1) expect(q.stateOf(pr)).toBe('merged');
        },
      ),
      { numRuns: 100, seed: 20261128 },
    );
  });

  it('only guilty PRs are ejected, each naming only tests it breaks', () => {
    const guilt = fc
      .integer({ min: 4, max: 10 })
      .chain((prs) =>
        fc.tuple(
          fc.constant(prs),
          fc.dictionary(
            fc.integer({ min: 1, max: prs }).map(String),
            fc.subarray(['calc › divides', 'net › retries', 'io › reads'], { minLength: 1 }),
            { maxKeys: 3 },
          ),
        ),
      );
    fc.assert(
      fc.property(config, guilt, (patch, [prs, dict]) => {
        const map = new Map(Object.entries(dict).map(([pr, tests]) => [Number(pr), tests]));
        const q = play(patch, prs, map, new Set());
        for (let pr = 1; pr <= prs; pr += 1) {
          const last = q.notifications(pr).at(-1);
          if (map.has(pr)) expect(last?.to).toBe('failed');
          else expect(last?.to).toBe('merged');
          for (const t of last?.failedTests ?? []) expect(map.get(pr)).toContain(t);
        }
      }),
      { numRuns: 100, seed: 20261128 },
    );
  });
});
