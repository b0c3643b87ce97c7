import { type TestCaseResult, type TestRunOutcome } from '../../../engine';
import { verdictOf } from '../../../engine/verdict';
import { Harness } from './harness';

const test = (name: string, status: TestCaseResult['status'], quarantined = false): TestCaseResult => ({
  name,
  status,
  quarantined,
});

describe('test runs', () => {
  it.each<[string, TestRunOutcome, TestCaseResult[] | undefined, ReturnType<typeof verdictOf>]>([
    ['a pass', 'passed', undefined, { passed: true, reason: 'TEST_RUN_PASSED' }],
    [
      'a failure without detail',
      'failed',
      undefined,
      { passed: false, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' },
    ],
    [
      'every failure quarantined',
      'failed',
      [test('a', 'failed', true), test('b', 'passed')],
      { passed: true, reason: 'QUARANTINED_FAILURES_IGNORED' },
    ],
    [
      'one failure not quarantined',
      'failed',
      [test('a', 'failed', true), test('b', 'failed')],
      { passed: false, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' },
    ],
    [
      'a failure naming no failed test',
      'failed',
      [test('a', 'passed'), test('b', 'skipped', true)],
      { passed: false, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' },
    ],
    [
      'a timeout is never forgiven',
      'timeout',
      [test('a', 'failed', true)],
      { passed: false, reason: 'TEST_RUN_TIMEOUT' },
    ],
  ])('verdict: %s', (_name, outcome, tests, expected) => {
    expect(verdictOf(outcome, tests)).toEqual(expected);
  });

  it('counts a run whose failures are all quarantined as passed', () => {
    const q = new Harness();
    q.submit(1);
    q.fail(1, [test('flaky', 'failed', true)]);
    expect(q.lastReason(1)).toBe('QUARANTINED_FAILURES_IGNORED');
    expect(q.state.merge?.prs).toEqual([1]);
  });

  it('times a run out at testingTimeoutMinutes, cancels it and fails with TEST_RUN_TIMEOUT', () => {
    const q = new Harness({ testingTimeoutMinutes: 60 });
    q.submit(1);
    const runId = q.runOf(1);
    expect(q.state.wakeAt).toBe(q.now + 60 * 60_000);
    q.advance(59);
    expect(q.stateOf(1)).toBe('testing');
    q.advance(1);
    expect(q.commandsOf('cancelTestRun')).toEqual([
      { type: 'cancelTestRun', runId, reason: 'TEST_RUN_TIMEOUT' },
    ]);
    expect(q.timeline(1).at(-1)).toBe('failed:TEST_RUN_TIMEOUT');
    q.send({ type: 'testRunFinished', runId, outcome: 'passed' });
    expect(q.stateOf(1)).toBe('failed');
  });

  it('treats a timeout reported by the runner the same way', () => {
    const q = new Harness();
    q.submit(1);
    q.send({ type: 'testRunFinished', runId: q.runOf(1), outcome: 'timeout' });
    expect(q.timeline(1).at(-1)).toBe('failed:TEST_RUN_TIMEOUT');
  });

  it('sets no deadline when testingTimeoutMinutes is 0', () => {
    const q = new Harness({ testingTimeoutMinutes: 0 });
    q.submit(1);
    expect(q.state.wakeAt).toBeNull();
    q.advance(100_000);
    expect(q.stateOf(1)).toBe('testing');
  });

  it('ignores a report for a run it no longer tracks', () => {
    const q = new Harness({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    const stale = q.runOf(2);
    q.fail(1);
    expect(q.send({ type: 'testRunFinished', runId: stale, outcome: 'passed' })).toEqual([]);
    expect(q.stateOf(2)).toBe('testing');
  });

  it('learns the tip from the first built test branch when it did not know it', () => {
    const q = new Harness({}, null);
    q.submit(1);
    q.send({ type: 'testRunStarted', runId: q.runOf(1), baseSha: 'abc' });
    expect(q.state.tipSha).toBe('abc');
    expect(q.state.groups[0]?.baseSha).toBe('abc');
  });

  it('asks for a test branch on the tip plus the PRs ahead, in order, stacked on the run below', () => {
    const q = new Harness({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    const [first, second] = q.commandsOf('startTestRun');
    expect(second).toEqual({
      type: 'startTestRun',
      runId: second!.runId,
      prs: [2],
      ahead: [1],
      baseSha: 'tip-0',
      stackedOnRunId: first!.runId,
      bisection: false,
    });
  });
});
