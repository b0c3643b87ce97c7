/**
 * What one side-effects call holds and how its answer is read (side-effects.ts drives the calls): the
 * effects waiting with their attempts, which of them are due, a call's batch and the git work a batch
 * may ride along with (ADR 0028). Pure functions and types: no workflow API but the types.
 *
 * Invariants: a submission's effects are taken in the order they were produced, and one not due holds
 * back its later ones; a refresh that a later notice of its submission in the same call carries whole is
 * not sent; a call that failed as a whole counts every effect as not performed (tried again).
 */
import type { Ridden } from '../../activities/side-effects/riding';
import type { SideEffect, SideEffectsResult } from '../../activities/side-effects/types';
import type {
  PrDetailsRefresh,
  PrTransitionNotice,
  PullRequestWorkflowInput,
  QueueKey,
} from '../../contract';

/**
 * Attempts of an effect other than an append before it is dropped: what each had as an activity of
 * its own (a notice 30, a branch deletion 12, git's budget), so a host that refuses deletions holds
 * continue-as-new no longer than before.
 */
export const MAX_ATTEMPTS: Record<Pending['effect']['kind'], number> = {
  notifyPullRequest: 30,
  refreshPullRequestDetails: 30,
  deleteTestBranch: 12,
};
export const INITIAL_INTERVAL_MS = 1_000;
export const MAXIMUM_INTERVAL_MS = 60_000;

export const backoff = (attempts: number, maximumMs: number) =>
  Math.min(INITIAL_INTERVAL_MS * 2 ** Math.max(0, attempts - 1), maximumMs);

/** An effect waiting for a call; `key` is made unique when it is sent. */
export interface Pending {
  effect: Exclude<SideEffect, { kind: 'appendTransitions' }>;
  attempts: number;
  notBefore: number;
}

/** One call's effects: those sent (with their numbered keys), the append if any, in call order. */
export interface Batch {
  sent: Pending[];
  append: Extract<SideEffect, { kind: 'appendTransitions' }> | null;
  effects: SideEffect[];
}

/** Starts a git activity, with effects aboard or none. */
export type RideStart<R> = (sideEffects: SideEffect[] | undefined) => Promise<Ridden<R>>;

/** Effects a ride leaves waiting for a later call (passed-with-landing.ts), with their submission's later ones. */
export type Keep = (effect: Pending['effect']) => boolean;

/**
 * Effects a ride takes for itself when several start from one pump (SPLIT_RIDES_PATCH): a build claims
 * its own run's move to `testing`, which it delivers after building, with the commit it built.
 */
export type Claim = (effect: Pending['effect']) => boolean;

export interface Rider {
  start: RideStart<unknown>;
  keep?: Keep;
  claim?: Claim;
  resolve: (r: unknown) => void;
  reject: (err: unknown) => void;
}

/** A notice delivery, keyed by its submission and last seq (a retry's key is the same). */
export const noticeEffect = (
  workflow: PullRequestWorkflowInput,
  notices: PrTransitionNotice[],
): Pending['effect'] => ({
  kind: 'notifyPullRequest',
  key: `notify:${workflow.submissionId}:${notices[notices.length - 1]?.seq ?? 0}`,
  workflow,
  notices,
});

export const refreshEffect = (
  workflow: PullRequestWorkflowInput,
  refresh: PrDetailsRefresh,
): Pending['effect'] => ({
  kind: 'refreshPullRequestDetails',
  key: `refresh:${workflow.submissionId}:${refresh.afterSeq}`,
  workflow,
  refresh,
});

export const deletionEffect = (
  repo: QueueKey['repo'],
  branchName: string,
  testBranchPrefix?: string | null,
): Pending['effect'] => ({
  kind: 'deleteTestBranch',
  key: `delete:${branchName}`,
  repo,
  branchName,
  ...(testBranchPrefix ? { testBranchPrefix } : {}),
});

/** The submission whose order an effect keeps, if any. */
export const submissionOf = (e: SideEffect): string | null =>
  e.kind === 'notifyPullRequest' || e.kind === 'refreshPullRequestDetails' ? e.workflow.submissionId : null;

/**
 * Takes the effects due now out of `waiting`, keeping each submission's order (one not due, or kept,
 * holds back its later ones). With `keep = e => !claim(e)` it takes what a ride claims, and a
 * submission's claimed effect behind one it does not claim stays for the common call.
 */
export function takeDue(waiting: Pending[], now: number, keep?: Keep): Pending[] {
  const held = new Set<string>();
  const due: Pending[] = [];
  const rest: Pending[] = [];
  for (const p of waiting) {
    const submission = submissionOf(p.effect);
    if (p.notBefore > now || keep?.(p.effect) || (submission !== null && held.has(submission))) {
      if (submission !== null) held.add(submission);
      rest.push(p);
    } else due.push(p);
  }
  waiting.splice(0, waiting.length, ...rest);
  return withoutSupersededRefreshes(due);
}

/** Drops a refresh when a later notice of its submission in the same call carries all it says. */
function withoutSupersededRefreshes(due: Pending[]): Pending[] {
  return due.filter((p, i) => {
    const e = p.effect;
    if (e.kind !== 'refreshPullRequestDetails') return true;
    return !due
      .slice(i + 1)
      .some(
        ({ effect: later }) =>
          later.kind === 'notifyPullRequest' &&
          later.workflow.submissionId === e.workflow.submissionId &&
          later.notices.some((n) => n.seq > e.refresh.afterSeq && (!e.refresh.testedOn || n.testedOn)),
      );
  });
}

/**
 * Each rider's claim when it claims an effect due now. With `firstTakesRest` (no call in flight) the
 * first rider never claims: it takes the rest.
 */
export function claimsDue(
  riders: readonly Rider[],
  waiting: readonly Pending[],
  now: number,
  firstTakesRest: boolean,
): (Claim | null)[] {
  if (firstTakesRest && riders.length < 2) return [];
  return riders.map((r, i) =>
    (i > 0 || !firstTakesRest) && r.claim && waiting.some((p) => p.notBefore <= now && r.claim!(p.effect))
      ? r.claim
      : null,
  );
}

/**
 * What a call's result means for the effects it sent: the submissions whose notice was delivered, those
 * to try again after a backoff (their keys as produced), and those dropped (past their attempts, or
 * failed for good).
 */
export function outcomes(
  sent: readonly Pending[],
  done: ReadonlySet<string>,
  failed: ReadonlyMap<string, { error: string; retryable?: boolean }>,
  now: number,
): { delivered: string[]; again: Pending[]; dropped: { key: string; attempts: number; error?: string }[] } {
  const delivered: string[] = [];
  const again: Pending[] = [];
  const dropped: { key: string; attempts: number; error?: string }[] = [];
  for (const p of sent) {
    const e = p.effect;
    if (done.has(e.key)) {
      if (e.kind === 'notifyPullRequest') delivered.push(e.workflow.submissionId);
      continue;
    }
    const f = failed.get(e.key);
    const attempts = p.attempts + 1;
    if (f?.retryable !== false && attempts < MAX_ATTEMPTS[e.kind])
      again.push({
        effect: { ...e, key: keyOf(e.key) },
        attempts,
        notBefore: now + backoff(attempts, MAXIMUM_INTERVAL_MS),
      });
    else dropped.push({ key: e.key, attempts, error: f?.error });
  }
  return { delivered, again, dropped };
}

/**
 * Numbers the keys of one call by their occurrence among equal keys (`1:delete:b`, `2:delete:b`), so a
 * call's keys are unique and each names its effect whatever the call's order (PUMP_IN_TURN_PATCH: on a
 * replay that merged two tasks' activations, the same effects can come in another order, and a number
 * by position would match a live result's key to another effect).
 */
export function occurrenceKeys(): (key: string) => string {
  const seen = new Map<string, number>();
  return (key) => {
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return `${n}:${key}`;
  };
}

/** The key an effect was produced with, without the call's numbering. */
export function keyOf(sentKey: string): string {
  return sentKey.slice(sentKey.indexOf(':') + 1);
}

/** Every effect of `batch` failed, to be tried again (a call whose retries ran out, a lost ride). */
export function notPerformed(batch: Batch, error: string): SideEffectsResult {
  return { done: [], failed: batch.effects.map((e) => ({ key: e.key, error, retryable: true })) };
}

export const rideFailed = <R>(r: Ridden<R>): r is Extract<Ridden<R>, { rideFailed: string }> =>
  typeof r === 'object' && r !== null && 'rideFailed' in r;

/** Git work started again after a ride on which it failed: no effects aboard, Temporal's retries. */
export async function alone<R>(start: RideStart<R>): Promise<R> {
  const r = await start(undefined);
  // Without effects the activity throws its failure; a ride failure here would be a worker's bug.
  if (rideFailed(r)) throw new Error(r.rideFailed);
  return r;
}
