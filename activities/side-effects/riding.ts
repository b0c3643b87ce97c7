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
 * - An activity may hold some effects aboard until its git work answered (`Holding`): they are
 *   performed after it, as the result changes them, whether the work succeeded or failed, before the
 *   activity completes. So they are never later than one attempt of the git work, and an effect that
 *   is not held keeps its place first.
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
 * Effects an activity performs after its git work instead of before (the build's testing notices,
 * which then carry the commit built: held-testing-notices.ts).
 */
export interface Holding<I, R> {
  holds(input: I, effect: SideEffect): boolean;
  /** The held effects to perform now the work answered `result` (undefined: it failed). */
  release(input: I, result: R | undefined, held: SideEffect[]): SideEffect[];
  /** The result told which of the released effects were performed. */
  told(input: I, result: R, performed: SideEffect[]): R;
}

const joined = (a: SideEffectsResult, b: SideEffectsResult): SideEffectsResult => ({
  done: [...a.done, ...b.done],
  failed: [...a.failed, ...b.failed],
  ...(a.appended ? { appended: a.appended } : {}),
});

/**
 * `work` (a git activity's function, not yet heartbeating) taking effects along: heartbeating every
 * `everyMs` while it runs, as every git activity does.
 */
export function riding<I, R>(
  perform: (input: SideEffectsInput) => Promise<SideEffectsResult>,
  work: (input: I) => Promise<R>,
  everyMs: number,
  holding?: Holding<I, R>,
): (input: I & RidingInput) => Promise<Ridden<R>> {
  return async (input) => {
    const { sideEffects, ...own } = input;
    if (!sideEffects || sideEffects.length === 0)
      return (await whileHeartbeating(() => work(own as I), everyMs)) as Ridden<R>;
    const mine = own as I;
    const held = holding ? sideEffects.filter((e) => holding.holds(mine, e)) : [];
    const first = held.length > 0 ? sideEffects.filter((e) => !held.includes(e)) : sideEffects;
    const effects = first.length > 0 ? await perform({ effects: first }) : { done: [], failed: [] };
    /** The held effects, released for `result`, performed; what they did and which were done. */
    const after = async (result: R | undefined) => {
      if (!holding || held.length === 0) return { all: effects, performed: [] as SideEffect[] };
      const released = holding.release(mine, result, held);
      const later = await perform({ effects: released });
      const done = new Set(later.done);
      return { all: joined(effects, later), performed: released.filter((e) => done.has(e.key)) };
    };
    let result: R;
    try {
      result = await whileHeartbeating(() => work(mine), everyMs, effects.done);
    } catch (err) {
      // Not thrown: the workflow must learn what the effects did now, not after the git retries.
      return { rideFailed: messageOf(err), sideEffects: (await after(undefined)).all };
    }
    const { all, performed } = await after(result);
    const told = holding && held.length > 0 ? holding.told(mine, result, performed) : result;
    return { ...told, sideEffects: all };
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
