/**
 * QueueRuntime: drives the engine. Events go into the inbox; `drain()` feeds them to `decide` one at a
 * time and hands the commands to the CommandRunner, whose activity completions come back as events.
 * Nothing here decides anything about the queue: that is the engine's job.
 *
 * Invariants: events are applied in inbox order; each `decide` call sees `now` from the workflow clock
 * and ids from the deterministic uuid4; PR notifications are sent in transition order, numbered per
 * submission; a PR's metadata leaves the state only after its terminal notification is sent.
 */
import { log, uuid4 } from '@temporalio/workflow';
import { decide, type EngineEvent } from '../engine';
import type { QueueKey } from '../ids';
import { bounded, type Carried, MAX_FINISHED_RUNS } from './carried';
import { git } from './activity-proxies';
import { CommandRunner } from './command-runner';
import { EventLogOutbox } from './event-log-outbox';
import { PrNotifier } from './pr-notifier';

const RECHECK_INTERVAL_MS = 15_000;

export class QueueRuntime {
  /**
   * Short activities in flight (build, land, notify, read): continue-as-new waits for them. Appends to
   * the event log are not among them: `outbox` carries what they have not stored yet.
   */
  inFlight = 0;
  /** Items the handlers wait on: an update answers after its event has been decided. */
  private appliedSeq = 0;
  private pushedSeq: number;
  readonly runner: CommandRunner;
  readonly notifier: PrNotifier;
  readonly outbox: EventLogOutbox;
  /** Submissions whose PR workflow has received at least one transition (so it can be read). */
  readonly delivered = new Set<string>();

  constructor(
    readonly key: QueueKey,
    readonly queueWorkflowId: string,
    readonly c: Carried,
    opts: { appendMaximumIntervalMs?: number } = {},
  ) {
    this.runner = new CommandRunner(this);
    this.notifier = new PrNotifier(this);
    this.outbox = new EventLogOutbox(c, opts.appendMaximumIntervalMs);
    // Transitions a previous run could not store go first.
    this.outbox.pump();
    // Carried inbox items count as already pushed, so handler sequence numbers stay in inbox order.
    this.pushedSeq = c.inbox.length;
  }

  private lastRecheck = Date.now();

  /** When not-ready PRs should next be looked at again (mergeability may have changed). */
  nextRecheckAt(): number | null {
    return this.c.engine.entries.some((e) => e.state === 'not_ready')
      ? this.lastRecheck + RECHECK_INTERVAL_MS
      : null;
  }

  /** Re-reads not-ready PRs: now mergeable → ready; pushed to → cancelled; closed → cancelled. */
  recheckNotReady(): void {
    this.lastRecheck = Date.now();
    for (const entry of this.c.engine.entries.filter((e) => e.state === 'not_ready')) {
      const meta = this.c.prs[String(entry.pr)];
      this.track(async () => {
        const s = await git.readPullRequest({
          repo: this.key.repo,
          targetBranch: this.key.targetBranch,
          pr: entry.pr,
        });
        if (!s.found) this.push({ type: 'cancelled', pr: entry.pr, reason: 'PR_CLOSED' });
        else if (s.headSha !== entry.headSha)
          this.push({ type: 'cancelled', pr: entry.pr, reason: 'PR_PUSHED_TO' });
        else {
          if (meta)
            meta.readiness.gitHubMergeability =
              s.mergeable === 'mergeable'
                ? 'mergeable'
                : s.mergeable === 'conflicting'
                  ? 'not_mergeable'
                  : 'unspecified';
          if (s.mergeable === 'mergeable' && !entry.ready) {
            this.push({
              type: 'ready',
              pr: entry.pr,
              headSha: s.headSha,
              baseSha: s.basedOnTargetTip ? s.targetTipSha : null,
            });
          }
        }
      });
    }
  }

  /** Queues an event; returns its sequence number (see `applied`). */
  push(event: EngineEvent): number {
    this.c.inbox.push(event);
    return ++this.pushedSeq;
  }

  applied(seq: number): boolean {
    return this.appliedSeq >= seq;
  }

  get hasWork(): boolean {
    return this.c.inbox.length > 0;
  }

  /**
   * Runs `fn` as tracked background work. A failure (an activity that exhausted its retries) goes to
   * `onError`, which turns it into an engine event where the engine must know, and is logged; it is
   * never left unhandled, which would fail the workflow task over and over.
   */
  track(fn: () => Promise<void>, onError?: (err: unknown) => void): void {
    this.inFlight++;
    fn()
      .catch((err: unknown) => {
        log.warn('queue background work failed', { error: err instanceof Error ? err.message : String(err) });
        onError?.(err);
      })
      .finally(() => {
        this.inFlight--;
      });
  }

  drain(): void {
    while (this.c.inbox.length > 0) {
      const event = this.c.inbox.shift()!;
      const { state, commands } = decide(this.c.engine, event, { now: Date.now(), newId: uuid4 });
      this.c.engine = state;
      this.appliedSeq++;
      this.runner.run(commands);
    }
    this.notifier.flush();
    this.runner.cleanUpFinishedRuns();
    this.c.runs = bounded(this.c.runs, MAX_FINISHED_RUNS + this.c.engine.groups.length);
  }
}
