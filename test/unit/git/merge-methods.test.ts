/**
 * Test branches built with each merge method on real git: main has moved since the PRs branched off,
 * so every method has to do a real merge. The tested commit must hold both sides' changes, and its
 * shape (parents, authors, messages) must be what the method promises.
 */
import type { MergeMethod } from '../../../git/git-host';
import { testBranchName } from '../../../git/names';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

const GRACE = 'Grace Hopper <grace@example.com>';
const LINUS = 'Linus Torvalds <linus@example.com>';

describe('merge methods', () => {
  let fx: GitFixture & { base: string };
  let tip: string;
  let pr1: string;
  let pr2: string;
  let run = 0;

  beforeAll(async () => {
    fx = await createRepoWithMain();
    fx.commit('Uppercase e on main', { 'lines.txt': 'a\nb\nc\nd\nE\n' });
    tip = fx.git('rev-parse', 'HEAD');
    fx.pushBranch('main', tip);

    fx.branchFrom('pr-1', fx.base);
    fx.commit('Uppercase a', { 'lines.txt': 'A\nb\nc\nd\ne\n' }, GRACE);
    pr1 = fx.commit('Add notes', { 'notes.txt': 'notes\n' }, GRACE);
    fx.pushPr(1, pr1);

    fx.branchFrom('pr-2', fx.base);
    pr2 = fx.commit('Uppercase c', { 'lines.txt': 'a\nb\nC\nd\ne\n' }, LINUS);
    fx.pushPr(2, pr2);
  });
  afterAll(() => fx.cleanup());

  const build = async (mergeMethod: MergeMethod, prs = [{ number: 1, headSha: pr1 }], baseSha = tip) => {
    run += 1;
    const result = await fx.host.buildTestBranch({
      repo: fx.repo,
      targetBranch: 'main',
      baseSha,
      prs,
      mergeMethod,
      branchName: testBranchName(prs.at(-1)!.number, `run-${run}`),
    });
    if (result.kind !== 'built') throw new Error(`expected a built branch, got ${JSON.stringify(result)}`);
    return result;
  };
  const commitOf = (sha: string) => {
    const [parents = '', author = '', committer = '', ...message] = fx
      .bareGit('log', '-1', '--format=%P%n%an <%ae>%n%cn <%ce>%n%B', sha)
      .split('\n');
    return { parents: parents.split(' '), author, committer, message: message.join('\n').trim() };
  };
  const history = (from: string, to: string) =>
    fx.bareGit('rev-list', '--reverse', `${from}..${to}`).split('\n');

  describe.each<MergeMethod>(['merge_commit', 'squash', 'rebase'])('%s', (method) => {
    it('tests the target tip with the PR applied, and points the branch at it', async () => {
      const built = await build(method);
      expect(fx.show(built.headSha, 'lines.txt')).toBe('A\nb\nc\nd\nE');
      expect(fx.show(built.headSha, 'notes.txt')).toBe('notes');
      expect(fx.tip(built.branchName)).toBe(built.headSha);
      expect(built.baseSha).toBe(tip);
      expect(fx.bareGit('merge-base', '--is-ancestor', tip, built.headSha)).toBe('');
    });

    it('applies a batch in order and reports the commit after each PR', async () => {
      const built = await build(method, [
        { number: 1, headSha: pr1 },
        { number: 2, headSha: pr2 },
      ]);
      expect(built.steps.map((s) => s.prNumber)).toEqual([1, 2]);
      expect(fx.show(built.steps[0]!.sha, 'lines.txt')).toBe('A\nb\nc\nd\nE');
      expect(fx.show(built.headSha, 'lines.txt')).toBe('A\nb\nC\nd\nE');
      expect(built.steps[1]!.sha).toBe(built.headSha);
    });

    it('a batch writes the commits of its PRs applied one build at a time', async () => {
      // In a batch each PR is applied on the commit the one before wrote, known without reading it
      // back (its tree and committer time); alone, PR 2 is applied on that commit read from git. The
      // same ids prove the two agree. PR 2's commits are the newest (the fixture's clock), so in the
      // order 2, 1 the second commit's date is the tip's, not its PR's.
      const one = { number: 1, headSha: pr1 };
      const two = { number: 2, headSha: pr2 };
      for (const [a, b] of [
        [one, two],
        [two, one],
      ] as const) {
        const batch = await build(method, [a, b]);
        const first = await build(method, [a]);
        const second = await build(method, [b], first.headSha);
        expect([first.headSha, second.headSha]).toEqual(batch.steps.map((s) => s.sha));
      }
    });

    it('builds the same commits again under another name (activities may run twice)', async () => {
      const prs = [
        { number: 1, headSha: pr1 },
        { number: 2, headSha: pr2 },
      ];
      const [first, second] = [await build(method, prs), await build(method, prs)];
      expect(second.headSha).toBe(first.headSha);
      expect(second.steps).toEqual(first.steps);
    });
  });

  it('merge_commit: one merge commit per PR, parents (tip, PR head), GitHub-like message', async () => {
    const built = await build('merge_commit');
    const commit = commitOf(built.headSha);
    expect(commit.parents).toEqual([tip, pr1]);
    expect(commit.message).toBe('Merge pull request #1\n\nAdd notes');
    expect(commit.committer).toBe('railyard <railyard@localhost>');
  });

  it('squash: one commit on the tip, authored by the PR author, titled "<title> (#n)"', async () => {
    const built = await build('squash');
    const commit = commitOf(built.headSha);
    expect(commit.parents).toEqual([tip]);
    expect(commit.author).toBe(GRACE);
    expect(commit.committer).toBe('railyard <railyard@localhost>');
    expect(commit.message).toBe('Add notes (#1)\n\n* Uppercase a\n\n* Add notes');
    const mergeTree = fx.bareGit('rev-parse', `${(await build('merge_commit')).headSha}^{tree}`);
    expect(fx.bareGit('rev-parse', `${built.headSha}^{tree}`)).toBe(mergeTree);
  });

  it("a PR's own commit title and body replace the template's for squash and merge commits, not rebase", async () => {
    const custom = {
      number: 1,
      headSha: pr1,
      commitMessage: { title: 'Notes for everyone', body: 'Why: see #1.' },
    };
    const titleOnly = { number: 1, headSha: pr1, commitMessage: { title: 'Notes for everyone' } };
    const message = async (method: MergeMethod, pr: typeof custom | typeof titleOnly) =>
      commitOf((await build(method, [pr])).headSha).message;
    expect(await message('squash', custom)).toBe('Notes for everyone\n\nWhy: see #1.');
    expect(await message('squash', titleOnly)).toBe('Notes for everyone\n\n* Uppercase a\n\n* Add notes');
    expect(await message('merge_commit', custom)).toBe('Notes for everyone\n\nWhy: see #1.');
    expect(await message('merge_commit', titleOnly)).toBe('Notes for everyone\n\nAdd notes');
    const rebased = await build('rebase', [custom]);
    expect(history(tip, rebased.headSha).map((sha) => commitOf(sha).message)).toEqual([
      'Uppercase a',
      'Add notes',
    ]);
    // The message changes the commit, never its tree.
    expect(fx.bareGit('rev-parse', `${(await build('squash', [custom])).headSha}^{tree}`)).toBe(
      fx.bareGit('rev-parse', `${(await build('squash')).headSha}^{tree}`),
    );
  });

  it('rebase: the PR commits replayed in order, keeping authors, dates and messages', async () => {
    const built = await build('rebase');
    const replayed = history(tip, built.headSha).map(commitOf);
    expect(replayed.map((c) => c.message)).toEqual(['Uppercase a', 'Add notes']);
    expect(replayed.map((c) => c.author)).toEqual([GRACE, GRACE]);
    expect(replayed.map((c) => c.committer)).toEqual([
      'railyard <railyard@localhost>',
      'railyard <railyard@localhost>',
    ]);
    expect(replayed[0]!.parents).toEqual([tip]);
    const originalDates = fx.bareGit('log', '--reverse', '--format=%ad', `${fx.base}..${pr1}`);
    expect(fx.bareGit('log', '--reverse', '--format=%ad', `${tip}..${built.headSha}`)).toBe(originalDates);
    expect(fx.show(`${built.headSha}~1`, 'lines.txt')).toBe('A\nb\nc\nd\nE');
  });

  it('rebase: drops a commit whose change is already on the target, as git rebase does', async () => {
    fx.branchFrom('pr-3', fx.base);
    fx.commit('Also uppercase e', { 'lines.txt': 'a\nb\nc\nd\nE\n' });
    const head = fx.commit('Add x', { 'x.txt': 'x\n' });
    fx.pushPr(3, head);
    const built = await build('rebase', [{ number: 3, headSha: head }]);
    expect(history(tip, built.headSha).map((sha) => commitOf(sha).message)).toEqual(['Add x']);
  });

  it('rebase: each commit is replayed against its own parent, matching git rebase (a revert inside the PR survives)', async () => {
    fx.branchFrom('pr-5', fx.base);
    fx.commit('Uppercase b', { 'lines.txt': 'a\nB\nc\nd\ne\n' });
    fx.commit('Revert uppercase b', { 'lines.txt': 'a\nb\nc\nd\ne\n' });
    const head = fx.commit('Uppercase a', { 'lines.txt': 'A\nb\nc\nd\ne\n' });
    fx.pushPr(5, head);
    const built = await build('rebase', [{ number: 5, headSha: head }]);

    fx.branchFrom('real-rebase', head);
    fx.git('rebase', '--quiet', '--onto', tip, fx.base);
    expect(fx.git('rev-parse', 'HEAD^{tree}')).toBe(fx.bareGit('rev-parse', `${built.headSha}^{tree}`));
    expect(fx.show(built.headSha, 'lines.txt')).toBe('A\nb\nc\nd\nE');
    expect(history(tip, built.headSha)).toHaveLength(3);
  });

  it('a PR whose head is the target tip plus commits keeps its content exactly under every method', async () => {
    fx.branchFrom('pr-4', tip);
    const head = fx.commit('Add y', { 'y.txt': 'y\n' });
    fx.pushPr(4, head);
    for (const method of ['merge_commit', 'squash', 'rebase'] as const) {
      const built = await build(method, [{ number: 4, headSha: head }]);
      expect(fx.bareGit('rev-parse', `${built.headSha}^{tree}`)).toBe(
        fx.bareGit('rev-parse', `${head}^{tree}`),
      );
    }
  });
});
