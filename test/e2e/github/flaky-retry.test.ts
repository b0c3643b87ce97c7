/**
 * A CI-judged flaky retry on GitHub (fakehub, issue 28): no run tests a commit an earlier run tested.
 * The retry composes the same PRs on the same base, the same tree; its branch's head is a new commit
 * (git/fresh-head.ts), so the failed check of the first run, which GitHub keeps on the first commit, is
 * not read as the retry's, and CI's new check on the new commit decides. What lands is the tested tree.
 *
 * The fake CI holds its verdicts: the first run's failure is reported after CI's upload naming the
 * failed test (known flaky from main's uploads), and the retry's success only once the story has seen
 * the retry still testing with no check of its own.
 */
import { randomUUID } from 'node:crypto';
import { getTestRunQuery, queueWorkflowId, type PullRequestRecord } from '../../../contract';
import { parseJunitText } from '../../../flaky/junit';
import { createFlakyStore } from '../../../flaky/service';
import { useGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';
import { cartJunitReport } from '../../support/cart-junit';

const { hub, newQueue } = useGitHubQueueHarness({ ciUploadWaitMs: 15_000 });

/** A JUnit report of suite `cart` (test/support/cart-junit.ts). */
const report = (tests: Record<string, string>) =>
  cartJunitReport(tests, '<failure message="flaked">at src/cart.test.ts:3</failure>');

/** CI's upload of results for `sha` on `branch` to the queue's organisation, as the upload API takes it. */
async function upload(q: GitHubQueueHarness, sha: string, branch: string, tests: Record<string, string>) {
  const { rows } = await q.pool.query<{ slug: string }>('SELECT slug FROM organisations WHERE id = $1', [
    q.key.organisationId,
  ]);
  await createFlakyStore(q.pool).ingest({
    organisationId: q.key.organisationId,
    organisationSlug: rows[0]!.slug,
    repository: q.repo,
    metadata: { uploadId: randomUUID(), commitSha: sha, branch, attempt: 1, variant: '' },
    files: [await parseJunitText(report(tests), { fileName: 'build/test-results/cart.xml' })],
  });
}

const reasonsOf = (r: PullRequestRecord) => r.timeline.map((t) => t.reason);

test('a flaky retry tests a new commit with the same tree: the first run failed check is not its verdict, CI new check decides, the tested tree lands', async () => {
  const pushed: { branch: string; sha: string }[] = [];
  const h = await newQueue({
    ci: (sha, branch) => {
      if (!branch.startsWith('trunk-merge/')) return 'success';
      pushed.push({ branch, sha });
      return null; // held: the story reports
    },
  });
  await upload(h, h.mainTip(), 'main', { adds: 'P', totals: 'FP' }); // totals is flaky on main
  await createFlakyStore(h.pool).updateSettings(
    h.key.organisationId,
    h.repo,
    { quarantineEnabled: false, autoQuarantine: false },
    'e2e',
  );
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const one = await h.openPr({ 'one.txt': '1\n' }, 'cart change');
  await h.submit(one.number);

  // The first run: CI uploads a failure of the flaky test only, then fails the check.
  const [first] = await h.waitFor('the first test branch', () =>
    Promise.resolve(pushed.length > 0 && pushed),
  );
  await upload(h, first!.sha, first!.branch, { adds: 'P', totals: 'F' });
  hub().setCheckRun(h.repo.owner, h.repo.name, first!.sha, { name: 'test', conclusion: 'failure' });

  // The retry: the same PR on the same base, a branch of its own on a commit of its own, the same tree.
  const retry = await h.waitFor('the retry test branch', () => Promise.resolve(pushed[1]));
  expect(retry.branch).not.toBe(first!.branch);
  expect(retry.sha).not.toBe(first!.sha);
  const treeOf = (sha: string) => h.bareGit('rev-parse', `${sha}^{tree}`);
  expect(treeOf(retry.sha)).toBe(treeOf(first!.sha));
  expect(h.bareGit('rev-parse', `${retry.sha}^@`)).toBe(h.bareGit('rev-parse', `${first!.sha}^@`));

  // The retry is built and tested, its PR still testing: the old failure on the first commit is not its.
  const queue = h.client.workflow.getHandle(queueWorkflowId(h.key));
  const testing = await h.waitFor('the retry in progress', async () => {
    const r = await h.pr(one.number);
    const runId = r?.timeline.at(-1)?.testRunId;
    if (!r || !runId || !reasonsOf(r).includes('FLAKY_TESTS_RETRIED')) return undefined;
    const run = await queue.query(getTestRunQuery, runId);
    return run?.status === 'in_progress' && run.testBranchSha === retry.sha ? r : undefined;
  });
  expect(testing.state).toBe('testing');
  // A read of the host's checks on the retry's commit (a hint, as a webhook brings) finds none yet.
  await h.hint({ kind: 'checks', sha: retry.sha });
  await h.hint({ kind: 'checks', sha: first!.sha });
  await new Promise((r) => setTimeout(r, 2_000));
  expect((await h.pr(one.number))?.state).toBe('testing');

  // CI's new check on the retry's commit decides.
  hub().setCheckRun(h.repo.owner, h.repo.name, retry.sha, { name: 'test', conclusion: 'success' });
  const merged = await h.settled(one.number);
  expect(merged.state).toBe('merged');
  expect(reasonsOf(merged)).toEqual(
    expect.arrayContaining(['FLAKY_TESTS_RETRIED', 'FLAKY_TESTS_PASSED_ON_RETRY']),
  );
  // What landed is the tree the retry tested.
  expect(h.mainLog()).toEqual(['cart change (#1)']);
  expect(h.bareGit('rev-parse', 'main^{tree}')).toBe(treeOf(retry.sha));
  expect(merged.timeline.at(-1)?.detail).toMatchObject({
    kind: 'landing',
    testedTree: treeOf(retry.sha),
    landedTree: treeOf(retry.sha),
  });
}, 150_000);
