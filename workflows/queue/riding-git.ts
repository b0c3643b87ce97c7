/**
 * The queue's git steps that take its side effects along (ADR 0028): a read, a build and a landing
 * start through `SideEffects.ride`, so the effects due when one starts go in that activity instead of
 * a `performSideEffects` call of their own (but those the caller's `keep` leaves for a later call).
 * What a caller gets is the git result alone; when the git work failed with effects aboard, `ride` has
 * started it again by itself. A build claims its own run's moves to `testing` (`movesToTestingIn`), so
 * every build delivers its own PRs' with the commit it built (SPLIT_RIDES_PATCH).
 */
import type { Ridden, RidingInput } from '../../activities/side-effects/riding';
import { endsTestingIn } from '../../contract';
import { git } from './activity-proxies';
import type { RidingGit } from './context';
import type { Claim, Keep } from './side-effect-calls';
import type { SideEffects } from './side-effects';

export function ridingGit(effects: SideEffects): RidingGit {
  const via =
    <I, R>(activity: (input: I & RidingInput) => Promise<Ridden<R>>, claimOf?: (input: I) => Claim) =>
    (input: I, keep?: Keep): Promise<R> =>
      effects.ride<R>(
        (sideEffects) => activity(sideEffects ? { ...input, sideEffects } : (input as I & RidingInput)),
        keep,
        claimOf?.(input),
      );
  return {
    readPullRequest: via(git.readPullRequest),
    buildTestRun: via(git.buildTestRun, (input) => movesToTestingIn(input.runId)),
    land: via(git.land),
  };
}

/**
 * A build's claim: the notice deliveries whose last notice moves a PR to
 * `testing` in its run, the ones the build holds and delivers with its commit (held-testing-notices.ts).
 */
export const movesToTestingIn =
  (runId: string): Claim =>
  (e) =>
    e.kind === 'notifyPullRequest' && endsTestingIn(e.notices, runId);
