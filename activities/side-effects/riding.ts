/**
 * Side effects riding along with a git activity (ADR 0028): the queue workflow may hand the effects
 * due when it starts `readPullRequest`, `buildTestRun` or `land` to that activity instead of starting
 * `performSideEffects` for them, so a decision that starts git work costs its history one activity, not
 * two, and the workflow task that takes the git result takes the effects' result with it.
 *
 * Rules:
 * - The effects go first, exactly as `performSideEffects` performs them (the same function: order,
 *   idempotence, failures reported, not thrown); the git work follows whatever they did.
 * - The effects' result comes back with the git result. If the git work fails, the activity still
 *   completes, with `rideFailed` and the effects' result: the workflow learns at once what the effects
 *   did and starts the git work again by itself, under Temporal's retry policy. So effects never wait
 *   on a git activity's retries, only on one attempt of it.
 * - Heartbeats carry the keys of the effects done: an attempt after a worker died mid-git skips them
 *   (the git work alone is made again).
 */
import { whileHeartbeating } from '../heartbeat';
import type { SideEffect, SideEffectsInput, SideEffectsResult } from './types';

/** What a git activity's input may carry besides its own fields. */
export interface RidingInput {
  sideEffects?: SideEffect[];
}

/** What a git activity answers when effects rode along: its own result, or the git work failed. */
export type Ridden<R> =
  | (R & { sideEffects?: SideEffectsResult })
  /** `kind` absent, so callers switching on their result's kind narrow past this one too. */
  | { kind?: undefined; rideFailed: string; sideEffects: SideEffectsResult };

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * `work` (a git activity's function, not yet heartbeating) taking effects along: heartbeating every
 * `everyMs` while it runs, as every git activity does.
 */
export function riding<I, R>(
  perform: (input: SideEffectsInput) => Promise<SideEffectsResult>,
  work: (input: I) => Promise<R>,
  everyMs: number,
): (input: I & RidingInput) => Promise<Ridden<R>> {
  return async (input) => {
    const { sideEffects, ...own } = input;
    if (!sideEffects || sideEffects.length === 0)
      return (await whileHeartbeating(() => work(own as I), everyMs)) as Ridden<R>;
    const effects = await perform({ effects: sideEffects });
    try {
      const result = await whileHeartbeating(() => work(own as I), everyMs, effects.done);
      return { ...result, sideEffects: effects };
    } catch (err) {
      // Not thrown: the workflow must learn what the effects did now, not after the git retries.
      return { rideFailed: messageOf(err), sideEffects: effects };
    }
  };
}

/** A worker built without a performer: every effect that rode along fails, for good. */
export const performNoSideEffects = (input: SideEffectsInput): Promise<SideEffectsResult> =>
  Promise.resolve({
    done: [],
    failed: input.effects.map((e) => ({
      key: e.key,
      error: 'this worker performs no side effects',
      retryable: false,
    })),
  });
