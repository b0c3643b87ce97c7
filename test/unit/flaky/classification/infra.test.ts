import {
  DEFAULT_CLASSIFICATION_PARAMS as params,
  infraUploadIds,
  isInfraUpload,
  outcomeOfStatus,
  summariseUpload,
} from '../../../../flaky/classification';

describe('infrastructure exclusion (D4)', () => {
  test('summarises an upload over non-skipped results', () => {
    expect(summariseUpload('u1', ['pass', 'fail', 'skip', 'fail'])).toEqual({
      uploadId: 'u1',
      results: 3,
      failures: 2,
    });
  });

  test.each([
    [100, 85, true],
    [20, 16, true],
    [20, 15, false],
    [19, 19, false],
    [0, 0, false],
  ])('%i results with %i failures: infra %s', (results, failures, expected) => {
    expect(isInfraUpload({ uploadId: 'u', results, failures }, params)).toBe(expected);
  });

  test('duplicate or disagreeing summaries resolve the same whatever their order', () => {
    const small = { uploadId: 'u', results: 10, failures: 10 };
    const large = { uploadId: 'u', results: 30, failures: 30 };
    expect([...infraUploadIds([small, large], params)]).toEqual(['u']);
    expect([...infraUploadIds([large, small, large], params)]).toEqual(['u']);
  });

  test.each([
    ['passed', 'pass'],
    ['failed', 'fail'],
    ['error', 'fail'],
    ['skipped', 'skip'],
  ] as const)('JUnit status %s is outcome %s (D2)', (status, outcome) => {
    expect(outcomeOfStatus(status)).toBe(outcome);
  });
});
