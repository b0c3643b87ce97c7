/**
 * SideEffects: the queue workflow's side of `performSideEffects` (activities/side-effects). What a
 * decision changes outside the workflow (its transitions for the event log, its PRs' notices and
 * details refreshes, the deletion of finished runs' test branches) is collected here and handed to one
 * activity call, not one activity per effect and PR. When the decision starts git work (a read, a
 * build, a landing), the effects ride along with that activity instead (ADR 0028, `ride`): the call
 * costs the history nothing of its own. Otherwise the call is a regular activity
 * (REGULAR_SIDE_EFFECTS_PATCH says why); runs that began before that patch made it a local activity
 * while the queue was quiet (one marker event instead of three activity events and a workflow task),
 * and their histories still replay that way (LOCAL_CALL_BOUND_MS says how such a call is bounded).
 *
 * Invariants:
 * - One call at a time, in the order the effects were produced: what a decision adds while a call is
 *   in flight goes in the next call, so a submission's notices reach its workflow in seq order and a
 *   busy queue sends fewer, larger calls. Effects added in one turn of the loop go in one call (a call
 *   starts from the turn, after the drain that produced them: side-effect-patches.ts says why). A ride is
 *   a call: its git activity starts from that same pump, and the call lasts until the activity ends;
 *   the effects aboard are settled before a git failure is retried (the git work then goes alone).
 *   A build takes its own run's moves to `testing` (claimed rides, `aside`: SPLIT_RIDES_PATCH says
 *   how), unless the call in flight holds its submission; only its submissions wait for it.
 * - The event log's transitions live in the carried state (`Carried.unstored`) until an append stored
 *   them, so they survive PostgreSQL being down for any length of time and continue-as-new. The
 *   oldest MAX_APPEND_BATCH go first in each call (the append before the notices, but a claimed
 *   build's: SPLIT_RIDES_PATCH says when its PR may show it first). After a failed append the
 *   transitions go by themselves, through the `appendTransitions` activity, retried by Temporal
 *   without limit (capped backoff: an outage shows as that activity failing, as operations.md's alert
 *   expects), one at a time, until none is left; the other effects go on meanwhile without them.
 * - Another failed effect is tried again, in its submission's order, after a backoff; past
 *   its MAX_ATTEMPTS (or when it cannot pass) it is logged and dropped, as a failed activity was before.
 * - A details refresh that a later notice of the same submission in the same call supersedes (its
 *   details and the commit it names) is not sent.
 * - Each append carries the delta of the queue's view in the read projection since the view it last
 *   acknowledged (view-sync.ts, ADR 0016), so the append writes the entries that changed and asks the
 *   workflow nothing; at most one append (with its delta) is in flight.
 * - Continue-as-new waits for the effects other than appends (one tracked unit while any is pending
 *   or in flight: QueueContext.track); it never waits for the database.
 */
import { log, patched, sleep } from '@temporalio/workflow';
import { appendUntilStored, MAX_APPEND_BATCH } from './append-alone';
import type { Activities } from '../../activities';
import type { SideEffect, SideEffectsResult } from '../../activities/side-effects/types';
import type { Ridden } from '../../activities/side-effects/riding';
import type { TransitionEvent } from '../../events/types';
import type { PrDetailsRefresh, PrTransitionNotice, PullRequestWorkflowInput } from '../../contract';
import type { QueueContext } from './context';
import {
  alone,
  claimsDue,
  deletionEffect,
  noticeEffect,
  notPerformed,
  occurrenceKeys,
  outcomes,
  refreshEffect,
  rideFailed,
  submissionOf,
  takeDue,
  type Batch,
  type Claim,
  type Keep,
  type Pending,
  type RideStart,
  type Rider,
} from './side-effect-calls';
import { sideEffectProxies } from './activity-proxies';
import {
  PUMP_IN_TURN_PATCH,
  REGULAR_SIDE_EFFECTS_PATCH,
  RIDE_ALONG_PATCH,
  SPLIT_RIDES_PATCH,
} from './side-effect-patches';
import { ViewSync } from './view-sync';

export const DEFAULT_APPEND_MAXIMUM_INTERVAL_MS = 30_000;

export class SideEffects {
  private readonly performLocal: Activities['performSideEffects'];
  private readonly perform: Activities['performSideEffects'];
  private readonly appendAlone: Activities['appendTransitions'];
  private readonly waiting: Pending[] = [];
  /** Git work waiting for the next pump, to take the effects along (`ride`). */
  private readonly riders: Rider[] = [];
  private calling = false;
  /** Submissions whose effects a claimed ride holds (SPLIT_RIDES_PATCH); theirs wait until it ends. */
  private readonly aside = new Set<string>();
  /** Submissions whose effects the call in flight holds. */
  private readonly inCallOf = new Set<string>();
  private scheduled = false;
  /** PUMP_IN_TURN_PATCH: pumps from the loop's turn; `wanted` when one should. */
  private readonly inTurn: boolean;
  private wanted = false;
  /** When a timer will pump again (null: none set). */
  private wakeAt: number | null = null;
  /** Appends go by themselves (after one failed), not in the calls. */
  private appending = false;
  private keys = 0;
  /** Releases the tracked unit continue-as-new waits for; null while nothing but appends is due. */
  private release: (() => void) | null = null;
  /** The effects of the call in flight other than its append. */
  private inCall = 0;
  /** The last local call failed (its bound, most likely): the next goes as a regular activity. */
  private localFailed = false;
  /** The queue's view in the read projection: the delta each append carries. */
  private readonly views: ViewSync;

  constructor(
    private readonly ctx: QueueContext,
    /** Told of every notice delivered to its PR workflow. */
    private readonly onDelivered: (submissionId: string) => void,
    /** The longest pause between append attempts (test hook: QueueWorkflowInput). */
    appendMaximumIntervalMs = DEFAULT_APPEND_MAXIMUM_INTERVAL_MS,
  ) {
    ({
      performLocal: this.performLocal,
      perform: this.perform,
      appendAlone: this.appendAlone,
    } = sideEffectProxies(appendMaximumIntervalMs));
    this.views = new ViewSync(ctx.carried, ctx.key);
    this.inTurn = patched(PUMP_IN_TURN_PATCH);
    // Transitions a previous run could not store go first.
    this.schedule();
  }

  /** No transition waits to be stored. */
  get idle(): boolean {
    return this.ctx.carried.unstored.length === 0;
  }

  /** Transitions for the event log, after those not stored yet. */
  store(events: readonly TransitionEvent[]): void {
    this.ctx.carried.unstored.push(...events);
    this.schedule();
  }

  notify(workflow: PullRequestWorkflowInput, notices: PrTransitionNotice[]): void {
    this.add(noticeEffect(workflow, notices));
  }

  refresh(workflow: PullRequestWorkflowInput, refresh: PrDetailsRefresh): void {
    this.add(refreshEffect(workflow, refresh));
  }

  deleteTestBranch(branchName: string, testBranchPrefix?: string | null): void {
    this.add(deletionEffect(this.ctx.key.repo, branchName, testBranchPrefix));
  }

  private add(effect: Pending['effect']): void {
    this.waiting.push({ effect, attempts: 0, notBefore: 0 });
    this.schedule();
  }

  /** A pump is due: the loop's next turn should run one (`pumpInTurn`). */
  get wantsPump(): boolean {
    return this.wanted;
  }

  /** The loop's turn, after its drain: one pump for whatever asked for it since the last. */
  pumpInTurn(): void {
    if (!this.wanted) return;
    this.wanted = false;
    this.pump();
  }

  /**
   * Asks for a pump: from the loop's next turn (PUMP_IN_TURN_PATCH), or, in runs that began before it,
   * once the current activation's synchronous work (a whole drain) has added its effects.
   */
  private schedule(): void {
    this.track();
    if (this.inTurn) {
      this.wanted = true;
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    void Promise.resolve().then(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    // Git work waiting for a ride starts now: each with what it claims, the first of them with the
    // effects due if no call is in flight.
    const riders = this.riders.splice(0);
    const own = this.claimedBatches(riders);
    riders.forEach((rider, i) => this.startRider(rider, own[i]));
    if (this.calling) return;
    const batch = this.prepare();
    if (!batch) {
      this.wakeForNext(Date.now());
      this.track();
      return;
    }
    this.begin(batch);
    void this.call(batch).finally(() => this.end(batch));
  }

  /**
   * The call in flight (`calling`), or a claimed ride beside it (`aside`: its submissions wait for it,
   * the rest goes on; it never holds the append).
   */
  private begin(batch: Batch, aside = false): void {
    if (aside) for (const p of batch.sent) this.aside.add(submissionOf(p.effect)!);
    else {
      this.calling = true;
      for (const id of batch.sent.map((p) => submissionOf(p.effect))) if (id) this.inCallOf.add(id);
    }
    this.inCall += batch.sent.length;
    this.track();
  }

  private end(batch: Batch, aside = false): void {
    if (aside) for (const p of batch.sent) this.aside.delete(submissionOf(p.effect)!);
    else {
      this.calling = false;
      this.inCallOf.clear();
    }
    this.inCall -= batch.sent.length;
    this.pumpAgain();
  }

  /** After a call, a timer or the appends by themselves: from the next turn, or at once in older runs. */
  private pumpAgain(): void {
    if (this.inTurn) this.schedule();
    else this.pump();
  }

  /**
   * Starts `start` (git work) from the next pump, the effects due then (but those `keep` leaves for a
   * later call) riding along when no call is in flight (RIDE_ALONG_PATCH; activities/side-effects/riding.ts),
   * and answers the git result. When the git work failed with effects aboard, it is started again alone.
   */
  ride<R>(start: RideStart<R>, keep?: Keep, claim?: Claim): Promise<R> {
    // Runs recorded before it start their git work at once, without effects (the commands they had).
    if (!patched(RIDE_ALONG_PATCH)) return start(undefined) as Promise<R>;
    return new Promise<Ridden<R>>((resolve, reject) => {
      const rider: Rider = { start, resolve: resolve as (r: unknown) => void, reject };
      this.riders.push({ ...rider, ...(keep ? { keep } : {}), ...(claim ? { claim } : {}) });
      this.schedule();
    }).then((r) => (rideFailed(r) ? alone(start) : r));
  }

  /** Rides of one pump: each gets what it claims, but the first when no call is in flight (the rest). */
  private claimedBatches(riders: Rider[]): (Batch | null | undefined)[] {
    const claims = claimsDue(riders, this.waiting, Date.now(), !this.calling);
    if (!claims.some(Boolean) || !patched(SPLIT_RIDES_PATCH)) return [];
    return claims.map((claim) => {
      const own = claim ? this.prepareOwn(claim) : undefined;
      // Aside from now on, so the first ride's batch leaves the rest of these submissions waiting.
      if (own) this.begin(own, true);
      return own;
    });
  }

  /** `own`: the batch claimed for it (claimedBatches); otherwise the effects due, if no call is in flight. */
  private startRider(rider: Rider, own?: Batch | null): void {
    const batch = own !== undefined ? own : this.calling ? null : this.prepare(rider.keep);
    if (!batch) {
      rider.start(undefined).then(rider.resolve, rider.reject);
      return;
    }
    const aside = own !== undefined;
    if (!aside) this.begin(batch);
    rider
      .start(batch.effects)
      .then(
        (r) => {
          // A worker that does not take effects along (an older one, mid-upgrade) performed none.
          this.settle(batch, r.sideEffects ?? notPerformed(batch, 'the worker did not take them along'));
          if (rideFailed(r))
            log.warn('git work failed with side effects aboard; it is started again alone', {
              error: r.rideFailed,
            });
          rider.resolve(r);
        },
        (err: unknown) => {
          this.settle(batch, notPerformed(batch, err instanceof Error ? err.message : String(err)));
          rider.reject(err);
        },
      )
      .finally(() => this.end(batch, aside));
  }

  /** The effects due now (not those kept) and the transitions to store, as one call; null: none. */
  private prepare(keep?: Keep): Batch | null {
    const due = takeDue(this.waiting, Date.now(), (e) => this.heldAside(e) || (keep?.(e) ?? false));
    const c = this.ctx.carried;
    const events = c.unstored.length > 0 && !this.appending ? c.unstored.slice(0, MAX_APPEND_BATCH) : [];
    return this.batchOf(due, events);
  }

  /** What a ride claims (its submissions' order kept), without the append: that goes with the first. */
  private prepareOwn(claim: Claim): Batch | null {
    return this.batchOf(
      takeDue(this.waiting, Date.now(), (e) => this.heldAside(e) || !claim(e)),
      [],
    );
  }

  /** An effect of a submission a claimed ride or the call in flight holds: it waits for their end. */
  private heldAside(e: Pending['effect']): boolean {
    const submission = submissionOf(e);
    return submission !== null && (this.aside.has(submission) || this.inCallOf.has(submission));
  }

  private batchOf(due: Pending[], events: TransitionEvent[]): Batch | null {
    if (due.length === 0 && events.length === 0) return null;
    const queue = this.ctx.key;
    // Older runs numbered keys across calls, by position; their results name effects that way.
    const number = this.inTurn ? occurrenceKeys() : (key: string) => `${++this.keys}:${key}`;
    const sent = due.map((p) => ({ ...p, effect: { ...p.effect, key: number(p.effect.key) } }));
    const append: Batch['append'] =
      events.length > 0
        ? { kind: 'appendTransitions', key: number('append'), events, queue, view: this.views.next() }
        : null;
    const effects: SideEffect[] = [...(append ? [append] : []), ...sent.map((p) => p.effect)];
    return { sent, append, effects };
  }

  /** One call of `performSideEffects` for `batch`, by itself. */
  private async call(batch: Batch): Promise<void> {
    let result: SideEffectsResult;
    // Both replay as they ran: the signal rate (workflow time, signals in history order) and the last
    // local call's outcome (its marker).
    const local = !patched(REGULAR_SIDE_EFFECTS_PATCH) && this.ctx.quiet && !this.localFailed;
    try {
      result = await (local ? this.performLocal : this.perform)({ effects: batch.effects });
      this.localFailed = false;
    } catch (err) {
      this.localFailed = local;
      // The call's own retries ran out (its workers kept dying): every effect is tried again.
      result = notPerformed(batch, err instanceof Error ? err.message : String(err));
    }
    this.settle(batch, result);
  }

  /** What a call's result means: appended transitions leave the state, failed effects wait to go again. */
  private settle({ sent, append }: Batch, result: SideEffectsResult): void {
    const done = new Set(result.done);
    const failed = new Map(result.failed.map((f) => [f.key, f]));
    const now = Date.now();
    if (append) {
      this.views.settled(done.has(append.key), result.appended?.view);
      if (done.has(append.key)) this.ctx.carried.unstored.splice(0, append.events.length);
      else {
        log.warn('event log append failed; the transitions stay in the workflow and are sent again', {
          transitions: append.events.length,
          error: failed.get(append.key)?.error,
        });
        void this.appendByThemselves();
      }
    }
    const { delivered, again, dropped } = outcomes(sent, done, failed, now);
    for (const submissionId of delivered) this.onDelivered(submissionId);
    for (const d of dropped) log.warn('side effect dropped', d);
    // Before anything added meanwhile: a submission's failed notice goes before its later ones.
    this.waiting.unshift(...again);
  }

  /** After a failed append: the transitions go by themselves until none is left, then back in the calls. */
  private async appendByThemselves(): Promise<void> {
    if (this.appending) return;
    this.appending = true;
    await appendUntilStored(this.ctx.carried, this.ctx.key, this.views, this.appendAlone);
    this.appending = false;
    this.pumpAgain();
  }

  /** A timer to pump when the next effect waiting out a backoff is due. */
  private wakeForNext(now: number): void {
    const next = Math.min(...this.waiting.map((p) => p.notBefore));
    if (!Number.isFinite(next) || (this.wakeAt !== null && this.wakeAt <= next)) return;
    this.wakeAt = next;
    void sleep(Math.max(1, next - now)).then(() => {
      if (this.wakeAt === next) this.wakeAt = null;
      this.pumpAgain();
    });
  }

  /**
   * Holds one tracked unit (continue-as-new waits for it) while effects other than appends wait or are
   * in flight; releases it when none are.
   */
  private track(): void {
    const busy = this.waiting.length > 0 || this.inCall > 0;
    if (busy && !this.release)
      this.ctx.track(
        () =>
          new Promise<void>((resolve) => {
            this.release = resolve;
          }),
      );
    else if (!busy && this.release) {
      this.release();
      this.release = null;
    }
  }
}
