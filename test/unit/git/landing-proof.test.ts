/**
 * Landing proof (docs/git-host.md, "Landing proof"), the land activity over the real local git host:
 * a landing carries the tree the run tested and the tree the target held right after it; a tested
 * commit whose host object no longer holds the tested tree (here a replace ref planted after the build)
 * is refused with LANDED_TREE_DIFFERS and nothing moves.
 */
import { createGitActivities } from '../../../activities/merge-queue/git-activities';
import type { LandInput } from '../../../activities/merge-queue/types';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

let fx: GitFixture & { base: string };
beforeEach(async () => {
  fx = await createRepoWithMain();
});
afterEach(() => fx.cleanup());

const activities = () =>
  createGitActivities({ gitHost: fx.host, ownership: { owns: () => Promise.resolve(true) } });

/** Opens PR 7 adding `f.txt` and builds its test branch on main; returns the build. */
async function built() {
  fx.branchFrom('pr-7', fx.base);
  const head = fx.commit('Add f', { 'f.txt': 'f\n' });
  fx.pushPr(7, head);
  const r = await activities().buildTestRun({
    organisationId: 'org',
    repo: fx.repo,
    targetBranch: 'main',
    runId: 'run-1',
    branchPr: 7,
    buildOnSha: null,
    prs: [{ number: 7, headSha: head }],
    mergeMethod: 'squash',
  });
  if (r.kind !== 'built') throw new Error(JSON.stringify(r));
  return { ...r, pr: { number: 7, headSha: head } };
}

const landing = (b: Awaited<ReturnType<typeof built>>): LandInput => ({
  organisationId: 'org',
  repo: fx.repo,
  targetBranch: 'main',
  via: 'tested_commit',
  testedSha: b.headSha,
  testedTree: b.headTree ?? null,
  expectedTipSha: fx.base,
  prs: [b.pr],
  mergeMethod: 'squash',
  mergeId: 'm1',
});

test('a build records the tested tree; a landing carries it and the tree main holds afterwards', async () => {
  const b = await built();
  expect(b.headTree).toBe(fx.bareGit('rev-parse', `${b.headSha}^{tree}`));
  const r = await activities().land(landing(b));
  expect(r).toEqual({
    kind: 'landed',
    tipSha: b.headSha,
    proof: { testedTree: b.headTree, landedTree: b.headTree, rebased: false },
  });
  expect(fx.tip('main')).toBe(b.headSha);
});

test('a tested commit whose host object holds another tree is refused, and main does not move', async () => {
  const b = await built();
  // Planted after the build: the tested id now resolves to another commit (an empty tree).
  const tree = fx.bareGit('rev-parse', `${b.headSha}^{tree}`);
  const other = fx.bareGit('commit-tree', fx.bareGit('mktree', '--missing'), '-p', fx.base, '-m', 'other');
  fx.bareGit('replace', b.headSha, other);
  expect(fx.bareGit('rev-parse', `${b.headSha}^{tree}`)).not.toBe(tree);
  const r = await activities().land(landing(b));
  expect(r).toMatchObject({ kind: 'rejected', reason: 'LANDED_TREE_DIFFERS' });
  expect(r.kind === 'rejected' && r.detail).toMatch(
    new RegExp(
      `Refused to move main to ${b.headSha}: the host holds tree [0-9a-f]{40} for that commit, not the tree ${tree} its test run tested`,
    ),
  );
  expect(fx.tip('main')).toBe(fx.base);
});

test('a direct merge carries no tested tree; the landed tree is read back', async () => {
  fx.branchFrom('pr-8', fx.base);
  const head = fx.commit('Add g', { 'g.txt': 'g\n' });
  fx.pushPr(8, head);
  const r = await activities().land({
    organisationId: 'org',
    repo: fx.repo,
    targetBranch: 'main',
    via: 'direct',
    testedSha: null,
    expectedTipSha: fx.base,
    prs: [{ number: 8, headSha: head }],
    mergeMethod: 'merge_commit',
    mergeId: 'm2',
  });
  expect(r).toEqual({
    kind: 'landed',
    tipSha: fx.tip('main'),
    proof: { testedTree: null, landedTree: fx.bareGit('rev-parse', 'main^{tree}'), rebased: false },
  });
});
