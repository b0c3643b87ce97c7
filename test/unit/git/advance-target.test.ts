/**
 * Landing tested commits: the target branch moves by compare-and-swap from the base the run was built
 * on, so a push that happened meanwhile is detected and never overwritten; retries are harmless.
 */
import { testBranchName } from '../../../git/names';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

describe('advancing the target branch', () => {
  let fx: GitFixture & { base: string };
  let n = 10;

  beforeEach(async () => {
    fx = await createRepoWithMain();
  });
  afterEach(() => fx.cleanup());

  /** Opens a PR adding one file on top of `from` and builds its test branch on the current main tip. */
  const openAndBuild = async (from = fx.base) => {
    n += 1;
    fx.branchFrom(`pr-${n}`, from);
    const head = fx.commit(`Add f${n}`, { [`f${n}.txt`]: `${n}\n` });
    fx.pushPr(n, head);
    const pr = { number: n, headSha: head };
    const built = await fx.host.buildTestBranch({
      repo: fx.repo,
      targetBranch: 'main',
      baseSha: fx.tip('main'),
      prs: [pr],
      mergeMethod: 'squash',
      branchName: testBranchName(n, 'run'),
    });
    if (built.kind !== 'built') throw new Error(JSON.stringify(built));
    return { pr, built };
  };
  const advance = (expectedSha: string, newSha: string, prs?: { number: number; headSha: string }[]) =>
    fx.host.advanceTarget({ repo: fx.repo, targetBranch: 'main', expectedSha, newSha, prs });

  it('moves the target to the tested commit, and a retry finds it already there', async () => {
    const { pr, built } = await openAndBuild();
    await expect(advance(fx.base, built.headSha, [pr])).resolves.toEqual({
      kind: 'advanced',
      sha: built.headSha,
      alreadyAdvanced: false,
    });
    expect(fx.tip('main')).toBe(built.headSha);
    await expect(advance(fx.base, built.headSha, [pr])).resolves.toEqual({
      kind: 'advanced',
      sha: built.headSha,
      alreadyAdvanced: true,
    });
  });

  it('counts a retry as done when the target has moved on past the landed commit', async () => {
    const { built } = await openAndBuild();
    await advance(fx.base, built.headSha);
    fx.git('fetch', '--quiet', 'origin');
    fx.branchFrom('after', 'origin/main');
    fx.pushBranch('main', fx.commit('Pushed on top', { 'top.txt': 't\n' }));
    await expect(advance(fx.base, built.headSha)).resolves.toEqual({
      kind: 'advanced',
      sha: built.headSha,
      alreadyAdvanced: true,
    });
  });

  it('detects a concurrent push to the target and leaves it alone', async () => {
    const { built } = await openAndBuild();
    fx.branchFrom('hotfix', fx.base);
    const pushed = fx.commit('Hotfix pushed by hand', { 'hotfix.txt': 'x\n' });
    fx.pushBranch('main', pushed);
    await expect(advance(fx.base, built.headSha)).resolves.toEqual({
      kind: 'moved',
      expectedSha: fx.base,
      actualSha: pushed,
    });
    expect(fx.tip('main')).toBe(pushed);
  });

  it('refuses to land a PR that was pushed to after it was tested (PR_UPDATED_AT_MERGE_TIME)', async () => {
    const { pr, built } = await openAndBuild();
    const newer = fx.commit('Late change', { late: 'x\n' });
    fx.pushPr(pr.number, newer);
    await expect(advance(fx.base, built.headSha, [pr])).resolves.toEqual({
      kind: 'pr_moved',
      prNumber: pr.number,
      expectedSha: pr.headSha,
      actualSha: newer,
      reason: 'PR_UPDATED_AT_MERGE_TIME',
    });
    fx.closePr(pr.number);
    await expect(advance(fx.base, built.headSha, [pr])).resolves.toEqual({
      kind: 'pr_closed',
      prNumber: pr.number,
      reason: 'PR_CLOSED',
    });
    expect(fx.tip('main')).toBe(fx.base);
  });

  it('never moves the target backwards or to a commit that does not descend from it', async () => {
    const { built } = await openAndBuild();
    const orphan = fx.bareGit('commit-tree', `${fx.base}^{tree}`, '-m', 'unrelated history');
    await expect(advance(fx.base, orphan)).resolves.toEqual({
      kind: 'rejected',
      reason: 'GITHUB_API_MERGE_PR_FAILED',
      detail: `${orphan} does not descend from ${fx.base}`,
    });
    await expect(advance(fx.base, 'e'.repeat(40))).resolves.toMatchObject({ kind: 'rejected' });
    await advance(fx.base, built.headSha);
    await expect(advance(built.headSha, fx.base)).resolves.toMatchObject({ kind: 'rejected' });
    expect(fx.tip('main')).toBe(built.headSha);
  });

  it('lets exactly one of two racing advances win', async () => {
    const one = await openAndBuild();
    const two = await openAndBuild();
    const results = await Promise.all([
      advance(fx.base, one.built.headSha),
      advance(fx.base, two.built.headSha),
    ]);
    expect(results.map((r) => r.kind).sort()).toEqual(['advanced', 'moved']);
    const winner = results[0].kind === 'advanced' ? one : two;
    expect(fx.tip('main')).toBe(winner.built.headSha);
  });

  it('can land the first PRs of a batch alone, through their step commits', async () => {
    fx.branchFrom('a', fx.base);
    const a = fx.commit('Add a', { 'a.txt': 'a\n' });
    fx.pushPr(1, a);
    fx.branchFrom('b', fx.base);
    const b = fx.commit('Add b', { 'b.txt': 'b\n' });
    fx.pushPr(2, b);
    const built = await fx.host.buildTestBranch({
      repo: fx.repo,
      targetBranch: 'main',
      baseSha: fx.base,
      prs: [
        { number: 1, headSha: a },
        { number: 2, headSha: b },
      ],
      mergeMethod: 'rebase',
      branchName: testBranchName(2, 'batch'),
    });
    if (built.kind !== 'built') throw new Error(JSON.stringify(built));
    await expect(advance(fx.base, built.steps[0]!.sha)).resolves.toMatchObject({ kind: 'advanced' });
    expect(fx.bareGit('ls-tree', '--name-only', 'main').split('\n')).toEqual([
      'README.md',
      'a.txt',
      'lines.txt',
    ]);
  });

  describe('direct merge', () => {
    const directMerge = (pr: { number: number; headSha: string }, expectedTargetSha: string) =>
      fx.host.directMerge({
        repo: fx.repo,
        targetBranch: 'main',
        expectedTargetSha,
        pr,
        mergeMethod: 'merge_commit',
      });

    it('merges a PR based on the target tip with the merge method, idempotently', async () => {
      fx.branchFrom('direct', fx.base);
      const head = fx.commit('Add d', { 'd.txt': 'd\n' });
      fx.pushPr(7, head);
      const first = await directMerge({ number: 7, headSha: head }, fx.base);
      expect(first).toMatchObject({ kind: 'merged', alreadyMerged: false });
      expect(fx.tip('main')).toBe(first.kind === 'merged' ? first.sha : '');
      expect(fx.bareGit('log', '-1', '--format=%P', 'main')).toBe(`${fx.base} ${head}`);
      await expect(directMerge({ number: 7, headSha: head }, fx.base)).resolves.toEqual({
        ...first,
        alreadyMerged: true,
      });
    });

    it('reports a target that moved meanwhile, and a PR that moved', async () => {
      fx.branchFrom('direct', fx.base);
      const head = fx.commit('Add d', { 'd.txt': 'd\n' });
      fx.pushPr(8, head);
      fx.branchFrom('other', fx.base);
      const pushed = fx.commit('Other', { 'o.txt': 'o\n' });
      fx.pushBranch('main', pushed);
      await expect(directMerge({ number: 8, headSha: head }, fx.base)).resolves.toEqual({
        kind: 'moved',
        expectedSha: fx.base,
        actualSha: pushed,
      });
      await expect(directMerge({ number: 8, headSha: fx.base }, pushed)).resolves.toMatchObject({
        kind: 'pr_moved',
        reason: 'PR_PUSHED_TO',
      });
    });
  });
});
