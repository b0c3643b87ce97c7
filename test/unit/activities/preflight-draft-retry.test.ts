/**
 * The preflight's bound on a draft PR the host cannot open now (activities/preflight.ts, issue 28), on a
 * fake clock: attempts are tried again with a doubling pause (at most 15 s), none starts past the bound,
 * and the answer names the host's last status; a refusal or any other failure is not retried here.
 */
import { createPreflightActivities, type DraftRetry } from '../../../activities/preflight';
import {
  DraftPullRequestRefusedError,
  DraftPullRequestUnavailableError,
  type GitHost,
  type PreflightBranchInput,
} from '../../../git/git-host';

const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const key = { organisationId: 'org', repo, targetBranch: 'main' };
const TIP = 'a'.repeat(40);

/** A host whose draft PR fails as `fail(attempt)` says (undefined: pushed), each attempt taking `takesMs`. */
function world(fail: (attempt: number) => Error | undefined, takesMs = 0, budgetMs = 60_000) {
  let now = 0;
  const pauses: number[] = [];
  const startedAt: number[] = [];
  const gitHost = {
    testBranchPrefix: () => 'trunk-merge/',
    readBranchTip: () => Promise.resolve({ kind: 'found', sha: TIP }),
    hasChecks: () => Promise.resolve(true),
    pushPreflightBranch: (input: PreflightBranchInput) => {
      startedAt.push(now);
      now += takesMs;
      const err = fail(startedAt.length);
      if (err) return Promise.reject(err);
      return Promise.resolve({
        sha: 'b'.repeat(40),
        draftPullRequest: { number: 7, url: `u/${input.branchName}` },
      });
    },
  } as unknown as GitHost;
  const draftRetry: DraftRetry = {
    budgetMs,
    firstDelayMs: 1_000,
    now: () => now,
    sleep: (ms) => {
      pauses.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
  const activities = createPreflightActivities({
    gitHost,
    ownership: { owns: () => Promise.resolve(true) },
    draftRetry,
  });
  const start = () =>
    activities.startPreflight({
      key,
      requiredStatuses: ['test'],
      testBranchPrefix: null,
      id: 'run-1',
      draftPullRequest: true,
    });
  return { start, pauses, startedAt };
}

const unavailable = (status: number | null, says: string) =>
  new DraftPullRequestUnavailableError(status, says);

test('recovers: two 503s, then the draft PR; pauses 1 s and 2 s', async () => {
  const w = world((n) => (n <= 2 ? unavailable(503, 'Service Unavailable') : undefined));
  expect(await w.start()).toMatchObject({ kind: 'pushed', draftPullRequest: { number: 7 } });
  expect(w.pauses).toEqual([1_000, 2_000]);
});

test('never recovers: pauses double up to 15 s, no attempt starts past the bound, the last status named', async () => {
  const w = world((n) =>
    n < 8 ? unavailable(502, 'Bad Gateway') : unavailable(null, 'GitHub could not be reached (ECONNRESET).'),
  );
  const answer = await w.start();
  expect(w.pauses).toEqual([1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000]);
  expect(w.startedAt).toEqual([0, 1_000, 3_000, 7_000, 15_000, 30_000, 45_000, 60_000]);
  expect(Math.max(...w.startedAt)).toBeLessThanOrEqual(60_000);
  expect(answer).toEqual({
    kind: 'problem',
    detail:
      "The host did not open the preflight's draft pull request into main of github.com/acme/widgets: 8 attempts over 60 s failed, the last with no answer (GitHub could not be reached (ECONNRESET)). Its test branch was deleted again. The host is having trouble, not your settings: run the preflight again later.",
  });
});

test('slow attempts count against the bound too', async () => {
  const w = world(() => unavailable(null, 'GitHub could not be reached (ECONNRESET).'), 25_000);
  const answer = await w.start();
  // 25 s, pause 1 s, 25 s, pause 2 s (53 s: inside the bound), 25 s: a 4 s pause would pass it.
  expect(w.startedAt).toEqual([0, 26_000, 53_000]);
  expect(answer).toMatchObject({
    kind: 'problem',
    detail: expect.stringContaining(
      '3 attempts over 78 s failed, the last with no answer (GitHub could not be reached (ECONNRESET)).',
    ),
  });
});

test('a refusal is answered at once and any other failure is thrown at once: neither is tried again here', async () => {
  const refused = world(() => new DraftPullRequestRefusedError(422, 'Validation Failed'));
  expect(await refused.start()).toMatchObject({
    kind: 'problem',
    detail: expect.stringContaining('(422: Validation Failed)'),
  });
  expect(refused.startedAt).toHaveLength(1);
  const broken = world(() => new Error('git push failed'));
  await expect(broken.start()).rejects.toThrow('git push failed');
  expect(broken.startedAt).toHaveLength(1);
});
