/** github/inbound/reply-budget.ts: how often refusals of PR commands are answered (issue 24). */
import { createReplyBudget } from '../../../github/inbound/reply-budget';

const clock = () => {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

test('one reply per PR and kind in the window; other kinds and PRs have their own', () => {
  const c = clock();
  const budget = createReplyBudget({ windowMs: 60_000, now: c.now });
  expect(budget.take(1, 'acme/w', 12, 'no-access')).toBe(true);
  expect(budget.take(1, 'acme/w', 12, 'no-access')).toBe(false);
  expect(budget.take(1, 'acme/w', 12, 'invalid')).toBe(true);
  expect(budget.take(1, 'acme/w', 13, 'no-access')).toBe(true);
  expect(budget.take(1, 'acme/other', 12, 'no-access')).toBe(true);
  expect(budget.take(2, 'acme/w', 12, 'no-access')).toBe(true);
  c.advance(59_999);
  expect(budget.take(1, 'acme/w', 12, 'no-access')).toBe(false);
  c.advance(1);
  expect(budget.take(1, 'acme/w', 12, 'no-access')).toBe(true);
});

test('at most perInstallation replies per installation in the window, whatever the PR', () => {
  const c = clock();
  const budget = createReplyBudget({ windowMs: 60_000, perInstallation: 3, now: c.now });
  expect([1, 2, 3, 4, 5].map((pr) => budget.take(7, 'acme/w', pr, 'stale'))).toEqual([
    true,
    true,
    true,
    false,
    false,
  ]);
  // Another installation is not affected; the window frees the first one.
  expect(budget.take(8, 'acme/w', 1, 'stale')).toBe(true);
  c.advance(60_000);
  expect(budget.take(7, 'acme/w', 4, 'stale')).toBe(true);
});

test('memory is bounded: the oldest keys are forgotten first (forgetting only allows a reply again)', () => {
  const c = clock();
  const budget = createReplyBudget({ maxKeys: 2, perInstallation: 100, now: c.now });
  expect(budget.take(1, 'acme/w', 1, 'failed')).toBe(true);
  expect(budget.take(1, 'acme/w', 2, 'failed')).toBe(true);
  expect(budget.take(1, 'acme/w', 3, 'failed')).toBe(true);
  expect(budget.take(1, 'acme/w', 3, 'failed')).toBe(false);
  expect(budget.take(1, 'acme/w', 1, 'failed')).toBe(true);
});
