/**
 * A run built after a PR of its tree already landed (a stacked run whose build waited behind the
 * landing push): the `github` host still builds it, as the local host does, because the engine keeps
 * such runs (their tree is the landed tip plus the PRs on top). Refusing it as `pr_closed` left the run
 * building until its testing timeout (found by the GitHub crash story). Landing still refuses a
 * closed PR.
 */
import type { GitHost } from '../../../git/git-host';
import type { RepositoryKey } from '../../../contract';
import { useFakeHub, type WorkClone } from '../../support/fakehub';
import { useGitHubHostFixture } from '../../support/github-host-fixture';

const hub = useFakeHub();
const fixture = useGitHubHostFixture(hub, 'stacked');
let repo: RepositoryKey;
let clone: WorkClone;
let host: GitHost;

beforeAll(async () => {
  ({ repo, clone, host } = fixture());
  await clone.push(await clone.commit({ 'README.md': 'stacked\n' }), 'main');
});

type Pr = { number: number; headSha: string };

/** Builds `prs` on `baseSha` as run `runId`, then tries to land the result; answers both outcomes. */
async function buildAndLand(baseSha: string, prs: Pr[], method: 'merge_commit' | 'squash', runId: string) {
  const built = await host.buildTestBranch({
    repo,
    targetBranch: 'main',
    baseSha,
    prs,
    mergeMethod: method,
    branchName: `trunk-merge/pr-${prs[0]!.number}/${runId}`,
  });
  if (built.kind !== 'built') throw new Error(`not built: ${JSON.stringify(built)}`);
  const landed = await host.advanceTarget({
    repo,
    targetBranch: 'main',
    expectedSha: baseSha,
    newSha: built.headSha,
    prs,
    mergeMethod: method,
  });
  return { built, landed };
}

async function openPr(branch: string, files: Record<string, string>) {
  await clone.git('fetch', '-q', 'origin');
  await clone.branch(branch, 'origin/main');
  const headSha = await clone.commit(files, branch);
  await clone.push(headSha, branch);
  const pr = await hub().openPullRequest({ owner: 'acme', repo: 'stacked', head: branch, title: branch });
  return { number: pr.number, headSha };
}

test('a run whose tree holds a PR that landed meanwhile (merged, or closed after a pushed squash) is built', async () => {
  const base = (await host.readBranchTip(repo, 'main')) as { kind: 'found'; sha: string };
  const one = await openPr('one', { 'one.txt': '1\n' });
  const two = await openPr('two', { 'two.txt': '2\n' });
  // PR 1's run lands it by push (a merge commit: GitHub marks it merged).
  const { built: first, landed } = await buildAndLand(base.sha, [one], 'merge_commit', 'run-a');
  expect(landed.kind).toBe('advanced');
  expect(hub().pullRequest('acme', 'stacked', one.number).merged).toBe(true);
  // The stacked run of PR 2 (tree: base + PR 1 + PR 2) is built only now.
  const stacked = await host.buildTestBranch({
    repo,
    targetBranch: 'main',
    baseSha: base.sha,
    prs: [one, two],
    mergeMethod: 'merge_commit',
    branchName: 'trunk-merge/pr-2/run-b',
  });
  expect(stacked).toMatchObject({
    kind: 'built',
    steps: [{ prNumber: one.number }, { prNumber: two.number }],
  });
  // Its first step is the commit that landed: the run tests exactly main + PR 2.
  expect((stacked as { steps: { sha: string }[] }).steps[0]!.sha).toBe(first.headSha);

  // A PR closed by hand is still built (it leaves the queue by its webhook), but never landed.
  const three = await openPr('three', { 'three.txt': '3\n' });
  hub().closePullRequest('acme', 'stacked', three.number);
  const tip = (await host.readBranchTip(repo, 'main')) as { kind: 'found'; sha: string };
  const { landed: refused } = await buildAndLand(tip.sha, [three], 'squash', 'run-c');
  expect(refused).toEqual({ kind: 'pr_closed', prNumber: three.number, reason: 'PR_CLOSED' });
});

test('a PR pushed to since the queue read it is still refused at build', async () => {
  const tip = (await host.readBranchTip(repo, 'main')) as { kind: 'found'; sha: string };
  const four = await openPr('four', { 'four.txt': '4\n' });
  const newer = await clone.commit({ 'four.txt': '4 again\n' });
  await clone.push(newer, 'four');
  const built = await host.buildTestBranch({
    repo,
    targetBranch: 'main',
    baseSha: tip.sha,
    prs: [four],
    mergeMethod: 'squash',
    branchName: 'trunk-merge/pr-4/run-d',
  });
  expect(built).toMatchObject({
    kind: 'pr_moved',
    prNumber: four.number,
    actualSha: newer,
    reason: 'PR_PUSHED_TO',
  });
});
