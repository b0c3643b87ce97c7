/**
 * The queue's git steps that take its side effects along (ADR 0028): a read, a build and a landing
 * start through `SideEffects.ride`, so the effects due when one starts go in that activity instead of
 * a `performSideEffects` call of their own (but those the caller's `keep` leaves for a later call).
 * What a caller gets is the git result alone; when the git work failed with effects aboard, `ride` has
 * started it again by itself.
 */
import type { Ridden, RidingInput } from '../../activities/side-effects/riding';
import { git } from './activity-proxies';
import type { RidingGit } from './context';
import type { Keep } from './side-effect-calls';
import type { SideEffects } from './side-effects';

export function ridingGit(effects: SideEffects): RidingGit {
  const via =
    <I, R>(activity: (input: I & RidingInput) => Promise<Ridden<R>>) =>
    (input: I, keep?: Keep): Promise<R> =>
      effects.ride<R>(
        (sideEffects) => activity(sideEffects ? { ...input, sideEffects } : (input as I & RidingInput)),
        keep,
      );
  return {
    readPullRequest: via(git.readPullRequest),
    buildTestRun: via(git.buildTestRun),
    land: via(git.land),
  };
}
