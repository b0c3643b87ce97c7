/**
 * Landing on GitHub (fakehub), the real stack: how a tested commit reaches the target.
 *
 * - Landing mode `api`: each PR is merged by GitHub itself (`PUT /pulls/{n}/merge`, merge commit or
 *   squash), GitHub marks it merged, and after each merge main holds exactly the tree the queue tested.
 * - Landing mode `push` on a branch whose protection restricts updates: GitHub refuses the push, the PR
 *   fails with GITHUB_API_MERGE_PR_FAILED, nothing lands, and the queue's log says what to configure;
 *   with the App on the bypass list the same PR then merges.
 */
import type { MergeMethod } from '../../../git/git-host';
import { getTestRunQuery, queueWorkflowId } from '../../../contract';
import { useGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';

const { hub, newQueue } = useGitHubQueueHarness();
let h: GitHubQueueHarness | undefined;

/**
 * The commit that passed PR `n`'s tests: the head of the trunk-merge/ branch of the run in its
 * `tests_passed` step (stacked on the PRs ahead of it), which is what main must hold after its merge.
 */
async function testedCommit(g: GitHubQueueHarness, n: number): Promise<string> {
  const passed = (await g.pr(n))!.timeline.filter((t) => t.to === 'tests_passed');
  expect(passed).toHaveLength(1);
  const run = await g.client.workflow
    .getHandle(queueWorkflowId(g.key))
    .query(getTestRunQuery, passed[0]!.testRunId!);
  expect(run?.testBranchSha).toMatch(/^[0-9a-f]{40}$/);
  return run!.testBranchSha!;
}

const treeOf = (g: GitHubQueueHarness, sha: string) => g.bareGit('rev-parse', `${sha}^{tree}`);

describe.each<[MergeMethod, (n: number, title: string) => string]>([
  ['merge_commit', (n, _title) => `Merge pull request #${n} from acme/feature-${n}`],
  ['squash', (n, title) => `${title} (#${n})`],
])('landing mode api, %s', (method, subject) => {
  test('GitHub merges each PR through the API, marks it merged, and main holds the tested trees', async () => {
    h = await newQueue();
    await h.createQueue(
      { concurrency: 1, mergeMethod: method },
      { requiredStatuses: ['test'], landingMode: 'api' },
    );
    const one = await h.openPr({ 'one.txt': '1\n' }, 'first change');
    const two = await h.openPr({ 'two.txt': '2\n', 'README.md': 'widgets, two\n' }, 'second change');
    await h.submit(one.number);
    await h.submit(two.number);
    expect((await h.settled(one.number)).state).toBe('merged');
    expect((await h.settled(two.number)).state).toBe('merged');

    // GitHub wrote main's commits (its own titles), one API merge per PR, each answered 200.
    expect(h.mainLog()).toEqual([subject(one.number, 'first change'), subject(two.number, 'second change')]);
    const merges = hub().requests.filter(
      (r) => r.operationId === 'pulls/merge' && r.path.startsWith(`/repos/acme/${h!.repo.name}/`),
    );
    expect(merges.map((r) => [r.path.replace(/.*\/pulls\//, ''), r.status])).toEqual([
      [`${one.number}/merge`, 200],
      [`${two.number}/merge`, 200],
    ]);
    for (const n of [one.number, two.number]) {
      const pr = hub().pullRequest(h.repo.owner, h.repo.name, n);
      expect([pr.state, pr.merged]).toEqual(['closed', true]);
    }
    // After each merge main's tree is the tree of the commit the PR's test run tested.
    const tested = [await testedCommit(h, one.number), await testedCommit(h, two.number)];
    expect(h.mainTrees()).toEqual(tested.map((sha) => treeOf(h!, sha)));
    // Each merged record carries the landing's proof: the tested tree and the tree main held after it.
    for (const [i, n] of [one.number, two.number].entries()) {
      const detail = (await h.pr(n))!.timeline.at(-1)!.detail;
      expect(detail).toMatchObject({
        kind: 'landing',
        testedTree: h.mainTrees()[i],
        landedTree: h.mainTrees()[i],
      });
    }
    expect(h.logs.filter((l) => /landed a tree other than the tested one/.test(l))).toEqual([]);
    await h.waitFor('test branches to be deleted', () =>
      Promise.resolve(h!.branches('trunk-merge/').length === 0),
    );
  }, 120_000);
});

test('a push refused by protection fails the PR and says to add the App to the bypass list; with the bypass it merges', async () => {
  h = await newQueue();
  hub().setProtection(h.repo.owner, h.repo.name, 'main', { restrictUpdates: true });
  await h.createQueue({ concurrency: 1, mergeMethod: 'merge_commit' }, { requiredStatuses: ['test'] });
  const one = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  const tipBefore = h.mainTip();
  await h.submit(one.number);
  const failed = await h.settled(one.number);
  expect([failed.state, failed.reason]).toEqual(['failed', 'GITHUB_API_MERGE_PR_FAILED']);
  // Nothing landed, and the PR is still open on GitHub.
  expect(h.mainTip()).toBe(tipBefore);
  expect(h.mainLog()).toEqual([]);
  const pr = hub().pullRequest(h.repo.owner, h.repo.name, one.number);
  expect([pr.state, pr.merged]).toEqual(['open', false]);
  // The queue's log (the worker's) carries the refusal and what to configure.
  const refusal = await h.waitFor('the landing refusal in the log', () =>
    Promise.resolve(h!.logs.find((l) => l.includes('landing refused'))),
  );
  expect(refusal).toMatch(
    /GitHub refused the push to main \(GH006: Protected branch update failed for refs\/heads\/main\)/,
  );
  expect(refusal).toMatch(/App must be on the bypass list of the rules protecting main/);
  expect(refusal).toMatch(/set the queue's landing mode to api/);

  // The App bypasses the protection: the same PR, submitted again, lands by push.
  hub().setProtection(h.repo.owner, h.repo.name, 'main', {
    restrictUpdates: true,
    bypassAppIds: [hub().app.id],
  });
  await h.submit(one.number);
  const merged = await h.waitFor(`PR #${one.number} merged`, async () => {
    const r = await h!.pr(one.number);
    return r?.state === 'merged' ? r : undefined;
  });
  expect(merged.reason).not.toBe('GITHUB_API_MERGE_PR_FAILED');
  expect(h.mainLog()).toHaveLength(1);
  expect(h.mainTrees()).toEqual([treeOf(h, await testedCommit(h, one.number))]);
  expect(hub().pullRequest(h.repo.owner, h.repo.name, one.number).merged).toBe(true);
}, 120_000);

test('landing mode push: a tested commit GitHub no longer holds with the tested tree is refused (LANDED_TREE_DIFFERS)', async () => {
  // The fake CI leaves the test branch pending: the story plants, then reports the check itself.
  h = await newQueue({ ci: () => null });
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const one = await h.openPr({ 'planted.txt': 'p\n' }, 'planted change');
  const tipBefore = h.mainTip();
  await h.submit(one.number);
  // Planted only once the queue holds the build's result (the record names the tested branch then): the
  // build reads the tree it tested after pushing the branch, and a plant before that read was recorded
  // as what was tested (a race a loaded fresh clone lost).
  const branch = await h.waitFor('the test branch of the PR, built and recorded', async () => {
    const testing = (await h!.queue()).enqueued.some((p) => p.pr === one.number && p.state === 'testing');
    const [name] = h!.branches('trunk-merge/');
    const recorded = name !== undefined && (await h!.pr(one.number))?.testedOn?.branch === name;
    return testing && recorded ? name : undefined;
  });
  const tested = h.bareGit('rev-parse', `refs/heads/${branch}`);
  // Planted on GitHub's side: the tested id now resolves to another commit (main's tree).
  const other = h.bareGit('commit-tree', 'main^{tree}', '-p', tipBefore, '-m', 'not what was tested');
  h.bareGit('replace', tested, other);
  hub().setCheckRun(h.repo.owner, h.repo.name, tested, {
    name: 'test',
    status: 'completed',
    conclusion: 'success',
  });
  const failed = await h.settled(one.number);
  expect([failed.state, failed.reason]).toEqual(['failed', 'LANDED_TREE_DIFFERS']);
  expect(failed.timeline.at(-1)?.detail).toEqual({
    kind: 'problem',
    text: expect.stringMatching(
      new RegExp(`^Refused to move main to ${tested}: the host holds tree [0-9a-f]{40}`),
    ),
  });
  expect(h.mainTip()).toBe(tipBefore);
  expect(hub().pullRequest(h.repo.owner, h.repo.name, one.number).merged).toBe(false);
}, 120_000);

test("commit titles: the description's merge-commit-title line, and the submit's commitTitle and commitBody over it", async () => {
  h = await newQueue();
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const described = 'Adds one.\n\nmerge-commit-title: one: titled by the description\n';
  const one = await h.openPr({ 'one.txt': '1\n' }, 'first change', { body: described });
  const two = await h.openPr({ 'two.txt': '2\n' }, 'second change', {
    body: 'merge-commit-title: not this one',
  });
  const repo = { host: 'github.com', owner: h.repo.owner, name: h.repo.name };
  const submit = (n: number, extra: object) =>
    h!.api('submitPullRequest', { repo, pr: { number: n }, targetBranch: 'main', ...extra });
  // A title past the bound is a 400 naming the field; nothing is queued.
  const refused = await submit(two.number, { commitTitle: 'x'.repeat(300) });
  expect(refused.status).toBe(400);
  expect(refused.body).toBe("Field 'commitTitle' must be at most 256 characters.");
  expect((await submit(one.number, {})).status).toBe(200);
  const body = 'Why: two matters.\n\nHow: a file.';
  expect((await submit(two.number, { commitTitle: 'two: titled by the API', commitBody: body })).status).toBe(
    200,
  );
  for (const n of [one.number, two.number]) expect((await h.settled(n)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['one: titled by the description', 'two: titled by the API']);
  expect(h.bareGit('log', '-1', '--format=%b', 'main').trim()).toBe(body);
}, 120_000);

test('landing mode api: GitHub merging another tree than the tested one is recorded, logged and shown, not hidden', async () => {
  h = await newQueue({ ci: () => null });
  await h.createQueue(
    { concurrency: 1, mergeMethod: 'merge_commit' },
    { requiredStatuses: ['test'], landingMode: 'api' },
  );
  const one = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  await h.submit(one.number);
  // Planted only once the queue holds the build's result (the record names the tested branch then): the
  // build reads the tree it tested after pushing the branch, and a plant before that read was recorded
  // as what was tested (a race a loaded fresh clone lost).
  const branch = await h.waitFor('the test branch of the PR, built and recorded', async () => {
    const testing = (await h!.queue()).enqueued.some((p) => p.pr === one.number && p.state === 'testing');
    const [name] = h!.branches('trunk-merge/');
    const recorded = name !== undefined && (await h!.pr(one.number))?.testedOn?.branch === name;
    return testing && recorded ? name : undefined;
  });
  const tested = h.bareGit('rev-parse', `refs/heads/${branch}`);
  // Planted on GitHub's side after the build: the PR head's id resolves to a commit without the PR's
  // change, so GitHub's own merge writes another tree than the tested one (the 2026-04-23 incident).
  h.bareGit(
    'replace',
    one.headSha,
    h.bareGit('commit-tree', 'main^{tree}', '-p', 'main', '-m', 'not the PR'),
  );
  hub().setCheckRun(h.repo.owner, h.repo.name, tested, {
    name: 'test',
    status: 'completed',
    conclusion: 'success',
  });
  const merged = await h.settled(one.number);
  expect(merged.state).toBe('merged');
  const testedTree = treeOf(h, tested);
  const landedTree = h.bareGit('rev-parse', 'main^{tree}');
  expect(landedTree).not.toBe(testedTree);
  expect(merged.timeline.at(-1)?.detail).toEqual({
    kind: 'landing',
    sha: h.mainTip(),
    testedTree,
    landedTree,
  });
  const text = (await h.api('getSubmittedPullRequest', {
    repo: { host: 'github.com', owner: h.repo.owner, name: h.repo.name },
    pr: { number: one.number },
    targetBranch: 'main',
  })) as { status: number; body: { testedTree?: string; landedTree?: string; reasonText?: string } };
  expect(text.body).toMatchObject({ testedTree, landedTree });
  expect(text.body.reasonText).toMatch(
    /but main held tree \w{12} right after the landing, not the tested tree \w{12}/,
  );
  expect(h.logs.some((l) => l.includes('landed tree differs from the tested tree'))).toBe(true);
}, 120_000);

test('landing mode api: a merge GitHub acted on for an attempt whose worker died counts as merged, not refused', async () => {
  h = await newQueue();
  await h.createQueue(
    { concurrency: 1, mergeMethod: 'merge_commit' },
    { requiredStatuses: ['test'], landingMode: 'api' },
  );
  const one = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  const two = await h.openPr({ 'two.txt': '2\n' }, 'second change');
  // The merge of #one arrives twice, as when a landing's worker was killed after sending it and the
  // next attempt read the PR open before GitHub acted on the first: GitHub merges it once and answers
  // the second 405, "not mergeable". Seen in the replica story (issue 27): the PR was recorded failed
  // although main held its merge.
  hub().knobs.mergeRequestedTwice(h.repo.owner, h.repo.name, one.number);
  await h.submit(one.number);
  await h.submit(two.number);
  expect((await h.settled(one.number)).state).toBe('merged');
  expect((await h.settled(two.number)).state).toBe('merged');
  const merges = hub().requests.filter(
    (r) => r.operationId === 'pulls/merge' && r.path.startsWith(`/repos/acme/${h!.repo.name}/`),
  );
  expect(merges.map((r) => [r.path.replace(/.*\/pulls\//, ''), r.status])).toEqual([
    [`${one.number}/merge`, 405],
    [`${two.number}/merge`, 200],
  ]);
  // One merge commit each, in queue order; main holds what the runs tested.
  expect(h.mainLog()).toEqual([
    `Merge pull request #${one.number} from acme/feature-${one.number}`,
    `Merge pull request #${two.number} from acme/feature-${two.number}`,
  ]);
  expect(h.mainTrees()).toEqual([
    treeOf(h, await testedCommit(h, one.number)),
    treeOf(h, await testedCommit(h, two.number)),
  ]);
}, 120_000);
