/**
 * The build's held testing notices (issue 25): when the queue's notice that PRs are `testing` in a run
 * rides along with that run's build (ADR 0028), the build delivers it after building, carrying the
 * commit it built (`testedOn`), instead of before. Each PR's record then learns `testing` and the
 * commit CI checks in one delivery, and the queue sends no details refresh for it: one side-effects
 * call fewer in the queue's history, one signal and workflow task fewer in each PR's.
 *
 * Rules: only a notice delivery whose last notice is the move to `testing` in this very run is held
 * (what follows it in the record needs the commit too, nothing else waits); a build that did not build
 * (a conflict, a moved PR, a failed attempt) delivers the held notices as they were, before the
 * activity completes; the result names the PRs whose notice went with the commit, so the queue sends
 * the refresh for the others only (`testedOnNoticed`, absent from results of workers before it).
 */
import { endsTestingIn, type PrTransitionNotice } from '../../contract';
import type { Holding } from '../side-effects/riding';
import type { SideEffect } from '../side-effects/types';
import type { BuildRunInput, BuildRunResult } from './types';

type NoticeDelivery = Extract<SideEffect, { kind: 'notifyPullRequest' }>;

const lastOf = (e: NoticeDelivery): PrTransitionNotice | undefined => e.notices[e.notices.length - 1];

function movesToTesting(input: BuildRunInput, effect: SideEffect): effect is NoticeDelivery {
  return effect.kind === 'notifyPullRequest' && endsTestingIn(effect.notices, input.runId);
}

export const heldTestingNotices: Holding<BuildRunInput, BuildRunResult> = {
  holds: movesToTesting,

  release(input, result, held) {
    if (result?.kind !== 'built') return held;
    const testedOn = { branch: result.branchName, sha: result.headSha };
    return held.map((e) => {
      if (!movesToTesting(input, e)) return e;
      const last = lastOf(e)!;
      return { ...e, notices: [...e.notices.slice(0, -1), { ...last, testedOn }] };
    });
  },

  told(input, result, performed) {
    if (result.kind !== 'built') return result;
    const prs = performed.filter((e) => movesToTesting(input, e)).map((e) => e.workflow.prNumber);
    return { ...result, testedOnNoticed: prs };
  },
};
