/**
 * The composition memo (git/compose-memo.ts) on real git: a queue's runs reuse the commits the run
 * ahead wrote, give exactly the commits a fresh composition writes, and still check every PR's head;
 * a composition on a base an earlier one wrote (the target moved there) reuses the rest; two in flight
 * at once apply a PR they share once. Git processes are counted, not timed.
 */
import { composePullRequests, type Composition } from '../../../git/compose';
import { createComposeMemo, stepKey, type ComposeMemo } from '../../../git/compose-memo';
import { createGit } from '../../../git/git-cli';
import { sharedProcessBroker } from '../../support/shared-brokers';
import type { MergeMethod, PullRequestAtSha } from '../../../git/git-host';
import type { RepoAccess } from '../../../git/commits';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

const DEPTH = 6;

describe('composing a queue with the memo', () => {
  let fx: GitFixture & { base: string };
  let tip: string;
  const prs: PullRequestAtSha[] = [];
  let calls = 0;
  /** The merge-tree processes started: one per PR applied with merge_commit or squash. */
  let merges = 0;
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
    const git = createGit({
      identity: { name: 'railyard', email: 'railyard@localhost' },
      runner: sharedProcessBroker(),
    });
    repo = {
      dir: fx.bare,
      git: (args, opts) => ((calls += 1), args[0] === 'merge-tree' && (merges += 1), git(args, opts)),
    };
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
    // As if a repository of the same name had been deleted and created again.
    const gone = { prNumber: 1, sha: 'f'.repeat(40), tree: 'e'.repeat(40), time: 1 };
    memo.remember(stepKey(fx.bare, tip, 'merge_commit', prs[0]!, []), gone);
    const result = composed((await compose(2, 'merge_commit', memo)).result);
    expect(result).toEqual(composed((await compose(2, 'merge_commit')).result));
  });

  it.each<MergeMethod>(['merge_commit', 'squash', 'rebase'])(
    '%s: a composition on a base an earlier one wrote (the target moved there) reuses the rest of it',
    async (method) => {
      const memo = createComposeMemo();
      const all = composed((await compose(4, method, memo)).result);
      // PR 1 landed: the target is now the commit its step wrote, and the queue composes the rest on it.
      const landed = all.steps[0]!.sha;
      merges = 0;
      const rest = composed(await composePullRequests(repo, landed, prs.slice(1, 4), method, { memo }));
      const fresh = composed(await composePullRequests(repo, landed, prs.slice(1, 4), method));
      expect(rest).toEqual(fresh);
      expect(rest.steps).toEqual(all.steps.slice(1));
      // Nothing applied again with the memo (the fresh composition merged each of its three PRs).
      if (method !== 'rebase') expect(merges).toBe(3);
    },
    60_000,
  );

  it('two compositions in flight at once apply each PR they share once', async () => {
    const memo = createComposeMemo();
    merges = 0;
    // A stacked build starts before the build ahead of it has ended, on the same PRs ahead.
    const [ahead, behind] = await Promise.all([
      composePullRequests(repo, tip, prs.slice(0, 4), 'squash', { memo }),
      composePullRequests(repo, tip, prs.slice(0, 6), 'squash', { memo }),
    ]);
    expect(merges).toBe(6);
    expect(composed(behind).steps.slice(0, 4)).toEqual(composed(ahead).steps);
    expect(composed(behind)).toEqual(
      composed(await composePullRequests(repo, tip, prs.slice(0, 6), 'squash')),
    );
  });

  it('an application, its base, method, message or place in a rebase is a key of its own', () => {
    const [one, two] = [prs[0]!, prs[1]!];
    const keys = new Set([
      stepKey(fx.bare, tip, 'merge_commit', two, [one.headSha]),
      stepKey(fx.bare, fx.base, 'merge_commit', two, [one.headSha]),
      stepKey(fx.bare, tip, 'squash', two, [one.headSha]),
      stepKey(fx.bare, tip, 'merge_commit', { ...two, commitMessage: { title: 'Another title' } }, [
        one.headSha,
      ]),
      stepKey(fx.bare, tip, 'merge_commit', one, []),
      stepKey(fx.bare, tip, 'rebase', two, [one.headSha]),
      stepKey(fx.bare, tip, 'rebase', two, []),
    ]);
    expect(keys.size).toBe(7);
    // The PRs before it change only a rebase (its replay leaves their commits out).
    expect(stepKey(fx.bare, tip, 'squash', two, [])).toBe(
      stepKey(fx.bare, tip, 'squash', two, [one.headSha]),
    );
  });
});

describe('the memo bound', () => {
  it('keeps the most recently used entries and drops the oldest', () => {
    const memo = createComposeMemo(3);
    const step = (n: number) => ({ prNumber: n, sha: String(n), tree: 't', time: n });
    for (const n of [1, 2, 3]) memo.remember(String(n), step(n));
    expect(memo.recall('1')).toEqual(step(1)); // '1' is now the youngest
    memo.remember('4', step(4)); // drops '2', the oldest
    expect(memo.recall('2')).toBeUndefined();
    expect([memo.recall('1'), memo.recall('3'), memo.recall('4')]).toEqual([step(1), step(3), step(4)]);
  });
});
