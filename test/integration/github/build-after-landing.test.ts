/**
 * A run built after a PR of its tree already landed (a stacked run whose build waited behind the
 * landing push): the `github` host still builds it, as the local host does, because the engine keeps
 * such runs (their tree is the landed tip plus the PRs on top). Refusing it as `pr_closed` left the run
 * building until its testing timeout (found by the GitHub crash story). Landing still refuses a
 * closed PR.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGitHubGitHost } from '../../../activities/git/github-git-host';
import type { GitHost } from '../../../activities/git/git-host';
import { createGitHubAppAuth } from '../../../activities/github/app-auth';
import { createGitHubClients } from '../../../activities/github/rest-client';
import type { RepositoryKey } from '../../../workflows/contract';
import { useFakeHub, workClone, type WorkClone } from '../../support/fakehub';

const hub = useFakeHub();
const repo: RepositoryKey = { host: 'github.com', owner: 'acme', name: 'stacked' };
let clone: WorkClone;
let host: GitHost;
let mirrorRoot: string;

beforeAll(async () => {
  const installationId = hub().createInstallation({ account: 'acme' }).id;
  await hub().createRepository({ installationId, owner: 'acme', name: 'stacked' });
  clone = await workClone(hub().gitUrl('acme', 'stacked'), () => hub().installationToken(installationId));
  await clone.push(await clone.commit({ 'README.md': 'stacked\n' }), 'main');
  const settings = { appId: hub().app.id, privateKey: hub().app.privateKey, apiUrl: hub().url };
  const auth = await createGitHubAppAuth(settings);
  mirrorRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-build-after-landing-'));
  host = createGitHubGitHost({
    mirrorRoot,
    gitUrl: hub().url,
    installationOf: () => Promise.resolve(installationId),
    clients: await createGitHubClients(settings, auth),
    auth,
  });
});

afterAll(() => {
  clone?.cleanup();
  if (mirrorRoot) fs.rmSync(mirrorRoot, { recursive: true, force: true });
});

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
  const first = await host.buildTestBranch({
    repo,
    targetBranch: 'main',
    baseSha: base.sha,
    prs: [one],
    mergeMethod: 'merge_commit',
    branchName: 'trunk-merge/pr-1/run-a',
  });
  expect(first.kind).toBe('built');
  const landed = await host.advanceTarget({
    repo,
    targetBranch: 'main',
    expectedSha: base.sha,
    newSha: (first as { headSha: string }).headSha,
    prs: [one],
    mergeMethod: 'merge_commit',
  });
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
  expect((stacked as { steps: { sha: string }[] }).steps[0]!.sha).toBe(
    (first as { headSha: string }).headSha,
  );

  // A PR closed by hand is still built (it leaves the queue by its webhook), but never landed.
  const three = await openPr('three', { 'three.txt': '3\n' });
  hub().closePullRequest('acme', 'stacked', three.number);
  const tip = (await host.readBranchTip(repo, 'main')) as { kind: 'found'; sha: string };
  const closed = await host.buildTestBranch({
    repo,
    targetBranch: 'main',
    baseSha: tip.sha,
    prs: [three],
    mergeMethod: 'squash',
    branchName: 'trunk-merge/pr-3/run-c',
  });
  expect(closed.kind).toBe('built');
  const refused = await host.advanceTarget({
    repo,
    targetBranch: 'main',
    expectedSha: tip.sha,
    newSha: (closed as { headSha: string }).headSha,
    prs: [three],
    mergeMethod: 'squash',
  });
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
