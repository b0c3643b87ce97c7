/**
 * The fork-run check budget spends one installation's GitHub calls however many API processes take
 * the checks (issue 27): each process counts its share of both figures, the share follows the replica
 * count as it changes, and the refusal says the figure is split.
 */
import { createForkRunBudget } from '../../../api/plugins/fork-run-budget';

const REPO = { host: 'github.com', owner: 'acme', name: 'app' };

function spend(budget: ReturnType<typeof createForkRunBudget>, address: (i: number) => string, n: number) {
  let taken = 0;
  for (let i = 0; i < n; i++) if (budget.take(address(i), REPO) === null) taken++;
  return taken;
}

test('with two processes alive each takes half of the per-repository hour, and says so', () => {
  let replicas = 2;
  const budget = createForkRunBudget(
    { perAddressPerMinute: 1_000, perRepositoryPerHour: 10 },
    { now: () => 0, replicas: () => replicas },
  );
  expect(spend(budget, (i) => `10.0.0.${i}`, 20)).toBe(5);
  const refusal = budget.take('10.0.1.1', REPO);
  expect(refusal?.message).toBe(
    'github.com/acme/app had more than 5 x-forked-workflow-run-id checks in the last hour on this API process (the limit of 10 is split over 2); retry after 3600 seconds, or send an API key.',
  );
  // One process left: its share is the whole figure again.
  replicas = 1;
  expect(spend(budget, (i) => `10.0.2.${i}`, 20)).toBe(5);
  expect(budget.take('10.0.3.1', REPO)?.message).toMatch(/had more than 10 .* in the last hour; retry after/);
});

test("an address's checks per minute are split the same way", () => {
  const budget = createForkRunBudget(
    { perAddressPerMinute: 6, perRepositoryPerHour: 1_000 },
    { now: () => 0, replicas: () => 3 },
  );
  expect(spend(budget, () => '10.9.9.9', 10)).toBe(2);
  expect(budget.checkAddress('10.9.9.9')?.message).toBe(
    'Address 10.9.9.9 asked for more than 2 x-forked-workflow-run-id checks in 60 seconds on this API process (the limit of 6 is split over 3); retry after 60 seconds.',
  );
});
