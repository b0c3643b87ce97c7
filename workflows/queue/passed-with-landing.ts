/**
 * A landing's PRs learn `tests_passed` and `merged` in one delivery (issue 25): the notices that a
 * landing's PRs passed wait for the landing's result instead of riding along with the land activity,
 * and go in the call after it with the `merged` notices the result brings; that call delivers a
 * submission's notices in one signal (activities/side-effects). Each merged PR's workflow then takes
 * one signal, one workflow task and one search-attribute upsert fewer. The cost: the record shows
 * `tests_passed` as late as the landing takes (its transition's time is unchanged).
 *
 * Rule: kept is a notice delivery of one of the landing's PRs whose last notice is the move to
 * `tests_passed` (its submission's later effects wait with it, side-effect-calls.ts). Runs that began
 * before PASSED_WITH_LANDING_PATCH let them ride along, as they did live.
 */
import { patched } from '@temporalio/workflow';
import type { Keep } from './side-effect-calls';
import { PASSED_WITH_LANDING_PATCH } from './side-effect-patches';

export function passedWithLanding(prs: readonly number[]): Keep | undefined {
  if (!patched(PASSED_WITH_LANDING_PATCH)) return undefined;
  return (e) =>
    e.kind === 'notifyPullRequest' &&
    prs.includes(e.workflow.prNumber) &&
    e.notices[e.notices.length - 1]?.transition.to === 'tests_passed';
}
