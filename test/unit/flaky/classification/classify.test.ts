/**
 * classify() behaviour beyond the golden scenarios: the broken-rate rule, staleness, manual flags,
 * evaluation-time boundaries and timestamps.
 */
import {
  classify,
  DEFAULT_CLASSIFICATION_PARAMS as params,
  resolveClassificationParams,
} from '../../../../flaky/classification';
import { DAY, HOUR, join, runs, series, T0 } from './builders';

const judge = (history: ReturnType<typeof runs>, at: number, p = params) =>
  classify(history, p, new Date(at));

describe('classify', () => {
  test('S4: a high failure rate on the stable set is broken (broken_rate)', () => {
    // Five failures on the same commit: not consecutive commits, but 5/5 over 24 h.
    const verdict = judge(runs('F,F,F,F,F'), T0 + HOUR);
    expect(verdict).toMatchObject({ status: 'broken', reason: 'broken_rate:1.00,n=5' });
  });

  test('S4 does not fire while the window holds same-commit disagreement', () => {
    // S3 is widened out of the way so only S4 can call these broken; each upload is too small for D4.
    const onlyRate = resolveClassificationParams({ brokenConsecutiveCommits: 10 });
    const failing = 'F,F,F,F,F;F,F,F,F,F;F,F,F,F,F;F,F,F,F,F';
    expect(judge(runs(`F,F;${failing}`), T0 + 5 * HOUR, onlyRate)).toMatchObject({
      status: 'broken',
      reason: 'broken_rate:1.00,n=22',
    });
    expect(judge(runs(`F,P;${failing}`), T0 + 5 * HOUR, onlyRate)).toMatchObject({
      status: 'flaky',
      reasonCode: 'mixed_outcomes_same_commit',
    });
  });

  test('S4 clears below R_BRK_OFF once enough attempts show it', () => {
    const history = join(runs('F,F,F,F,F'), runs('P;P;P;P;P;P', { start: T0 + 2 * HOUR, prefix: 'p' }));
    expect(judge(history, T0 + 8 * HOUR)).toMatchObject({ status: 'healthy', reason: 'recovered' });
  });

  test('PR results feed same-commit disagreement only, never the stable-set rules', () => {
    expect(judge(runs('F;F;F;F;F;F', { branchClass: 'pr' }), T0 + 7 * HOUR).status).toBe('healthy');
    expect(judge(runs('F;F;F', { branchClass: 'merge_queue' }), T0 + 3 * HOUR).status).toBe('broken');
  });

  test('a stale test is healthy (stale) and its latches are forgotten', () => {
    const broken = runs('F;F;F');
    expect(judge(broken, T0 + 31 * DAY)).toMatchObject({
      status: 'healthy',
      reason: 'stale',
      timestamp: new Date(T0 + 2 * HOUR + 30 * DAY),
    });
    // One more failure after the gap is one failing commit, not the fourth in a run.
    const resumed = join(broken, runs('F', { start: T0 + 40 * DAY, prefix: 'n' }));
    expect(judge(resumed, T0 + 40 * DAY + HOUR)).toMatchObject({ status: 'healthy', reason: 'recovered' });
  });

  test('a stale flaky test does not come back flaky from old evidence', () => {
    const history = join(
      runs('F,P', { branchClass: 'pr' }),
      runs('P', { start: T0 + 45 * DAY, prefix: 'n' }),
    );
    expect(judge(history, T0 + 45 * DAY + HOUR)).toMatchObject({ status: 'healthy', reason: 'recovered' });
  });

  test('a manual flag makes a test flaky from the flag on, and keeps it from going stale', () => {
    const history = { ...runs('P'), manualFlag: { at: new Date(T0 + 2 * HOUR) } };
    expect(judge(history, T0 + 2 * HOUR).status).toBe('healthy');
    expect(judge(history, T0 + 3 * HOUR)).toMatchObject({
      status: 'flaky',
      reason: 'manual_flag',
      timestamp: new Date(T0 + 2 * HOUR),
    });
    expect(judge(history, T0 + 90 * DAY)).toMatchObject({ status: 'flaky', reason: 'manual_flag' });
  });

  test('broken takes precedence over flaky', () => {
    const history = join(
      runs('F,P', { branchClass: 'pr', prefix: 'pr' }),
      runs('F;F;F', { start: T0 + HOUR }),
    );
    expect(judge(history, T0 + 5 * HOUR).status).toBe('broken');
  });

  test('results at or after the evaluation time are not seen (half-open window)', () => {
    const history = runs('F,P');
    expect(judge(history, T0).status).toBe('healthy');
    expect(judge(history, T0 + 1).status).toBe('flaky');
  });

  test('a test that never ran is healthy with reason no_results at the evaluation time', () => {
    expect(judge({ results: [], uploads: [] }, T0)).toEqual({
      status: 'healthy',
      reason: 'no_results',
      reasonCode: 'no_results',
      timestamp: new Date(T0),
    });
  });

  test('the timestamp is the result that caused the change, not the evaluation time', () => {
    const history = runs(series(25, [2, 9, 15]));
    const a = judge(history, T0 + 30 * HOUR);
    const b = judge(history, T0 + 40 * HOUR);
    expect(a.timestamp).toEqual(new Date(T0 + 19 * HOUR));
    expect(b).toEqual(a);
  });

  test('per-repository parameters change the verdict', () => {
    const strict = resolveClassificationParams({ brokenConsecutiveCommits: 2 });
    expect(judge(runs('F;F'), T0 + 2 * HOUR).status).toBe('healthy');
    expect(judge(runs('F;F'), T0 + 2 * HOUR, strict)).toMatchObject({
      status: 'broken',
      reason: 'consecutive_failing_commits:2',
    });
  });
});
