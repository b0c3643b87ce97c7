/**
 * Stories of PRs and branches changing on GitHub (fakehub) while the queue holds them: a conflict, a
 * push to a queued PR, a PR closed, a PR retargeted, a push to main outside the queue. Each change
 * reaches the queue only as a webhook hint (the harness runs no reconciliation and the testing timeout
 * is hours), so every reaction here is the queue re-reading GitHub on a delivered webhook.
 */
import { getTestRunQuery, queueWorkflowId, type TestRunDetails } from '../../../contract';
import type { PullRequestRecord } from '../../../contract';
import {
  useGitHubQueueHarness,
  type CiVerdict,
  type GitHubQueueHarness,
} from '../../support/github-queue-harness';

const { hub, newQueue } = useGitHubQueueHarness();
let h: GitHubQueueHarness | undefined;

/** The harness's default CI: a tree with a file BROKEN fails. */
const verdict = (files: string[]): CiVerdict => (files.includes('BROKEN') ? 'failure' : 'success');

/**
 * A CI that holds back its verdict on test branches starting with `prefix` while `holding.on`
 * (their shas are kept in `held`, oldest first); every other commit gets the default verdict.
 */
function holdingCi(prefix: string) {
  const holding = { on: true, held: [] as string[] };
  const ci = (sha: string, branch: string, files: string[]): CiVerdict => {
    if (!holding.on || !branch.startsWith(prefix)) return verdict(files);
    holding.held.push(sha);
    return null;
  };
  return { holding, ci };
}

/** The runs a PR was tested in, oldest first (from its timeline's `testing` entries). */
function runIdsOf(record: PullRequestRecord): string[] {
  const ids = record.timeline.filter((t) => t.to === 'testing').map((t) => t.testRunId);
  return [...new Set(ids.filter((id): id is string => id !== null))];
}

async function testRun(q: GitHubQueueHarness, runId: string): Promise<TestRunDetails> {
  const details = await q.client.workflow.getHandle(queueWorkflowId(q.key)).query(getTestRunQuery, runId);
  if (!details) throw new Error(`the queue does not know test run ${runId}`);
  return details;
}

async function mainFile(q: GitHubQueueHarness, file: string): Promise<string> {
  await q.clone.git('fetch', '-q', 'origin');
  return q.clone.git('show', `origin/main:${file}`);
}

function pass(q: GitHubQueueHarness, sha: string): void {
  hub().setCheckRun(q.repo.owner, q.repo.name, sha, {
    name: 'test',
    status: 'completed',
    conclusion: 'success',
  });
}

async function inState(q: GitHubQueueHarness, n: number, state: string): Promise<PullRequestRecord> {
  return q.waitFor(`PR #${n} ${state}`, async () => {
    const r = await q.pr(n);
    return r?.state === state ? r : undefined;
  });
}

/** Whether GitHub delivered (2xx) a `pull_request` webhook with `action` for PR `n` to the API. */
function delivered(q: GitHubQueueHarness, action: string, n: number): boolean {
  return hub().webhooks.deliveries.some(
    (d) =>
      d.event === 'pull_request' &&
      d.action === action &&
      d.outcome === 'delivered' &&
      (d.payload as { number?: number }).number === n &&
      (d.payload as { repository?: { name?: string } }).repository?.name === q.repo.name,
  );
}

async function testBranchesDeleted(q: GitHubQueueHarness): Promise<void> {
  await q.waitFor('test branches to be deleted', () =>
    Promise.resolve(q.branches('trunk-merge/').length === 0),
  );
}

test('two PRs changing the same line: the second fails with START_TEST_RUN_MERGE_CONFLICT once the first merges', async () => {
  // PR 1's verdict waits until PR 2 has tried to build its run on top of it.
  const { holding, ci } = holdingCi('trunk-merge/pr-1/');
  h = await newQueue({ ci });
  await h.createQueue({ concurrency: 2, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const one = await h.openPr({ 'lines.txt': 'a\nB1\nc\n' }, 'first edit');
  const two = await h.openPr({ 'lines.txt': 'a\nB2\nc\n' }, 'second edit');
  await h.submit(one.number);
  await h.submit(two.number);

  // The conflict names PR 2, but a failed run waits for the PRs under it to leave (pending-failure.ts).
  const conflicted = await inState(h, two.number, 'pending_failure');
  expect(conflicted.reason).toBe('START_TEST_RUN_MERGE_CONFLICT');
  expect((await h.pr(one.number))?.state).toBe('testing');
  const [pr1Run] = await h.waitFor('PR 1 test branch', () =>
    Promise.resolve(holding.held.length > 0 && holding.held),
  );
  pass(h, pr1Run!);
  expect((await h.settled(one.number)).state).toBe('merged');
  expect(await h.settled(two.number)).toMatchObject({
    state: 'failed',
    reason: 'START_TEST_RUN_MERGE_CONFLICT',
  });
  expect(h.mainLog()).toEqual(['first edit (#1)']);
  expect(await mainFile(h, 'lines.txt')).toBe('a\nB1\nc');
  expect(hub().pullRequest(h.repo.owner, h.repo.name, two.number).state).toBe('open');
  await testBranchesDeleted(h);
}, 120_000);

test('a push to a PR while it tests cancels it with PR_PUSHED_TO on the webhook, and its test branch is deleted', async () => {
  const { holding, ci } = holdingCi('trunk-merge/');
  h = await newQueue({ ci });
  await h.createQueue({ concurrency: 1 }, { requiredStatuses: ['test'] });
  const one = await h.openPr({ 'one.txt': '1\n' });
  await h.submit(one.number);
  await inState(h, one.number, 'testing');
  await h.waitFor('the run on CI', () => Promise.resolve(holding.held.length > 0));
  const [testBranch] = h.branches('trunk-merge/');
  expect(testBranch).toMatch(new RegExp(`^trunk-merge/pr-${one.number}/`));

  await h.pushToPr(one.number, { 'one.txt': '1 again\n' });
  // Nothing else could end the run: CI holds its verdict and the testing timeout is hours away.
  const cancelled = await h.settled(one.number, 30_000);
  expect(cancelled).toMatchObject({ state: 'cancelled', reason: 'PR_PUSHED_TO' });
  expect(delivered(h, 'synchronize', one.number)).toBe(true);
  expect((await testRun(h, runIdsOf(cancelled)[0]!)).status).toBe('cancelled');
  await testBranchesDeleted(h);
  expect(h.mainLog()).toEqual([]);
  expect(hub().pullRequest(h.repo.owner, h.repo.name, one.number).state).toBe('open');
}, 120_000);

test('a PR closed on GitHub while it tests is cancelled with PR_CLOSED; the PR tested on top of it is retested without it', async () => {
  const { holding, ci } = holdingCi('trunk-merge/pr-1/');
  h = await newQueue({ ci });
  await h.createQueue({ concurrency: 2, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const one = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  const two = await h.openPr({ 'two.txt': '2\n' }, 'second change');
  await h.submit(one.number);
  await h.submit(two.number);
  // PR 2 passed on top of PR 1 and waits for it to merge.
  await inState(h, two.number, 'tests_passed');
  expect((await h.pr(one.number))?.state).toBe('testing');

  hub().closePullRequest(h.repo.owner, h.repo.name, one.number);
  expect(await h.settled(one.number, 30_000)).toMatchObject({ state: 'cancelled', reason: 'PR_CLOSED' });
  expect(delivered(h, 'closed', one.number)).toBe(true);
  const merged = await h.settled(two.number);
  expect(merged.state).toBe('merged');
  expect(merged.timeline.map((t) => t.reason)).toContain('PREREQUISITE_MERGE_ITEM_CANCELLED');
  expect(h.mainLog()).toEqual(['second change (#2)']);
  expect(holding.held).toHaveLength(1); // PR 1's one run never got a verdict
  await testBranchesDeleted(h);
}, 120_000);

test('a PR retargeted while it tests goes back to not_ready (BASE_BRANCH_MISMATCH); retargeted back, it merges', async () => {
  const { holding, ci } = holdingCi('trunk-merge/');
  h = await newQueue({ ci });
  await h.clone.push(h.mainTip(), 'release');
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const one = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  await h.submit(one.number);
  await inState(h, one.number, 'testing');
  await h.waitFor('the run on CI', () => Promise.resolve(holding.held.length > 0));

  await hub().retargetPullRequest(h.repo.owner, h.repo.name, one.number, 'release');
  const notReady = await inState(h, one.number, 'not_ready');
  expect(notReady.reason).toBe('BASE_BRANCH_MISMATCH');
  expect(notReady.isCurrentlySubmittedToQueue).toBe(true);
  expect(delivered(h, 'edited', one.number)).toBe(true);
  // Out of the line and untested: its run is cancelled and its branch deleted.
  const queue = await h.queue();
  expect(queue.enqueued).toEqual([]);
  expect(queue.inQueue).toBe(1);
  expect((await testRun(h, runIdsOf(notReady)[0]!)).status).toBe('cancelled');
  await testBranchesDeleted(h);

  holding.on = false;
  await hub().retargetPullRequest(h.repo.owner, h.repo.name, one.number, 'main');
  const merged = await h.settled(one.number);
  expect(merged.state).toBe('merged');
  expect(runIdsOf(merged)).toHaveLength(2);
  expect(h.mainLog()).toEqual(['first change (#1)']);
  await testBranchesDeleted(h);
}, 120_000);

test('a push to main outside the queue restarts the run on the new tip, and the PR merges on top of it', async () => {
  const { holding, ci } = holdingCi('trunk-merge/');
  h = await newQueue({ ci });
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const one = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  await h.submit(one.number);
  await inState(h, one.number, 'testing');
  await h.waitFor('the run on CI', () => Promise.resolve(holding.held.length > 0));

  holding.on = false; // the first run never gets a verdict; the next one passes
  await h.clone.git('fetch', '-q', 'origin');
  await h.clone.branch('main', 'origin/main');
  const outside = await h.clone.commit({ 'outside.txt': 'x\n' }, 'outside change');
  await h.clone.push(outside, 'main');

  const merged = await h.settled(one.number);
  expect(merged.state).toBe('merged');
  expect(merged.timeline.map((t) => t.reason)).toContain('MANUAL_PUSH_TO_TARGET_BRANCH');
  const runs = runIdsOf(merged);
  expect(runs).toHaveLength(2);
  expect((await testRun(h, runs[0]!)).status).toBe('cancelled');
  // The second run tested exactly what landed: the PR on top of the outside commit.
  const second = await testRun(h, runs[1]!);
  expect(second.status).toBe('succeeded');
  expect(h.mainTip()).toBe(second.testBranchSha);
  await h.clone.git('fetch', '-q', 'origin');
  expect(await h.clone.git('rev-parse', 'origin/main^')).toBe(outside);
  expect(h.mainLog()).toEqual(['outside change', 'first change (#1)']);
  await testBranchesDeleted(h);
}, 120_000);
