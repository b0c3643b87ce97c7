/**
 * The 13 golden scenarios of flaky-detection.md §5, one named test each (13 is the property test
 * in property.test.ts). Main branch and one attempt per commit unless the scenario says otherwise.
 */
import {
  classify,
  classifyAll,
  DEFAULT_CLASSIFICATION_PARAMS as params,
} from '../../../../flaky/classification';
import { testCaseId } from '../../../../flaky/identity';
import { DAY, HOUR, join, runs, series, T0 } from './builders';

const judge = (history: ReturnType<typeof runs>, at: number) => classify(history, params, new Date(at));

describe('golden scenarios (flaky-detection.md §5)', () => {
  test('1: P;P;P;P is healthy', () => {
    const verdict = judge(runs('P;P;P;P'), T0 + 5 * HOUR);
    expect(verdict).toEqual({
      status: 'healthy',
      reason: 'no_signal',
      reasonCode: 'no_signal',
      timestamp: new Date(T0),
    });
  });

  test('2: F,P on one PR commit is flaky by same-commit disagreement', () => {
    const verdict = judge(runs('F,P', { branchClass: 'pr' }), T0 + HOUR);
    expect(verdict).toEqual({
      status: 'flaky',
      reason: 'mixed_outcomes_same_commit:sha=c000000',
      reasonCode: 'mixed_outcomes_same_commit',
      timestamp: new Date(T0),
    });
  });

  test('3: F;F;F is broken by three consecutive failing commits', () => {
    const verdict = judge(runs('F;F;F'), T0 + 3 * HOUR);
    expect(verdict).toMatchObject({ status: 'broken', reason: 'consecutive_failing_commits:3' });
    expect(verdict.timestamp).toEqual(new Date(T0 + 2 * HOUR));
  });

  test('4: F,P;F,P;F,P is flaky and never broken', () => {
    const history = runs('F,P;F,P;F,P');
    for (let hour = 1; hour <= 30; hour += 1) {
      expect(judge(history, T0 + hour * HOUR).status).toBe('flaky');
    }
    expect(judge(history, T0 + 3 * HOUR).reason).toBe('mixed_outcomes_same_commit:sha=c000002');
  });

  test('5: 20 commits with 3 scattered failures is flaky by stable failure rate', () => {
    const verdict = judge(runs(series(20, [2, 9, 15])), T0 + 20 * HOUR);
    expect(verdict).toMatchObject({ status: 'flaky', reason: 'stable_failure_rate:0.15>=0.10,n=20,w=72h' });
    expect(verdict.timestamp).toEqual(new Date(T0 + 19 * HOUR));
  });

  test('6: 19 attempts with 3 failures stays healthy below the minimum sample', () => {
    expect(judge(runs(series(19, [2, 9, 15])), T0 + 19 * HOUR)).toMatchObject({
      status: 'healthy',
      reason: 'no_signal',
    });
  });

  test('7: an upload with 85 of 100 results failing is excluded as infrastructure', () => {
    const own = runs('F,F,P', { branchClass: 'pr' });
    const infra = { ...own, uploads: [{ uploadId: own.uploads[0]!.uploadId, results: 100, failures: 85 }] };
    const normal = { ...own, uploads: [{ uploadId: own.uploads[0]!.uploadId, results: 100, failures: 10 }] };
    expect(judge(infra, T0 + HOUR)).toMatchObject({ status: 'healthy' });
    expect(judge(normal, T0 + HOUR)).toMatchObject({
      status: 'flaky',
      reasonCode: 'mixed_outcomes_same_commit',
    });
  });

  test('8: scenario 2 eight days ago, then 12 passes, is healthy again (recovered)', () => {
    const now = T0 + 8 * DAY;
    const history = join(
      runs('F,P', { branchClass: 'pr', prefix: 'pr' }),
      runs(series(12, []), { start: T0 + 4 * DAY, step: 6 * HOUR }),
    );
    const verdict = judge(history, now);
    expect(verdict).toMatchObject({ status: 'healthy', reason: 'recovered' });
    // Both conditions hold from day 7 (RECOVER_DAYS after the evidence); the 10th pass came before.
    expect(verdict.timestamp).toEqual(new Date(T0 + 7 * DAY));
  });

  test('9: scenario 2 eight days ago, then only 3 passes, is still flaky (time alone never heals)', () => {
    const history = join(
      runs('F,P', { branchClass: 'pr', prefix: 'pr' }),
      runs('P;P;P', { start: T0 + 7.5 * DAY }),
    );
    expect(judge(history, T0 + 8 * DAY)).toMatchObject({
      status: 'flaky',
      reasonCode: 'mixed_outcomes_same_commit',
    });
  });

  test('10: only skipped results leave the status unchanged', () => {
    const skipsOnly = runs('S;S;S');
    expect(judge(skipsOnly, T0 + 5 * HOUR)).toEqual(judge({ results: [], uploads: [] }, T0 + 5 * HOUR));
    const flaky = runs('F,P', { branchClass: 'pr' });
    const withSkips = join(flaky, runs('S;S;S;S', { start: T0 + HOUR, prefix: 's' }));
    expect(judge(withSkips, T0 + 9 * HOUR)).toEqual(judge(flaky, T0 + 9 * HOUR));
  });

  test('11: variants are separate tests (linux F,P is flaky, mac P is healthy)', () => {
    const repository = { host: 'github.com', owner: 'acme', name: 'shop' };
    const key = {
      organisationSlug: 'acme',
      repository,
      file: 'cart.test.ts',
      classname: 'cart',
      parent: 'cart',
      name: 'adds an item',
    };
    const linux = testCaseId({ ...key, variant: 'linux' });
    const mac = testCaseId({ ...key, variant: 'mac' });
    const history = join(
      runs('F,P', { testId: linux, prefix: 'l' }),
      runs('P', { testId: mac, prefix: 'm' }),
    );
    const verdicts = classifyAll(history.results, history.uploads, params, new Date(T0 + HOUR));
    expect(verdicts.get(linux)?.status).toBe('flaky');
    expect(verdicts.get(mac)?.status).toBe('healthy');
  });

  test('12: after scenario 5 a rate that drops to 0.07 keeps the test flaky (hysteresis)', () => {
    const history = runs(series(20 + 23, [2, 9, 15]));
    const verdict = judge(history, T0 + 43 * HOUR);
    expect(verdict).toMatchObject({ status: 'flaky', reason: 'stable_failure_rate:0.07>=0.05,n=43,w=72h' });
    expect(verdict.timestamp).toEqual(new Date(T0 + 19 * HOUR));
    // …and it clears once the rate falls below R_OFF (3/61 < 0.05).
    expect(judge(runs(series(61, [2, 9, 15])), T0 + 61 * HOUR)).toMatchObject({
      status: 'healthy',
      reason: 'recovered',
    });
  });
});
