/**
 * A conflict names the PRs ahead it clashed with (git/clash.ts): those whose own changes touch the
 * conflicting files, on a plain build and on a stacked one (the PRs ahead already in its base), and
 * none (the target branch's own history) when no PR ahead touches them.
 */
import { testBranchName } from '../../../git/names';
import type { PullRequestAtSha } from '../../../git/git-host';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

describe('which PR ahead a conflict clashes with', () => {
  let fx: GitFixture & { base: string };
  let unrelated: PullRequestAtSha;
  let first: PullRequestAtSha;
  let clash: PullRequestAtSha;

  beforeAll(async () => {
    fx = await createRepoWithMain();
    fx.branchFrom('unrelated', fx.base);
    unrelated = { number: 7, headSha: fx.commit('Add other', { 'other.txt': 'x\n' }) };
    fx.pushPr(7, unrelated.headSha);
    fx.branchFrom('first', fx.base);
    first = { number: 1, headSha: fx.commit('Uppercase a', { 'lines.txt': 'A\nb\nc\nd\ne\n' }) };
    fx.pushPr(1, first.headSha);
    fx.branchFrom('clash', fx.base);
    clash = { number: 2, headSha: fx.commit('Spell out a', { 'lines.txt': 'alpha\nb\nc\nd\ne\n' }) };
    fx.pushPr(2, clash.headSha);
  });
  afterAll(() => fx.cleanup());

  const build = (baseSha: string, prs: PullRequestAtSha[], name: string, underneath?: PullRequestAtSha[]) =>
    fx.host.buildTestBranch({
      repo: fx.repo,
      targetBranch: 'main',
      baseSha,
      prs,
      mergeMethod: 'merge_commit',
      branchName: testBranchName(prs[0]!.number, name),
      ...(underneath ? { underneath: { targetSha: fx.base, prs: underneath } } : {}),
    });

  it('names only the PR ahead that touches the conflicting file', async () => {
    await expect(build(fx.base, [unrelated, first, clash], 'plain')).resolves.toMatchObject({
      kind: 'conflict',
      prNumber: 2,
      files: ['lines.txt'],
      clashesWith: [1],
    });
  });

  it('names it on a stacked build, whose PRs ahead are already in its base', async () => {
    const under = await build(fx.base, [unrelated, first], 'under');
    if (under.kind !== 'built') throw new Error(`the base run did not build: ${under.kind}`);
    await expect(build(under.headSha, [clash], 'stacked', [unrelated, first])).resolves.toMatchObject({
      kind: 'conflict',
      prNumber: 2,
      clashesWith: [1],
    });
  });

  it('names none when the file changed on the target branch, not in a PR ahead', async () => {
    fx.branchFrom('moved', fx.base);
    const moved = fx.commit('Change a on main', { 'lines.txt': 'aa\nb\nc\nd\ne\n' });
    fx.pushBranch('moved', moved);
    await expect(build(moved, [unrelated, clash], 'target')).resolves.toMatchObject({
      kind: 'conflict',
      prNumber: 2,
      clashesWith: [],
    });
  });
});
