/**
 * Draft-PR testing mode on GitHub (fakehub), the real stack: with a queue's
 * `createPrsForTestingBranches` on, each test branch gets a draft PR into the target, and the CI here
 * runs only on pull requests (as a `pull_request`-triggered workflow does), so a run passes or fails only
 * through its draft PR. Stories:
 *
 * - a PR merges; its run's draft PR was opened from the `trunk-merge/` branch (draft, by the App, named
 *   after the run) and is closed after, its branch deleted; the draft PR never entered the queue and
 *   railyard never commented on it (comments are on for the queue);
 * - a failing run closes its draft PR (railyard's PATCH, not merged) and deletes its branch;
 * - a worker stopped mid-run whose queue is then terminated (an operator giving up on it) and started
 *   again leaves a draft PR of a run nobody holds: the reconciliation closes it and deletes its branch,
 *   while the draft PR of the new queue's run in progress is kept and that PR merges;
 * - the preflight (issue 28) opens a draft PR for its throw-away branch too, so CI that runs only on
 *   pull requests is seen starting, names it in its answer, and closes it and deletes the branch when it
 *   answers; a draft PR GitHub refuses (a repository without drafts) is the preflight's answer at once.
 */
import { createGitHubAppAuth } from '../../../github/app/app-auth';
import { createGitHubReconciliationActivities } from '../../../activities/github-reconciliation';
import { queueWorkflowId, type RunnerSettings } from '../../../contract';
import type { QueueConfigPatch } from '../../../engine';
import { draftsOf as draftsOfPr, pullsOf, startDraftPrCi } from '../../support/draft-pr-ci';
import { useGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';

const { hub, newQueue } = useGitHubQueueHarness();
let h: GitHubQueueHarness | undefined;
let stopPrCi: (() => Promise<void>) | undefined;

afterEach(async () => {
  await stopPrCi?.();
  stopPrCi = undefined;
  await h?.close();
  h = undefined;
});

const CONFIG: QueueConfigPatch = { concurrency: 1, mergeMethod: 'merge_commit' };
const DRAFT_MODE: Partial<RunnerSettings> = { requiredStatuses: ['test'], createPrsForTestingBranches: true };

/** Push-triggered CI stays silent on test branches; PR branches pass. */
const noPushCiOnTestBranches = (_sha: string, branch: string) =>
  branch.startsWith('trunk-merge/') ? null : ('success' as const);

const draftsOf = (g: GitHubQueueHarness, n: number) => draftsOfPr(hub(), g, n);

/** Reports on test branches' draft PRs only (see draft-pr-ci.ts); stopped after each test. */
function pullRequestCi(g: GitHubQueueHarness) {
  const ci = startDraftPrCi(hub(), g);
  stopPrCi = ci.stop;
  return ci;
}

const patchesOf = (g: GitHubQueueHarness, n: number) =>
  hub().requests.filter(
    (r) => r.operationId === 'pulls/update' && r.path === `/repos/${g.repo.owner}/${g.repo.name}/pulls/${n}`,
  );

test('a PR merges through its draft PR: opened from the trunk-merge branch, closed after, the branch deleted, never commented on', async () => {
  h = await newQueue({ ci: noPushCiOnTestBranches });
  pullRequestCi(h);
  await h.createQueue(CONFIG, { ...DRAFT_MODE, commentsEnabled: true });
  const pr = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  await h.submit(pr.number);

  const done = await h.settled(pr.number);
  expect(done.state).toBe('merged');
  const runId = done.timeline.find((t) => t.to === 'tests_passed')!.testRunId!;
  const [draft, ...more] = draftsOf(h, pr.number);
  expect(more).toEqual([]);
  expect(draft).toMatchObject({
    headBranch: `trunk-merge/pr-${pr.number}/${runId}`,
    base: 'main',
    draft: true,
    author: `${hub().app.slug}[bot]`,
    title: `railyard test run of #${pr.number} (${runId})`,
  });
  expect(draft!.body).toMatch(/closes it and deletes its branch when the run ends/);
  // main holds exactly what its draft PR's CI tested.
  expect(h.mainLog()).toHaveLength(1);
  expect(h.mainTip()).toBe(draft!.headSha);

  await h.waitFor('the test branch deleted and its draft PR closed', () =>
    Promise.resolve(h!.branches('trunk-merge/').length === 0 && draft!.state === 'closed'),
  );
  // Pushing the tested commit to main put the draft PR's head on main, so GitHub itself marked it
  // merged; railyard had nothing left to close.
  expect(hub().pullRequest(h.repo.owner, h.repo.name, draft!.number)).toMatchObject({ state: 'closed' });
  // The PR had its live comment; the draft PR was never queued, read as a queued PR or commented on.
  await h.waitFor('the live comment on the PR saying it merged', () =>
    Promise.resolve(
      hub()
        .comments(h!.repo.owner, h!.repo.name, pr.number)
        .some((c) => c.body.includes('Merged')),
    ),
  );
  expect(hub().comments(h.repo.owner, h.repo.name, draft!.number)).toEqual([]);
  expect(await h.pr(draft!.number)).toBeNull();
  expect((await h.queue()).inQueue).toBe(0);
  await hub().webhooks.idle();
  expect(
    hub().webhooks.deliveries.some(
      (d) =>
        d.event === 'pull_request' &&
        d.action === 'opened' &&
        (d.payload.pull_request as { number: number }).number === draft!.number,
    ),
  ).toBe(true);
}, 60_000);

test('a failing run closes its draft PR and deletes its branch; the draft PR itself cannot be submitted', async () => {
  h = await newQueue({ ci: noPushCiOnTestBranches });
  const ci = pullRequestCi(h);
  ci.pause();
  await h.createQueue(CONFIG, DRAFT_MODE);
  const pr = await h.openPr({ BROKEN: 'x\n' }, 'broken change');
  await h.submit(pr.number);
  const open = await h.waitFor('the draft PR', () =>
    Promise.resolve(draftsOf(h!, pr.number).find((p) => p.state === 'open')),
  );
  // railyard's own test PR is never queued (the API and /trunk merge submit the same way).
  await expect(h.submit(open.number)).rejects.toThrow(
    `Pull request #${open.number} is one of railyard's test PRs (from ${open.headBranch}); submit the PRs it tests instead.`,
  );
  ci.resume();

  const done = await h.settled(pr.number);
  expect(done.state).toBe('failed');
  expect(h.mainLog()).toEqual([]);
  await h.waitFor('the test branch deleted', () => Promise.resolve(h!.branches('trunk-merge/').length === 0));
  const [draft, ...more] = draftsOf(h, pr.number);
  expect(more).toEqual([]);
  expect(draft).toMatchObject({ draft: true, state: 'closed', merged: false });
  // railyard closed it (as the App), before deleting the branch.
  expect(patchesOf(h, draft!.number).map((r) => r.status)).toEqual([200]);
  expect(hub().pullRequest(h.repo.owner, h.repo.name, pr.number).state).toBe('open');
}, 60_000);

test('a draft PR left by a stopped worker’s terminated queue is closed by the reconciliation; a live run’s is kept', async () => {
  h = await newQueue({ ci: noPushCiOnTestBranches });
  const ci = pullRequestCi(h);
  ci.pause();
  await h.createQueue(CONFIG, DRAFT_MODE);
  const one = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  await h.submit(one.number);
  const left = await h.waitFor('PR #1’s draft PR', () =>
    Promise.resolve(draftsOf(h!, one.number).find((p) => p.state === 'open')),
  );
  expect((await h.pr(one.number))?.state).toBe('testing');

  // The worker stops mid-run; its queue is given up on and started again: nobody holds that run now.
  await h.stopWorker(0);
  const queue = h.client.workflow.getHandle(queueWorkflowId(h.key));
  await queue.terminate('the worker is gone; the queue is started again');
  await h.startWorker();
  await h.createQueue(CONFIG, DRAFT_MODE);
  const two = await h.openPr({ 'two.txt': '2\n' }, 'second change');
  await h.submit(two.number);
  const live = await h.waitFor('PR #2’s draft PR', () =>
    Promise.resolve(draftsOf(h!, two.number).find((p) => p.state === 'open')),
  );
  expect(left.state).toBe('open');
  expect(h.branches('trunk-merge/')).toContain(left.headBranch);

  const app = hub().app;
  const reconciliation = createGitHubReconciliationActivities({
    pool: h.pool,
    client: h.client,
    namespace: 'default',
    settings: { appId: app.id, apiUrl: hub().url, host: 'github.com' },
    auth: await createGitHubAppAuth({ appId: app.id, privateKey: app.privateKey, apiUrl: hub().url }),
    onError: (err, message) => h!.logs.push(`reconciliation: ${message}: ${String(err)}`),
  });
  // Visibility may list the restarted queue a moment late: reconcile until it has acted.
  await h.waitFor(
    'the leftover draft PR closed and its branch deleted',
    async () => {
      if (left.state === 'open') await reconciliation.reconcileGitHubQueues();
      await new Promise((r) => setTimeout(r, 1_000));
      return left.state === 'closed' && !h!.branches('trunk-merge/').includes(left.headBranch);
    },
    30_000,
  );
  expect(left.merged).toBe(false);
  expect(patchesOf(h, left.number).map((r) => r.status)).toEqual([200]);
  expect(h.logs.some((l) => l.includes('closing a test PR left over by a run no longer in progress'))).toBe(
    true,
  );

  // The new queue's run kept its draft PR; its CI now reports and PR #2 merges.
  expect(live.state).toBe('open');
  expect(patchesOf(h, live.number)).toEqual([]);
  ci.resume();
  expect((await h.settled(two.number)).state).toBe('merged');
  expect(h.mainLog()).toHaveLength(1);
  expect(h.mainTip()).toBe(live.headSha);
  await h.waitFor('test branches deleted', () => Promise.resolve(h!.branches('trunk-merge/').length === 0));
  expect(hub().pullRequest(h.repo.owner, h.repo.name, one.number).state).toBe('open');
}, 60_000);

test('the preflight opens a draft PR for its branch, sees the PR-only CI start, then closes it and deletes the branch', async () => {
  h = await newQueue({ ci: noPushCiOnTestBranches });
  pullRequestCi(h);
  await h.createQueue(CONFIG, DRAFT_MODE);
  const queue = { repo: h.repo, targetBranch: 'main' };
  const started = await h.api('queues/preflight', { ...queue, waitSeconds: 60 });
  expect(started.status).toBe(202);
  const answer = await h.waitFor('the preflight answer', async () => {
    const r = await h!.api('queues/preflight/result', queue);
    const view = r.body as { state: string; result: Record<string, unknown> | null };
    return (view.state === 'done' && view.result) || undefined;
  });
  // Push-triggered CI never runs on test branches here: only the draft PR's CI can have started it.
  expect(answer).toMatchObject({ kind: 'started', required: ['test'], started: ['test'] });
  const drafts = pullsOf(hub(), h).filter((p) => p.headBranch.startsWith('trunk-merge/preflight/'));
  expect(drafts).toHaveLength(1);
  expect(drafts[0]).toMatchObject({
    headBranch: answer.branch,
    base: 'main',
    draft: true,
    author: `${hub().app.slug}[bot]`,
    title: expect.stringMatching(/^railyard preflight \(preflight\//),
  });
  // The answer names its draft PR, in its field and in its sentence.
  const link = {
    number: drafts[0]!.number,
    url: expect.stringMatching(new RegExp(`/pull/${drafts[0]!.number}$`)),
  };
  expect(answer.draftPullRequest).toEqual(link);
  expect(answer.sentence).toContain(
    `(its draft PR #${drafts[0]!.number}, ${(answer.draftPullRequest as { url: string }).url})`,
  );
  await h.waitFor('the draft PR closed and the branch deleted', () =>
    Promise.resolve(drafts[0]!.state === 'closed' && h!.branches('trunk-merge/').length === 0),
  );
  expect(h.mainLog()).toEqual([]);
}, 60_000);

test('a draft PR GitHub refuses for the preflight is its answer at once: what GitHub said and what to change, no branch left', async () => {
  h = await newQueue({ ci: noPushCiOnTestBranches });
  // GitHub's plans without draft PRs for private repositories refuse every draft with a 422.
  hub().state.repository(h.repo.owner, h.repo.name)!.draftPullRequests = false;
  await h.createQueue(CONFIG, DRAFT_MODE);
  const queue = { repo: h.repo, targetBranch: 'main' };
  expect((await h.api('queues/preflight', { ...queue, waitSeconds: 600 })).status).toBe(202);
  const answer = await h.waitFor('the preflight answer', async () => {
    const r = await h!.api('queues/preflight/result', queue);
    const view = r.body as { state: string; result: Record<string, unknown> | null };
    return (view.state === 'done' && view.result) || undefined;
  });
  expect(answer).toEqual({
    kind: 'problem',
    sentence: expect.stringMatching(
      /^The host refused the preflight's draft pull request into main of github\.com\/[^ ]+ \(422: Validation Failed \(Draft pull requests are not supported in this repository\.\)\), so the queue's test runs in draft-PR testing mode \(createPrsForTestingBranches\) would be refused too: .* Its test branch was deleted again\.$/,
    ),
  });
  // Refused once, answered: not retried as a failure (the wait of 600 s was never started).
  const creates = hub().requests.filter(
    (r) => r.operationId === 'pulls/create' && r.path === `/repos/${h!.repo.owner}/${h!.repo.name}/pulls`,
  );
  expect(creates.map((r) => r.status)).toEqual([422]);
  expect(pullsOf(hub(), h)).toEqual([]);
  expect(h.branches('trunk-merge/')).toEqual([]);
  expect(h.mainLog()).toEqual([]);
}, 60_000);
