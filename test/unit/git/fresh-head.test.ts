/**
 * A run's head no earlier run tested (git/fresh-head.ts, issue 28): the pure rewrite (same tree,
 * parents, author and message; committer date later; deterministic; at most avoid.size + 1 tries) and
 * the composition's use of it on real git with each merge method (the memo keeps the pure commit).
 */
import { composePullRequests, type Composition } from '../../../git/compose';
import { createComposeMemo } from '../../../git/compose-memo';
import { readCommit, type RepoAccess } from '../../../git/commits';
import { createGit } from '../../../git/git-cli';
import { sharedProcessBroker } from '../../support/shared-brokers';
import type { MergeMethod, PullRequestAtSha } from '../../../git/git-host';
import {
  commitObjectId,
  firstUnusedRewrite,
  freshHead,
  withLaterCommitterDate,
} from '../../../git/fresh-head';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

const RAW =
  'tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n' +
  'parent 1111111111111111111111111111111111111111\n' +
  'author Ada <ada@example.com> 1700000000 +0200\n' +
  'committer railyard <railyard@localhost> 1700000005 -0130\n' +
  '\n' +
  'Squash PR (#1)\n\ncommitter 1 2 3\n';
const SHA = commitObjectId(RAW, 'sha1');

describe('the rewrite (pure)', () => {
  it('moves only the committer date, by the seconds asked', () => {
    const later = withLaterCommitterDate(RAW, 3);
    expect(later).toBe(RAW.replace('1700000005 -0130', '1700000008 -0130'));
    // The message's look-alike line is not a header.
    expect(later.endsWith('committer 1 2 3\n')).toBe(true);
  });

  it('is the commit itself when nothing is avoided past it, deterministic otherwise', () => {
    const avoid = new Set([SHA]);
    const a = firstUnusedRewrite(RAW, SHA, avoid);
    const b = firstUnusedRewrite(RAW, SHA, new Set([SHA]));
    expect(a).toEqual(b);
    expect(a.seconds).toBe(1);
    expect(a.sha).not.toBe(SHA);
    expect(a.sha).toBe(commitObjectId(withLaterCommitterDate(RAW, 1), 'sha1'));
  });

  it('skips rewrites that are avoided too, and tries at most avoid.size + 1 of them', () => {
    // Every earlier rewrite was tested already (a third retry): the next second is taken.
    const earlier = [1, 2, 3].map((s) => commitObjectId(withLaterCommitterDate(RAW, s), 'sha1'));
    const avoid = new Set([SHA, ...earlier, 'a'.repeat(40), 'b'.repeat(40)]);
    const found = firstUnusedRewrite(RAW, SHA, avoid);
    expect(found.seconds).toBe(4);
    expect(avoid.has(found.sha)).toBe(false);
    expect(found.seconds).toBeLessThanOrEqual(avoid.size + 1);
  });

  it('refuses a commit whose text does not give its id (no silent other commit)', () => {
    expect(() => firstUnusedRewrite(RAW, 'c'.repeat(40), new Set(['c'.repeat(40)]))).toThrow(
      /does not round-trip/,
    );
  });
});

describe('composing with heads to avoid (real git)', () => {
  let fx: GitFixture & { base: string };
  let repo: RepoAccess;
  const prs: PullRequestAtSha[] = [];

  beforeAll(async () => {
    fx = await createRepoWithMain();
    for (let n = 1; n <= 2; n++) {
      fx.branchFrom(`pr-${n}`, fx.base);
      const sha = fx.commit(`PR ${n}`, { [`pr-${n}.txt`]: `${n}\n` });
      fx.pushPr(n, sha);
      prs.push({ number: n, headSha: sha });
    }
    repo = {
      dir: fx.bare,
      git: createGit({
        identity: { name: 'railyard', email: 'railyard@localhost' },
        runner: sharedProcessBroker(),
      }),
    };
  });
  afterAll(() => fx.cleanup());

  const composed = (c: Composition) => {
    if (c.kind !== 'composed') throw new Error(`expected a composition, got ${JSON.stringify(c)}`);
    return c;
  };

  it.each<MergeMethod>(['merge_commit', 'squash', 'rebase'])(
    '%s: a retry gets a new head with the same tree, parents, author and message, the same on every build',
    async (method) => {
      const memo = createComposeMemo();
      const first = composed(await composePullRequests(repo, fx.base, prs, method, { memo }));
      const retry = composed(
        await composePullRequests(repo, fx.base, prs, method, { memo, avoidShas: [first.headSha] }),
      );
      expect(retry.headSha).not.toBe(first.headSha);
      // Only the last step is new; a landing of PR 1 alone is the same commit as before.
      expect(retry.steps.slice(0, -1)).toEqual(first.steps.slice(0, -1));
      expect(retry.steps.at(-1)).toEqual({ prNumber: 2, sha: retry.headSha });
      const [was, now] = await Promise.all([
        readCommit(repo, first.headSha),
        readCommit(repo, retry.headSha),
      ]);
      expect(now).toEqual({
        ...was,
        sha: retry.headSha,
        committer: { ...was.committer, time: was.committer.time + 1 },
      });
      // A retried build activity (no memo: another worker) writes that very commit again.
      const again = composed(
        await composePullRequests(repo, fx.base, prs, method, { avoidShas: [first.headSha] }),
      );
      expect(again).toEqual(retry);
      // The memo kept the pure composition: without heads to avoid, the first commit again.
      expect(composed(await composePullRequests(repo, fx.base, prs, method, { memo })).headSha).toBe(
        first.headSha,
      );
      // A third run avoids both.
      const third = composed(
        await composePullRequests(repo, fx.base, prs, method, {
          memo,
          avoidShas: [first.headSha, retry.headSha],
        }),
      );
      expect(new Set([first.headSha, retry.headSha, third.headSha]).size).toBe(3);
      expect((await readCommit(repo, third.headSha)).committer.time).toBe(was.committer.time + 2);
    },
  );

  it('leaves a head no run tested as it is, without reading it', async () => {
    let calls = 0;
    const counted: RepoAccess = { dir: repo.dir, git: (a, o) => ((calls += 1), repo.git(a, o)) };
    expect(await freshHead(counted, prs[0]!.headSha, ['d'.repeat(40)])).toBe(prs[0]!.headSha);
    expect(calls).toBe(0);
  });
});
