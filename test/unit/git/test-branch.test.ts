/**
 * Test branches and pull requests on the local host: conflicts name the culprit, a PR that moved or
 * closed since the queue read it is reported (and not tested), builds and deletes are idempotent; the
 * preflight's throw-away branch (a commit of its own with main's tree, idempotent, only under the prefix).
 */
import { classifyPullRequestChange } from '../../../git/pr-events';
import { testBranchName } from '../../../git/names';
import { preflightBranchName } from '../../../git/preflight-branch';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

describe('test branches and pull requests', () => {
  let fx: GitFixture & { base: string };
  let good: string;
  let clash: string;

  beforeAll(async () => {
    fx = await createRepoWithMain();
    fx.branchFrom('good', fx.base);
    good = fx.commit('Uppercase a', { 'lines.txt': 'A\nb\nc\nd\ne\n' }, 'Grace Hopper <grace@example.com>');
    fx.pushPr(1, good);
    fx.branchFrom('clash', fx.base);
    clash = fx.commit('Lowercase-ify a differently', { 'lines.txt': 'alpha\nb\nc\nd\ne\n' });
    fx.pushPr(2, clash);
  });
  afterAll(() => fx.cleanup());

  const input = (branchName: string, prs: { number: number; headSha: string }[]) => ({
    repo: fx.repo,
    targetBranch: 'main',
    baseSha: fx.base,
    prs,
    mergeMethod: 'merge_commit' as const,
    branchName,
  });

  it('reports a conflict with the culprit PR and the files, and writes no branch', async () => {
    const branch = testBranchName(2, 'conflict');
    const result = await fx.host.buildTestBranch(
      input(branch, [
        { number: 1, headSha: good },
        { number: 2, headSha: clash },
      ]),
    );
    expect(result).toEqual({
      kind: 'conflict',
      prNumber: 2,
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      detail: 'merge conflict in lines.txt',
      files: ['lines.txt'],
      clashesWith: [1],
    });
    await expect(fx.host.readBranchTip(fx.repo, branch)).resolves.toEqual({
      kind: 'not_found',
      what: 'branch',
    });
  });

  it('reports a PR pushed to since the queue read it (PR_PUSHED_TO) instead of testing the new head', async () => {
    fx.branchFrom('moving', fx.base);
    const first = fx.commit('Add m', { 'm.txt': '1\n' });
    fx.pushPr(3, first);
    const second = fx.commit('Change m', { 'm.txt': '2\n' });
    fx.pushPr(3, second);
    const result = await fx.host.buildTestBranch(
      input(testBranchName(3, 'moved'), [{ number: 3, headSha: first }]),
    );
    expect(result).toEqual({
      kind: 'pr_moved',
      prNumber: 3,
      expectedSha: first,
      actualSha: second,
      reason: 'PR_PUSHED_TO',
    });
  });

  it('reports a closed PR (its ref deleted) with PR_CLOSED', async () => {
    fx.branchFrom('closing', fx.base);
    const head = fx.commit('Add c', { 'c.txt': 'c\n' });
    fx.pushPr(4, head);
    fx.closePr(4);
    const result = await fx.host.buildTestBranch(
      input(testBranchName(4, 'closed'), [{ number: 4, headSha: head }]),
    );
    expect(result).toEqual({ kind: 'pr_closed', prNumber: 4, reason: 'PR_CLOSED' });
  });

  it('building the same branch twice gives the same result; other content under that name is refused', async () => {
    const branch = testBranchName(1, 'twice');
    const first = await fx.host.buildTestBranch(input(branch, [{ number: 1, headSha: good }]));
    const second = await fx.host.buildTestBranch(input(branch, [{ number: 1, headSha: good }]));
    expect(first.kind).toBe('built');
    expect(second).toEqual(first);
    const squashed = fx.host.buildTestBranch({
      ...input(branch, [{ number: 1, headSha: good }]),
      mergeMethod: 'squash',
    });
    await expect(squashed).rejects.toThrow(/already exists/);
  });

  it('deletes a test branch, and deleting it again is not an error', async () => {
    const branch = testBranchName(1, 'delete-me');
    await fx.host.buildTestBranch(input(branch, [{ number: 1, headSha: good }]));
    await expect(fx.host.deleteBranch(fx.repo, branch)).resolves.toEqual({ kind: 'deleted' });
    await expect(fx.host.deleteBranch(fx.repo, branch)).resolves.toEqual({ kind: 'already_absent' });
    await expect(fx.host.readBranchTip(fx.repo, branch)).resolves.toEqual({
      kind: 'not_found',
      what: 'branch',
    });
  });

  it("pushes the preflight's branch: a new commit with the base's tree, the same one again; refuses other names", async () => {
    const branchName = preflightBranchName('railyard-merge/', 'run-1');
    const pushed = await fx.host.pushPreflightBranch({ repo: fx.repo, baseSha: fx.base, branchName });
    expect(pushed.sha).not.toBe(fx.base);
    expect(fx.bareGit('rev-parse', `${pushed.sha}^`, `${pushed.sha}^{tree}`)).toBe(
      fx.bareGit('rev-parse', fx.base, `${fx.base}^{tree}`),
    );
    // An activity that runs again finds its branch.
    await expect(
      fx.host.pushPreflightBranch({ repo: fx.repo, baseSha: fx.base, branchName }),
    ).resolves.toEqual(pushed);
    await expect(fx.host.deleteBranch(fx.repo, branchName)).resolves.toEqual({ kind: 'deleted' });
    for (const name of ['main', 'railyard-merge/pr-1/x', 'elsewhere/preflight/x'])
      await expect(
        fx.host.pushPreflightBranch({ repo: fx.repo, baseSha: fx.base, branchName: name }),
      ).rejects.toThrow(/preflight branch|test branch/);
    expect(fx.tip('main')).toBe(fx.base);
  });

  it('throws, with a clear message, for a base that is not a commit of the repository', async () => {
    const missing = 'f'.repeat(40);
    const result = fx.host.buildTestBranch({
      ...input(testBranchName(1, 'no-base'), [{ number: 1, headSha: good }]),
      baseSha: missing,
    });
    await expect(result).rejects.toThrow(`base ${missing} is not a commit of this repository`);
  });

  describe('reading a pull request', () => {
    it('gives head, title and author from the head commit, and mergeability against the target', async () => {
      const result = await fx.host.readPullRequest(fx.repo, 1, 'main');
      expect(result).toEqual({
        kind: 'found',
        pullRequest: {
          number: 1,
          headSha: good,
          title: 'Uppercase a',
          author: 'Grace Hopper',
          authorEmail: 'grace@example.com',
          state: 'open',
          baseBranch: null,
          targetTipSha: fx.base,
          mergeability: 'mergeable',
          conflictFiles: [],
          basedOnTargetTip: true,
        },
      });
    });

    it('sees a conflict with the target after the target moved', async () => {
      fx.branchFrom('main-next', fx.base);
      const moved = fx.commit('Change a on main', { 'lines.txt': 'aa\nb\nc\nd\ne\n' });
      fx.pushBranch('main-next', moved);
      const result = await fx.host.readPullRequest(fx.repo, 2, 'main-next');
      expect(result.kind === 'found' && result.pullRequest).toMatchObject({
        mergeability: 'conflicting',
        conflictFiles: ['lines.txt'],
        basedOnTargetTip: false,
        targetTipSha: moved,
      });
    });

    it('answers unknown mergeability when the target branch does not exist', async () => {
      const result = await fx.host.readPullRequest(fx.repo, 1, 'no-such-branch');
      expect(result.kind === 'found' && result.pullRequest).toMatchObject({
        mergeability: 'unknown',
        targetTipSha: null,
      });
    });

    it('detects a push and a close when the queue next looks (PR_PUSHED_TO, PR_CLOSED)', async () => {
      fx.branchFrom('watched', fx.base);
      const seen = fx.commit('Add w', { 'w.txt': '1\n' });
      fx.pushPr(6, seen);
      const read = () => fx.host.readPullRequest(fx.repo, 6, 'main');
      expect(classifyPullRequestChange(seen, await read())).toEqual({ kind: 'unchanged' });
      const pushed = fx.commit('Change w', { 'w.txt': '2\n' });
      fx.pushPr(6, pushed);
      expect(classifyPullRequestChange(seen, await read())).toEqual({
        kind: 'cancel',
        reason: 'PR_PUSHED_TO',
        actualSha: pushed,
      });
      fx.closePr(6);
      expect(await read()).toEqual({ kind: 'not_found', what: 'pull_request' });
      expect(classifyPullRequestChange(seen, await read())).toEqual({ kind: 'cancel', reason: 'PR_CLOSED' });
    });

    it('answers not_found for an unknown repository', async () => {
      const repo = { ...fx.repo, name: 'gadgets' };
      await expect(fx.host.readPullRequest(repo, 1, 'main')).resolves.toEqual({
        kind: 'not_found',
        what: 'repository',
      });
    });
  });
});
