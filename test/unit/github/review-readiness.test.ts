import { reviewSentence } from '../../../github/host/review-readiness';

const r = (login: string, state: string) => ({ user: { login }, state });
const rule = (requiredApprovals: number | undefined, threadResolution = false) => ({
  requiredApprovals,
  threadResolution,
});

describe('reviewSentence', () => {
  test.each([
    ['no reviews, one required', [], rule(1), 'it needs 1 approving review (it has none)'],
    ['one of two approvals', [r('a', 'APPROVED')], rule(2), 'it needs 2 approving reviews (it has 1)'],
    ['enough approvals', [r('a', 'APPROVED')], rule(1), null],
    [
      'changes requested win over approvals',
      [r('a', 'APPROVED'), r('b', 'CHANGES_REQUESTED')],
      rule(1),
      '@b requested changes: it is admitted once they approve or the review is dismissed',
    ],
    [
      'a later approval replaces the request',
      [r('b', 'CHANGES_REQUESTED'), r('b', 'APPROVED')],
      rule(1),
      null,
    ],
    [
      'a comment does not replace the request',
      [r('b', 'CHANGES_REQUESTED'), r('b', 'COMMENTED')],
      rule(1),
      '@b requested changes: it is admitted once they approve or the review is dismissed',
    ],
    [
      'a dismissed approval counts for nothing',
      [r('a', 'APPROVED'), r('a', 'DISMISSED')],
      rule(1),
      'it needs 1 approving review (it has none)',
    ],
    ['unknown count, no approval', [], rule(undefined), 'it needs an approving review (it has none)'],
    ['unknown count, approved', [r('a', 'APPROVED')], rule(undefined), null],
    [
      'conversations',
      [r('a', 'APPROVED')],
      rule(1, true),
      'its review conversations must be resolved first (the branch rules require it)',
    ],
    [
      'two people request changes',
      [r('a', 'CHANGES_REQUESTED'), r('b', 'CHANGES_REQUESTED')],
      rule(0),
      '@a, @b requested changes: it is admitted once they approve or their reviews are dismissed',
    ],
  ])('%s', (_name, reviews, given, expected) => {
    expect(reviewSentence(reviews, given)).toBe(expected);
  });

  test('at most five reviewers are named, the rest counted', () => {
    const many = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((l) => r(l, 'CHANGES_REQUESTED'));
    expect(reviewSentence(many, rule(1))).toBe(
      '@a, @b, @c, @d, @e and 2 more requested changes: it is admitted once they approve or their reviews are dismissed',
    );
  });

  test('a review by a deleted user (no login) is ignored', () => {
    expect(reviewSentence([{ user: null, state: 'CHANGES_REQUESTED' }], rule(0))).toBeNull();
  });
});
