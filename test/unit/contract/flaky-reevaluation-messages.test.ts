/**
 * The re-evaluation summary's arithmetic: the workflow adds pages and runs up in whatever order they
 * finish, so the total must not depend on the grouping, and `failed` stays capped.
 */
import {
  addSummaries,
  EMPTY_SUMMARY,
  MAX_FAILED_LABELS,
  reevaluationHistoryBound,
  type ReevaluationSummary,
} from '../../../contract';

const page = (n: number, failed: string[] = []): ReevaluationSummary => ({
  repositories: n,
  evaluated: 10 * n,
  changed: n,
  recorded: 2 * n,
  failedRepositories: failed.length,
  failed,
});

test('EMPTY_SUMMARY is the identity and adding is associative', () => {
  const [a, b, c] = [page(1, ['a']), page(2), page(3, ['c1', 'c2'])];
  expect(addSummaries(EMPTY_SUMMARY, a)).toEqual(a);
  expect(addSummaries(a, EMPTY_SUMMARY)).toEqual(a);
  expect(addSummaries(addSummaries(a, b), c)).toEqual(addSummaries(a, addSummaries(b, c)));
  expect(addSummaries(addSummaries(a, b), c)).toEqual({
    repositories: 6,
    evaluated: 60,
    changed: 6,
    recorded: 12,
    failedRepositories: 3,
    failed: ['a', 'c1', 'c2'],
  });
});

test('the count has every failed repository, the names only the first MAX_FAILED_LABELS', () => {
  const names = (p: string) => Array.from({ length: 15 }, (_, i) => `${p}${i}`);
  const total = addSummaries(page(0, names('x')), page(0, names('y')));
  expect(total.failedRepositories).toBe(30);
  expect(total.failed).toEqual([...names('x'), ...names('y')].slice(0, MAX_FAILED_LABELS));
});

test('the history bound grows with the pages of one run only', () => {
  expect(reevaluationHistoryBound(50)).toBe(612);
  expect(reevaluationHistoryBound(2)).toBe(36);
});
