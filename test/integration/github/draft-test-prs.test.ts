/**
 * Draft-PR testing mode in the `github` git host, against fakehub: a build asked for a test PR pushes the
 * branch and opens a draft PR from it into the target (once, however often the build runs), as the App
 * (GitHub announces it with `pull_request.opened`, sent by the App's bot); the listing finds railyard's
 * test PRs and nobody else's; deleting the branch closes its PR first (`pull_request.closed`, not
 * merged), then deletes it. A build without the request opens nothing.
 */
import { execFileSync } from 'node:child_process';
import type { BuildTestBranchInput, GitHost } from '../../../git/git-host';
import type { RepositoryKey } from '../../../contract';
import { useFakeHub, type WorkClone } from '../../support/fakehub';
import { useGitHubHostFixture } from '../../support/github-host-fixture';

const hub = useFakeHub();
const fixture = useGitHubHostFixture(hub, 'drafts');
let repo: RepositoryKey;
let clone: WorkClone;
let host: GitHost;
let base: string;
let pr: { number: number; headSha: string };

beforeAll(async () => {
  ({ repo, clone, host } = fixture());
  base = await clone.commit({ 'README.md': 'drafts\n' });
  await clone.push(base, 'main');
  const head = await clone.commit({ 'one.txt': '1\n' }, 'one');
  await clone.push(head, 'feature-1');
  pr = {
    number: (await hub().openPullRequest({ owner: 'acme', repo: 'drafts', head: 'feature-1' })).number,
    headSha: head,
  };
});

const build = (runId: string, withPr: boolean): BuildTestBranchInput => ({
  repo,
  targetBranch: 'main',
  baseSha: base,
  prs: [pr],
  mergeMethod: 'merge_commit',
  branchName: `trunk-merge/pr-${pr.number}/${runId}`,
  ...(withPr ? { testPullRequest: { runId, prs: [pr.number] } } : {}),
});

const pullsFrom = (branch: string) =>
  hub()
    .state.pullsOf(hub().state.repository('acme', 'drafts')!)
    .filter((p) => p.headBranch === branch);
const prEvents = (number: number) =>
  hub().webhooks.deliveries.filter(
    (d) => d.event === 'pull_request' && (d.payload.pull_request as { number: number }).number === number,
  );

test('a build asked for a test PR opens one draft PR from its branch, once; deleting the branch closes it', async () => {
  const branch = `trunk-merge/pr-${pr.number}/run-a`;
  const built = await host.buildTestBranch(build('run-a', true));
  if (built.kind !== 'built') throw new Error(`not built: ${built.kind}`);
  const [draft, ...more] = pullsFrom(branch);
  expect(more).toEqual([]);
  expect(built.pullRequest).toBe(draft!.number);
  expect(draft).toMatchObject({
    state: 'open',
    draft: true,
    base: 'main',
    author: `${hub().app.slug}[bot]`,
    headSha: built.headSha,
    title: `railyard test run of #${pr.number} (run-a)`,
  });
  expect(draft!.body).toContain('<!-- railyard:test-run -->');
  await hub().webhooks.idle();
  const opened = prEvents(draft!.number);
  expect(opened.map((d) => d.action)).toEqual(['opened']);
  expect(opened[0]!.payload.sender).toMatchObject({ login: `${hub().app.slug}[bot]`, type: 'Bot' });

  // The activity ran again (a retry): the same branch, the same PR.
  const again = await host.buildTestBranch(build('run-a', true));
  expect(again).toMatchObject({ kind: 'built', headSha: built.headSha, pullRequest: draft!.number });
  expect(pullsFrom(branch)).toHaveLength(1);

  expect(await host.listTestPullRequests(repo, 'main')).toEqual([
    { number: draft!.number, branchName: branch, runId: 'run-a' },
  ]);

  const from = hub().requests.length;
  expect(await host.deleteBranch(repo, branch)).toEqual({ kind: 'deleted' });
  // Closed by railyard's PATCH before the branch went (a deletion alone would close it too).
  const after = hub().requests.slice(from);
  const patch = after.findIndex((r) => r.operationId === 'pulls/update' && r.status === 200);
  const push = after.findIndex((r) => r.kind === 'git' && r.method === 'POST');
  expect(patch).toBeGreaterThanOrEqual(0);
  expect(patch).toBeLessThan(push);
  expect(hub().state.pull(hub().state.repository('acme', 'drafts')!, draft!.number)).toMatchObject({
    state: 'closed',
    merged: false,
  });
  expect(execBranches()).not.toContain(branch);
  await hub().webhooks.idle();
  const closed = prEvents(draft!.number).filter((d) => d.action === 'closed');
  expect(closed).toHaveLength(1);
  expect(closed[0]!.payload.sender).toMatchObject({ type: 'Bot' });
  expect(await host.listTestPullRequests(repo, 'main')).toEqual([]);
  // Deleting it again is a no-op.
  expect(await host.deleteBranch(repo, branch)).toEqual({ kind: 'already_absent' });
});

test('a build not asked for one opens none; a person’s PR from a test-branch name is not listed', async () => {
  const built = await host.buildTestBranch(build('run-b', false));
  expect(built.kind).toBe('built');
  expect(built.kind === 'built' && built.pullRequest).toBeUndefined();
  expect(pullsFrom(`trunk-merge/pr-${pr.number}/run-b`)).toEqual([]);

  const sha = await clone.commit({ 'two.txt': '2\n' }, 'two');
  await clone.push(sha, `trunk-merge/pr-${pr.number}/run-c`);
  const theirs = await hub().openPullRequest({
    owner: 'acme',
    repo: 'drafts',
    head: `trunk-merge/pr-${pr.number}/run-c`,
    author: 'dev',
    draft: true,
  });
  expect(await host.listTestPullRequests(repo, 'main')).toEqual([]);
  hub().closePullRequest('acme', 'drafts', theirs.number);
  await host.deleteBranch(repo, `trunk-merge/pr-${pr.number}/run-b`);
});

function execBranches(): string[] {
  const bare = hub().state.repository('acme', 'drafts')!.bare;
  return execFileSync('git', ['-C', bare, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/'], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
}
