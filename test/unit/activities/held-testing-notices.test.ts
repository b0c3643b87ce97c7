/**
 * heldTestingNotices (activities/merge-queue/held-testing-notices.ts): which notice deliveries riding
 * with a build wait for it, what they carry once it built, and which PRs the result names.
 */
import { heldTestingNotices as h } from '../../../activities/merge-queue/held-testing-notices';
import type { BuildRunInput, BuildRunResult } from '../../../activities/merge-queue/types';
import type { SideEffect } from '../../../activities/side-effects/types';
import type { PrTransitionNotice } from '../../../contract';

const key = {
  organisationId: 'org',
  repo: { host: 'local' as const, owner: 'o', name: 'r' },
  targetBranch: 'main',
};
const input = { runId: 'run-1', prs: [] } as unknown as BuildRunInput;

function notice(pr: number, seq: number, to: 'pending' | 'testing', runId?: string): PrTransitionNotice {
  return {
    submissionId: `s${pr}`,
    seq,
    transition: { at: 1, from: null, to, reason: 'USER_REQUESTED', testRunId: runId ?? null },
    details: {} as PrTransitionNotice['details'],
  };
}

function delivery(pr: number, notices: PrTransitionNotice[]): SideEffect {
  return {
    kind: 'notifyPullRequest',
    key: `1:notify:s${pr}:${notices.length}`,
    workflow: { key, prNumber: pr, submissionId: `s${pr}`, submittedAt: 0 },
    notices,
  };
}

const built: BuildRunResult = { kind: 'built', branchName: 'b', baseSha: 'base', headSha: 'head' };
const lastTestedOn = (e: SideEffect) =>
  e.kind === 'notifyPullRequest' ? e.notices[e.notices.length - 1]!.testedOn : 'not a notice';

test('held: a delivery whose last notice moves to testing in this run, nothing else', () => {
  expect(h.holds(input, delivery(1, [notice(1, 1, 'pending'), notice(1, 2, 'testing', 'run-1')]))).toBe(true);
  // Another run's testing, a delivery that ends elsewhere, and other kinds go first as before.
  expect(h.holds(input, delivery(2, [notice(2, 2, 'testing', 'run-0')]))).toBe(false);
  expect(h.holds(input, delivery(3, [notice(3, 1, 'testing', 'run-1'), notice(3, 2, 'pending')]))).toBe(
    false,
  );
  expect(h.holds(input, { kind: 'deleteTestBranch', key: 'd', repo: key.repo, branchName: 'x' })).toBe(false);
});

test('released after a build: the testing notice carries the commit built; the notices before it are untouched', () => {
  const e = delivery(1, [notice(1, 1, 'pending'), notice(1, 2, 'testing', 'run-1')]);
  const [out] = h.release(input, built, [e]);
  expect(out!.kind === 'notifyPullRequest' && out!.notices.map((n) => n.testedOn)).toEqual([
    undefined,
    { branch: 'b', sha: 'head' },
  ]);
  expect(lastTestedOn(e)).toBeUndefined();
});

test('released after no build (a conflict, or the git work failed): as they were', () => {
  const e = delivery(1, [notice(1, 2, 'testing', 'run-1')]);
  const conflict: BuildRunResult = { kind: 'conflict', prNumber: 1, detail: 'x' };
  expect(h.release(input, conflict, [e])).toEqual([e]);
  expect(h.release(input, undefined, [e])).toEqual([e]);
});

test('told: the PRs whose testing notice went with the commit, only for a build', () => {
  const done = h.release(input, built, [delivery(1, [notice(1, 2, 'testing', 'run-1')])]);
  expect(h.told(input, built, done)).toEqual({ ...built, testedOnNoticed: [1] });
  expect(h.told(input, built, [])).toEqual({ ...built, testedOnNoticed: [] });
  const moved: BuildRunResult = { kind: 'pr_moved', prNumber: 1, actualSha: 'x' };
  expect(h.told(input, moved, done)).toEqual(moved);
});
