import { prepareHistory } from '../../../../flaky/classification/history';
import {
  DEFAULT_CLASSIFICATION_PARAMS as params,
  type ObservedResult,
} from '../../../../flaky/classification';

const result = (overrides: Partial<ObservedResult>): ObservedResult => ({
  uploadId: 'u1',
  testId: 't',
  attempt: 0,
  outcome: 'pass',
  commitSha: 'c1',
  branchClass: 'stable',
  at: new Date(1_000),
  ...overrides,
});

describe('history preparation (D5, order independence)', () => {
  test('a result sent twice counts once, the earliest copy winning', () => {
    const prepared = prepareHistory(
      {
        results: [result({ at: new Date(5_000), outcome: 'fail' }), result({ outcome: 'fail' })],
        uploads: [],
      },
      params,
      10_000,
    );
    expect(prepared.counted).toEqual([{ atMs: 1_000, failed: true, commitSha: 'c1', branchClass: 'stable' }]);
  });

  test('identity is upload + test + attempt: other attempts are kept', () => {
    const prepared = prepareHistory(
      { results: [result({}), result({ attempt: 1, outcome: 'fail' })], uploads: [] },
      params,
      10_000,
    );
    expect(prepared.counted.map((r) => r.failed)).toEqual([false, true]);
  });

  test('skips, future results and infrastructure uploads are set aside', () => {
    const prepared = prepareHistory(
      {
        results: [
          result({ outcome: 'skip' }),
          result({ uploadId: 'late', at: new Date(10_000) }),
          result({ uploadId: 'infra', outcome: 'fail' }),
          result({ uploadId: 'pr', branchClass: 'pr', at: new Date(2_000) }),
        ],
        uploads: [{ uploadId: 'infra', results: 50, failures: 50 }],
      },
      params,
      10_000,
    );
    expect(prepared.ran).toEqual([1_000, 2_000]);
    expect(prepared.counted.map((r) => r.branchClass)).toEqual(['pr']);
    expect(prepared.stable).toEqual([]);
  });
});
