/**
 * Draft-PR testing mode's rules: which PRs are railyard's test PRs (nothing else is ever closed), the
 * run id a test branch names, the text of a test PR, and idempotent opening and closing over a REST
 * client that records what was asked.
 */
import {
  closeTestPullRequests,
  isTestPullRequest,
  listTestPullRequests,
  openTestPullRequest,
  runIdOfTestBranch,
  TEST_PR_MARKER,
  testPullRequestText,
} from '../../../github/host/test-pull-requests';
import { GitHubApiError, type GitHubRest } from '../../../github/app/rest-client';

const REPO = { owner: 'acme', repo: 'widgets' };
const RUN = { runId: 'run-1', prs: [12, 13] };
const BRANCH = 'trunk-merge/pr-12/run-1';

function wire(overrides: Record<string, unknown> = {}) {
  return {
    number: 40,
    state: 'open',
    body: testPullRequestText(RUN, 'main').body,
    user: { login: 'railyard[bot]', type: 'Bot' },
    head: { ref: BRANCH, repo: { full_name: 'acme/widgets' } },
    base: { ref: 'main', repo: { full_name: 'acme/widgets' } },
    ...overrides,
  };
}

/** A REST client answering from `answer`, recording each call. */
function client(answer: (route: string, params: Record<string, unknown>) => unknown) {
  const calls: { route: string; params: Record<string, unknown> }[] = [];
  const rest: GitHubRest = {
    installationId: 1,
    request: <T>(route: string, params: Record<string, unknown> = {}) => {
      calls.push({ route, params });
      try {
        return Promise.resolve({ status: 200, data: answer(route, params) as T, headers: {} });
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
  return { rest, calls };
}

describe('which PRs are railyard test PRs', () => {
  test('a bot PR from a test branch of the repository, with the marker', () => {
    expect(isTestPullRequest(wire(), 'trunk-merge/')).toBe(true);
  });

  test.each([
    ['a person opened it', { user: { login: 'mallory', type: 'User' } }],
    ['no author', { user: null }],
    ['no marker', { body: 'railyard test run of #12' }],
    ['no body', { body: null }],
    ['from a fork', { head: { ref: BRANCH, repo: { full_name: 'mallory/widgets' } } }],
    ['from a deleted fork', { head: { ref: BRANCH, repo: null } }],
    ['a branch outside the prefix', { head: { ref: 'feature/x', repo: { full_name: 'acme/widgets' } } }],
  ])('not when %s', (_what, overrides) => {
    expect(isTestPullRequest(wire(overrides), 'trunk-merge/')).toBe(false);
  });

  test('the queue’s own prefix decides', () => {
    expect(isTestPullRequest(wire(), 'ci/')).toBe(false);
    const own = wire({ head: { ref: 'ci/pr-12/run-1', repo: { full_name: 'acme/widgets' } } });
    expect(isTestPullRequest(own, 'ci/')).toBe(true);
  });
});

test('the run id of a test branch, and null for other names under the prefix', () => {
  expect(runIdOfTestBranch(BRANCH, 'trunk-merge/')).toBe('run-1');
  expect(runIdOfTestBranch('trunk-merge/pr-12/land-m1', 'trunk-merge/')).toBe('land-m1');
  expect(runIdOfTestBranch('trunk-merge/other', 'trunk-merge/')).toBeNull();
  expect(runIdOfTestBranch('trunk-merge/pr-12/a/b', 'trunk-merge/')).toBeNull();
  expect(runIdOfTestBranch('railyard-merge/pr-12/run-1', 'trunk-merge/')).toBeNull();
});

test('the text names the run and its PRs, says it will be closed, and carries the marker', () => {
  const { title, body } = testPullRequestText(RUN, 'main');
  expect(title).toBe('railyard test run of #12, #13 (run-1)');
  expect(body).toContain('`main`');
  expect(body).toContain('#12, #13');
  expect(body).toMatch(/closes it and deletes its branch when the run ends/);
  expect(body.endsWith(TEST_PR_MARKER)).toBe(true);
});

describe('opening', () => {
  test('opens a draft PR from the branch into the target when none is open', async () => {
    const { rest, calls } = client((route) => (route.startsWith('GET') ? [] : wire({ number: 41 })));
    expect(await openTestPullRequest(rest, REPO, { branch: BRANCH, targetBranch: 'main', run: RUN })).toBe(
      41,
    );
    expect(calls.map((c) => c.route)).toEqual([
      'GET /repos/{owner}/{repo}/pulls',
      'POST /repos/{owner}/{repo}/pulls',
    ]);
    expect(calls[0]!.params).toMatchObject({ state: 'open', head: `acme:${BRANCH}`, base: 'main' });
    expect(calls[1]!.params).toMatchObject({
      head: BRANCH,
      base: 'main',
      draft: true,
      title: 'railyard test run of #12, #13 (run-1)',
    });
  });

  test('reuses the open one (an activity run twice opens one PR)', async () => {
    const { rest, calls } = client(() => [wire({ number: 40 })]);
    expect(await openTestPullRequest(rest, REPO, { branch: BRANCH, targetBranch: 'main', run: RUN })).toBe(
      40,
    );
    expect(calls.filter((c) => c.route.startsWith('POST'))).toEqual([]);
  });

  test('a 422 because another attempt opened it meanwhile answers that one', async () => {
    let reads = 0;
    const { rest } = client((route) => {
      if (route.startsWith('GET')) return reads++ === 0 ? [] : [wire({ number: 42 })];
      throw new GitHubApiError('422', 422, 'Validation Failed');
    });
    expect(await openTestPullRequest(rest, REPO, { branch: BRANCH, targetBranch: 'main', run: RUN })).toBe(
      42,
    );
  });

  test('nothing to compare: no PR; any other refusal throws (the activity retries)', async () => {
    const refusing = (reason: string) =>
      client((route) => {
        if (route.startsWith('GET')) return [];
        throw new GitHubApiError('422', 422, reason);
      }).rest;
    const input = { branch: BRANCH, targetBranch: 'main', run: RUN };
    expect(await openTestPullRequest(refusing('No commits between main and x'), REPO, input)).toBeNull();
    await expect(openTestPullRequest(refusing('Validation Failed'), REPO, input)).rejects.toThrow('422');
  });
});

test('closing closes each open PR from the branch, and nothing when none is open', async () => {
  const { rest, calls } = client((route) => (route.startsWith('GET') ? [wire({ number: 40 })] : wire()));
  expect(await closeTestPullRequests(rest, REPO, BRANCH)).toEqual([40]);
  expect(calls[1]).toEqual({
    route: 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
    params: { ...REPO, pull_number: 40, state: 'closed' },
  });
  const none = client(() => []);
  expect(await closeTestPullRequests(none.rest, REPO, BRANCH)).toEqual([]);
  expect(none.calls).toHaveLength(1);
});

test('listing keeps only test PRs and reads further pages only while they are full', async () => {
  const page1 = Array.from({ length: 100 }, (_, i) =>
    i === 5 ? wire({ number: 5 }) : wire({ number: i, user: { login: 'dev', type: 'User' } }),
  );
  const page2 = [
    wire({ number: 200, head: { ref: 'trunk-merge/pr-3/run-9', repo: { full_name: 'acme/widgets' } } }),
    // Under the prefix, but no run's branch: left alone.
    wire({ number: 201, head: { ref: 'trunk-merge/manual', repo: { full_name: 'acme/widgets' } } }),
  ];
  const { rest, calls } = client((_route, params) => (params.page === 1 ? page1 : page2));
  expect(await listTestPullRequests(rest, REPO, 'main', 'trunk-merge/')).toEqual([
    { number: 5, branchName: BRANCH, runId: 'run-1' },
    { number: 200, branchName: 'trunk-merge/pr-3/run-9', runId: 'run-9' },
  ]);
  expect(calls.map((c) => c.params.page)).toEqual([1, 2]);
  expect(calls[0]!.params).toMatchObject({ state: 'open', base: 'main' });
});
