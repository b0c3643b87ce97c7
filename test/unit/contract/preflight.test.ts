/** The preflight's id and sentences (contract/preflight.ts). */
import { queueWorkflowId } from '../../../contract';
import { preflightPrefixOf, preflightSentence, preflightWorkflowId } from '../../../contract';

const key = {
  organisationId: 'org-1',
  repo: { host: 'github.com', owner: 'acme', name: 'app' },
  targetBranch: 'main',
};
const base = { branch: 'trunk-merge/preflight/run-1', sha: 'a'.repeat(40), required: ['test', 'lint'] };

test("one preflight per queue: its id is the queue's, under preflight/", () => {
  expect(preflightWorkflowId(key)).toBe(queueWorkflowId(key).replace(/^queue\//, 'preflight/'));
  expect(preflightWorkflowId({ ...key, organisationId: 'org-2' })).not.toBe(preflightWorkflowId(key));
});

test('the prefix of a preflight branch, with a queue prefix of several segments', () => {
  expect(preflightPrefixOf('trunk-merge/preflight/run-1')).toBe('trunk-merge/');
  expect(preflightPrefixOf('ci/merge/preflight/run-1')).toBe('ci/merge/');
});

test('each answer as one sentence naming the checks and the likely cause', () => {
  expect(preflightSentence({ kind: 'started', ...base, started: ['test', 'lint'], waitedMs: 12_400 })).toBe(
    "Every required check (`test`, `lint`) started on the test branch `trunk-merge/preflight/run-1` within 12 s: CI runs on the queue's test branches.",
  );
  expect(
    preflightSentence({
      kind: 'missing',
      ...base,
      started: [],
      missing: ['test', 'lint'],
      cause: 'nothing_reported',
      otherChecks: [],
      waitedMs: 300_000,
    }),
  ).toBe(
    "Required checks `test`, `lint` did not start within 300 s on the test branch `trunk-merge/preflight/run-1`: no check at all reported on it, so most likely no CI workflow is triggered on the test-branch prefix `trunk-merge/` (GitHub Actions: `on: push: branches: ['trunk-merge/**']`).",
  );
  expect(
    preflightSentence({
      kind: 'missing',
      ...base,
      started: ['lint'],
      missing: ['test'],
      cause: 'not_produced',
      otherChecks: ['build'],
      waitedMs: 60_000,
    }),
  ).toBe(
    'Required check `test` did not start within 60 s on the test branch `trunk-merge/preflight/run-1` (`lint` started): CI reported other checks on it (`build`), so most likely the required check is not produced on branches (a job that runs only on pull requests, or a check named differently).',
  );
  // Draft-PR testing mode: the branch is named with its draft PR.
  const draftPullRequest = { number: 12, url: 'https://github.com/acme/app/pull/12' };
  expect(
    preflightSentence({
      kind: 'started',
      ...base,
      draftPullRequest,
      started: ['test', 'lint'],
      waitedMs: 9_000,
    }),
  ).toBe(
    "Every required check (`test`, `lint`) started on the test branch `trunk-merge/preflight/run-1` (its draft PR #12, https://github.com/acme/app/pull/12) within 9 s: CI runs on the queue's test branches.",
  );
  expect(
    preflightSentence({
      kind: 'missing',
      ...base,
      draftPullRequest,
      started: [],
      missing: ['test'],
      cause: 'nothing_reported',
      otherChecks: [],
      waitedMs: 60_000,
    }),
  ).toMatch(
    /^Required check `test` did not start within 60 s on the test branch `trunk-merge\/preflight\/run-1` \(its draft PR #12, https:\/\/github\.com\/acme\/app\/pull\/12\): /,
  );
  expect(preflightSentence({ kind: 'problem', detail: 'Branch main does not exist.' })).toBe(
    'Branch main does not exist.',
  );
});
