/**
 * The composition memo (git/compose-memo.ts) on real git: a queue's runs reuse the commits the run
 * ahead wrote, give exactly the commits a fresh composition writes, and still check every PR's head.
 * Git processes are counted, not timed: a run deeper in the queue applies only its own PR.
 */
import { composePullRequests, type Composition } from '../../../git/compose';
import { createComposeMemo, prefixKeys, type ComposeMemo } from '../../../git/compose-memo';
import { createGit } from '../../../git/git-cli';
import type { MergeMethod, PullRequestAtSha } from '../../../git/git-host';
import type { RepoAccess } from '../../../git/commits';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

const DEPTH = 6;

describe('composing a queue with the memo', () => {
  let fx: GitFixture & { base: string };
  let tip: string;
  const prs: PullRequestAtSha[] = [];
  let calls = 0;
  let repo: RepoAccess;

  beforeAll(async () => {
    fx = await createRepoWithMain();
    tip = fx.commit('Main moves on', { 'main.txt': 'main\n' });
    fx.pushBranch('main', tip);
    for (let n = 1; n <= DEPTH; n++) {
      fx.branchFrom(`pr-${n}`, fx.base);
      const sha = fx.commit(`PR ${n}`, { [`pr-${n}.txt`]: `${n}\n` });
      fx.pushPr(n, sha);
      prs.push({ number: n, headSha: sha, commitMessage: { title: `Title ${n}` } });
    }
    const git = createGit({ identity: { name: 'railyard', email: 'railyard@localhost' } });
    repo = { dir: fx.bare, git: (args, opts) => ((calls += 1), git(args, opts)) };
  });
  afterAll(() => fx.cleanup());

  const compose = async (n: number, method: MergeMethod, memo?: ComposeMemo) => {
    calls = 0;
    const result = await composePullRequests(repo, tip, prs.slice(0, n), method, { memo });
    return { result, calls };
  };
  const composed = (c: Composition) => {
    if (c.kind !== 'composed') throw new Error(`expected a composition, got ${JSON.stringify(c)}`);
    return c;
  };

  it.each<MergeMethod>(['merge_commit', 'squash', 'rebase'])(
    '%s: each run applies only its own PR and writes the commits a fresh composition writes',
    async (method) => {
      const memo = createComposeMemo();
      const perRun: number[] = [];
      for (let n = 1; n <= DEPTH; n++) {
        const withMemo = await compose(n, method, memo);
        perRun.push(withMemo.calls);
        const fresh = await compose(n, method);
        // Same commit ids, same steps: the memo is a shortcut, not another answer.
        expect(composed(withMemo.result)).toEqual(composed(fresh.result));
        if (n === DEPTH) expect(fresh.calls).toBeGreaterThan(withMemo.calls * 3);
      }
      // A run deep in the queue costs what the first one did, plus the check that its base is there.
      expect(perRun[DEPTH - 1]).toBeLessThanOrEqual(perRun[0]! + 1);
    },
    // A hang guard: about 4 s each on a quiet machine (hundreds of git processes), past 60 s once at
    // load 12 beside a full run.
    180_000,
  );

  it('a PR ahead that moved is reported although its commits are remembered', async () => {
    const memo = createComposeMemo();
    composed((await compose(DEPTH, 'merge_commit', memo)).result);
    const moved = prs.map((p) => (p.number === 2 ? { ...p, headSha: prs[0]!.headSha } : p));
    const result = await composePullRequests(repo, tip, moved, 'merge_commit', { memo });
    expect(result).toMatchObject({ kind: 'pr_moved', prNumber: 2, actualSha: prs[1]!.headSha });
    fx.closePr(DEPTH);
    try {
      const closed = await composePullRequests(repo, tip, prs, 'merge_commit', { memo });
      expect(closed).toMatchObject({ kind: 'pr_closed', prNumber: DEPTH });
    } finally {
      fx.pushPr(DEPTH, prs[DEPTH - 1]!.headSha);
    }
  });

  it('a remembered commit the repository no longer holds is written again', async () => {
    const memo = createComposeMemo();
    const keys = prefixKeys(fx.bare, tip, 'merge_commit', prs.slice(0, 2));
    // As if a repository of the same name had been deleted and created again.
    memo.remember(keys, 1, { prNumber: 1, sha: 'f'.repeat(40) });
    const result = composed((await compose(2, 'merge_commit', memo)).result);
    expect(result).toEqual(composed((await compose(2, 'merge_commit')).result));
  });

  it('a different base, method or commit message is a different composition', () => {
    const key = (base: string, method: MergeMethod, list: PullRequestAtSha[]) =>
      prefixKeys(fx.bare, base, method, list).at(-1);
    const two = prs.slice(0, 2);
    const retitled = [two[0]!, { ...two[1]!, commitMessage: { title: 'Another title' } }];
    const keys = new Set([
      key(tip, 'merge_commit', two),
      key(fx.base, 'merge_commit', two),
      key(tip, 'squash', two),
      key(tip, 'merge_commit', retitled),
      key(tip, 'merge_commit', [two[1]!, two[0]!]),
    ]);
    expect(keys.size).toBe(5);
  });
});

describe('the memo bound', () => {
  it('keeps the most recently used entries and drops the oldest', () => {
    const memo = createComposeMemo(3);
    const keys = ['a', 'b', 'c', 'd'];
    for (let i = 1; i <= 3; i++) memo.remember(keys, i, { prNumber: i, sha: String(i) });
    expect(memo.longestPrefix(['a'])).toHaveLength(1); // 'a' is now the youngest
    memo.remember(keys, 4, { prNumber: 4, sha: '4' }); // drops 'b', the oldest
    expect(memo.longestPrefix(['a', 'b'])).toEqual([{ prNumber: 1, sha: '1' }]);
    expect(memo.longestPrefix(['c'])).toEqual([{ prNumber: 3, sha: '3' }]);
    expect(memo.longestPrefix(['d'])).toEqual([{ prNumber: 4, sha: '4' }]);
  });
});
