import {
  hasEvidenceIn,
  mixedEvidence,
  readMixed,
  type MixedContext,
} from '../../../../flaky/classification/mixed';
import { type CountedResult } from '../../../../flaky/classification/history';

const r = (atMs: number, failed: boolean, commitSha = 'c1'): CountedResult => ({
  atMs,
  failed,
  commitSha,
  branchClass: 'stable',
});
const WINDOW = 100;

describe('S1 same-commit disagreement', () => {
  test.each([
    ['fail then pass on one commit', [r(0, true), r(10, false)], [{ atMs: 10, commitSha: 'c1' }]],
    [
      'pass and fail at the same instant',
      [r(5, false), r(5, true)],
      [
        { atMs: 5, commitSha: 'c1' },
        { atMs: 5, commitSha: 'c1' },
      ],
    ],
    ['exactly W_MIX apart is too far', [r(0, true), r(100, false)], []],
    ['just inside W_MIX', [r(0, true), r(99, false)], [{ atMs: 99, commitSha: 'c1' }]],
    ['different commits never mix', [r(0, true), r(1, false, 'c2')], []],
    ['only failures', [r(0, true), r(1, true)], []],
    [
      'every disagreeing result is evidence',
      [r(0, true), r(1, false), r(2, true)],
      [
        { atMs: 1, commitSha: 'c1' },
        { atMs: 2, commitSha: 'c1' },
      ],
    ],
  ])('%s', (_name, results, expected) => {
    expect(mixedEvidence(results, WINDOW)).toEqual(expected);
  });

  const context = (passTimes: number[]): MixedContext => {
    const evidence = [{ atMs: 10, commitSha: 'c1' }];
    return { evidence, evidenceTimes: [10], passTimes, recoverMs: 50, recoverPasses: 2 };
  };

  test.each([
    ['before the evidence', [], -Infinity, 10, false],
    ['right after the evidence', [], -Infinity, 11, true],
    ['time alone never heals', [], -Infinity, 1_000, true],
    ['passes alone never heal', [20, 30, 40], -Infinity, 59, true],
    ['time and passes heal', [20, 30], -Infinity, 60, false],
    ['passes at the evidence instant do not count', [10, 30], -Infinity, 60, true],
    ['staleness forgets the evidence', [], 11, 1_000, false],
  ])('%s', (_name, passes, cutoff, now, active) => {
    expect(readMixed(context(passes), cutoff, now).active).toBe(active);
  });

  test('finds evidence inside a window, after the cutoff only', () => {
    const ctx = context([]);
    expect(hasEvidenceIn(ctx, -Infinity, 0, 11)).toBe(true);
    expect(hasEvidenceIn(ctx, -Infinity, 11, 20)).toBe(false);
    expect(hasEvidenceIn(ctx, 11, 0, 20)).toBe(false);
  });
});
