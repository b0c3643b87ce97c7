/**
 * explainTestStatus (contract/test-status-why.ts) on the classifier's statusEvidence: the sentence a
 * test's page shows for its status (issue 29: "healthy" next to a 50 %
 * failure rate said nothing about why). Each status the classifier gives, from the histories of the
 * golden scenarios, is explained with the counts and thresholds the classifier used, including a
 * repository's own parameters; no sentence shows a code.
 */
import fc from 'fast-check';
import { explainTestStatus } from '../../../../contract';
import {
  classify,
  DEFAULT_CLASSIFICATION_PARAMS as defaults,
  resolveClassificationParams,
  statusEvidence,
  type ClassificationParams,
  type TestHistory,
} from '../../../../flaky/classification';
import { DAY, HOUR, runs, T0 } from './builders';

/** The sentence for the status classify() gives the history at `now`. */
function explained(history: TestHistory, now: number, params: ClassificationParams = defaults) {
  const at = new Date(now);
  const status = classify(history, params, at);
  return {
    status,
    text: explainTestStatus(
      { value: status.status, reason: status.reason },
      statusEvidence(history, params, at),
      params,
    ),
  };
}

it('healthy with too few runs to judge: how many so far, how many needed, and the threshold', () => {
  // The demo: one pass and one failure on the merge queue, two commits.
  const { status, text } = explained(runs('P;F', { branchClass: 'merge_queue' }), T0 + 2 * HOUR);
  expect(status).toMatchObject({ status: 'healthy', reasonCode: 'no_signal' });
  expect(text).toBe(
    'Healthy: no commit both passed and failed it, and 2 runs on main, master or the merge queue in ' +
      'the last 3 days so far (1 failed); the failure rate judges from 20, flaky at 10 % or more.',
  );
});

it("uses the repository's own thresholds", () => {
  const params = resolveClassificationParams({
    rateMinAttempts: 10,
    rateWindowHours: 12,
    stableBranches: ['trunk'],
  });
  const { text } = explained(runs('P;F;P'), T0 + 3 * HOUR, params);
  expect(text).toContain(
    '3 runs on trunk or the merge queue in the last 12 h so far (1 failed); the failure rate judges from 10,',
  );
});

it('healthy with enough runs: the rate against the flaky threshold', () => {
  const { status, text } = explained(runs(Array(20).fill('P').join(';'), { step: HOUR }), T0 + 21 * HOUR);
  expect(status.status).toBe('healthy');
  expect(text).toContain(
    '0 % of its 20 runs on main, master or the merge queue in the last 3 days failed; flaky at 10 % or more, healthy again below 5 %',
  );
});

it('flaky by its failure rate, by a commit that passed and failed, and broken', () => {
  const rate = explained(
    runs(Array.from({ length: 20 }, (_, i) => (i % 7 === 0 ? 'F' : 'P')).join(';')),
    T0 + 21 * HOUR,
  );
  expect(rate.status.reasonCode).toBe('stable_failure_rate');
  expect(rate.text).toBe(
    'Flaky: 15 % of its 20 runs on main, master or the merge queue in the last 3 days failed; flaky at 10 % or more, healthy again below 5 %.',
  );

  const mixed = explained(runs('F,P'), T0 + HOUR);
  expect(mixed.status.reasonCode).toBe('mixed_outcomes_same_commit');
  expect(mixed.text).toBe(
    'Flaky: one commit (c000000) both passed and failed it within 7 days; it heals after 10 passes and 7 days without that.',
  );

  const broken = explained(runs('F;F;F'), T0 + 3 * HOUR);
  expect(broken.status.status).toBe('broken');
  expect(broken.text).toMatch(/^Broken: /);
  expect(broken.text).not.toMatch(/[a-z]+_[a-z_]+|[A-Z]{2,}_/);
});

it('stale and never run', () => {
  expect(explained(runs('F;F;F'), T0 + 40 * DAY).text).toBe(
    'Healthy: it has not run for 30 days or more, so its old failures no longer count.',
  );
  expect(explained({ results: [], uploads: [] }, T0).text).toBe(
    'Healthy: no result of it yet on a branch the classifier reads, so nothing to judge.',
  );
});

it('every status of any history is a sentence that starts with its status word and shows no code', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('P', 'F', 'F,P', 'P,P', 'S'), { minLength: 0, maxLength: 30 }),
      fc.constantFrom('stable', 'merge_queue', 'pr'),
      fc.integer({ min: 0, max: 60 * 24 }),
      (commits, branchClass, hoursLater) => {
        const history =
          commits.length === 0 ? { results: [], uploads: [] } : runs(commits.join(';'), { branchClass });
        const { status, text } = explained(history, T0 + hoursLater * HOUR);
        const word = { healthy: 'Healthy', flaky: 'Flaky', broken: 'Broken' }[status.status];
        expect(text.startsWith(word)).toBe(true);
        expect(text).not.toMatch(/\b[a-z]+_[a-z_]+\b|\b[A-Z]{2,}_[A-Z_]+\b/);
        expect(text.endsWith('.')).toBe(true);
      },
    ),
    { numRuns: 200 },
  );
});
