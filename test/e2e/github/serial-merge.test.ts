/** Stories of the merge queue on GitHub (fakehub): the real stack, the `github` git host. */
import { useGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';

const { hub, newQueue } = useGitHubQueueHarness();
let h: GitHubQueueHarness | undefined;

test('two PRs merge in order on GitHub, each tested on a trunk-merge/ branch by its required check', async () => {
  h = await newQueue();
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const one = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  const two = await h.openPr({ 'two.txt': '2\n' }, 'second change');
  await h.submit(one.number);
  await h.submit(two.number);
  expect((await h.settled(one.number)).state).toBe('merged');
  expect((await h.settled(two.number)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['first change (#1)', 'second change (#2)']);
  // Pushed squashes are not merges GitHub can see: railyard closes the PRs and says where they went.
  for (const n of [one.number, two.number]) {
    expect(hub().pullRequest(h.repo.owner, h.repo.name, n).state).toBe('closed');
    expect(
      hub()
        .comments(h.repo.owner, h.repo.name, n)
        .map((c) => c.body)
        .join('\n'),
    ).toMatch(/Merged by railyard/);
  }
  await h.waitFor('test branches to be deleted', () =>
    Promise.resolve(h!.branches('trunk-merge/').length === 0),
  );
  // The rate-limit budget (docs/github.md): REST calls that count against the installation's limit
  // (a 304 does not), per merged PR.
  const spent = hub().requests.filter(
    (r) => r.kind === 'rest' && r.status !== 304 && r.path.includes(`/${h!.repo.name}/`),
  );
  const byOperation: Record<string, number> = {};
  for (const r of spent)
    byOperation[r.operationId ?? r.path] = (byOperation[r.operationId ?? r.path] ?? 0) + 1;
  console.log(`REST calls per merged PR: ${spent.length / 2} (${JSON.stringify(byOperation)})`);
  expect(spent.length / 2).toBeLessThanOrEqual(15);
}, 120_000);

test("a queue's own test-branch prefix names its test branches on GitHub, and they are deleted after", async () => {
  const tested: string[] = [];
  h = await newQueue({
    ci: (_sha, branch, files) => {
      tested.push(branch);
      return files.includes('BROKEN') ? 'failure' : 'success';
    },
  });
  await h.createQueue(
    { mergeMethod: 'merge_commit' },
    { requiredStatuses: ['test'], testBranchPrefix: 'mq-tests/' },
  );
  const one = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  await h.submit(one.number);
  expect((await h.settled(one.number)).state).toBe('merged');
  expect(tested.some((b) => b.startsWith(`mq-tests/pr-${one.number}/`))).toBe(true);
  expect(tested.filter((b) => b.startsWith('trunk-merge/'))).toEqual([]);
  // A merge commit of the PR's head: GitHub sees the PR merged by the push itself.
  expect(hub().pullRequest(h.repo.owner, h.repo.name, one.number).merged).toBe(true);
  await h.waitFor('test branches to be deleted', () =>
    Promise.resolve(h!.branches('mq-tests/').length === 0),
  );
}, 120_000);

test('submitPullRequest over HTTP with the PR number alone (no sha), as Trunk clients send it, merges the GitHub PR', async () => {
  h = await newQueue();
  await h.createQueue({ mergeMethod: 'merge_commit' }, { requiredStatuses: ['test'] });
  const pr = await h.openPr({ 'http.txt': 'h\n' }, 'submitted over HTTP');
  const repo = { host: 'github.com', owner: h.repo.owner, name: h.repo.name };
  const submitted = await h.api('submitPullRequest', {
    repo,
    pr: { number: pr.number },
    targetBranch: 'main',
    priority: 'medium',
  });
  expect(submitted.status).toBe(200);
  expect((await h.settled(pr.number)).state).toBe('merged');
  const read = await h.api('getSubmittedPullRequest', {
    repo,
    pr: { number: pr.number },
    targetBranch: 'main',
  });
  expect(read).toMatchObject({ status: 200, body: { state: 'merged', prSha: pr.headSha } });
  expect(h.mainLog()).toHaveLength(1);
}, 120_000);
