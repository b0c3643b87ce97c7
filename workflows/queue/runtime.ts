/**
 * QueueRuntime: the drain loop that drives the engine, and the QueueContext (context.ts) it hands to
 * the queue workflow's parts. Events go into the inbox; `drain()` feeds them to `decide` one at a time
 * and routes each command: `notifyPr` to the PR notifier, the rest to the CommandExecutor, whose activity
 * completions come back as events. Nothing here decides anything about the queue: that is the
 * engine's job.
 *
 * Message handlers start nothing (received.ts says why): signals are recorded (`receive`), submissions
 * recorded by Admissions, and each `drain()`, a turn of the loop, first takes them (`intake`): the
 * signals in the order they arrived, then the submissions' reads in theirs. An update completes only
 * after a turn that followed it (`turn`), so its completion comes after the commands of that turn
 * whichever order the task's signals and updates were handed in.
 *
 * Invariants: events are applied in inbox order; each `decide` call sees `now` from the workflow clock
 * and ids from the deterministic uuid4; commands are routed in the order the engine gave them; PR
 * notifications are sent in transition order, numbered per submission; a PR's metadata leaves the
 * state only after its terminal notification is sent.
 */
import { condition, log, uuid4 } from '@temporalio/workflow';
import { decide, type EngineCommand, type EngineEvent } from '../../engine';
import type { QueueKey, StalledChecks, TestedOn } from '../../contract';
import { bounded, type Carried, MAX_FINISHED_RUNS } from './carried';
import { Admissions } from './admission';
import { CommandExecutor } from './command-executor';
import type { QueueContext, RidingGit } from './context';
import { HostReader } from './host-reader';
import { PrNotifier } from './pr-notifier';
import { takeReceived, type Received } from './received';
import { SideEffects } from './side-effects';
import { SignalRate } from './signal-rate';
import { ridingGit } from './riding-git';

export class QueueRuntime implements QueueContext {
  /**
   * Short activities in flight (build, land, read, side effects): continue-as-new waits for them.
   * Appends to the event log are not among them: the carried state keeps what they have not stored.
   */
  inFlight = 0;
  /**
   * Continuing as new (queue-workflow.ts): updates are refused and hints held, so no new work starts
   * from outside while the work in flight ends.
   */
  closing = false;
  /** Items the handlers wait on: an update answers after its event has been decided. */
  private appliedSeq = 0;
  private pushedSeq: number;
  /** Signals recorded by their handlers, not yet taken (received.ts). */
  private readonly received: Received[] = [];
  /** Turns of the loop (drains) so far; an update handler asked for one more. */
  private turns = 0;
  private turnWanted = false;
  private readonly executor: CommandExecutor;
  /** Re-reads the host on hints (hostHintSignal). */
  readonly hosts: HostReader;
  readonly notifier: PrNotifier;
  readonly effects: SideEffects;
  /** Submissions whose PR workflow has received at least one transition (so it can be read). */
  readonly delivered = new Set<string>();
  /** Submissions recorded by the submit update, read from the loop's turn. */
  readonly admissions: Admissions;
  /** The signals that arrive: the side effects hold no workflow task open in a storm of them. */
  readonly signals = new SignalRate();
  readonly git: RidingGit;

  constructor(
    readonly key: QueueKey,
    readonly carried: Carried,
    opts: { appendMaximumIntervalMs?: number } = {},
  ) {
    // Transitions a previous run could not store go first (in the first call).
    this.effects = new SideEffects(this, (id) => this.delivered.add(id), opts.appendMaximumIntervalMs);
    this.git = ridingGit(this.effects);
    this.hosts = new HostReader(this);
    this.executor = new CommandExecutor(this, this.hosts, this.effects);
    this.notifier = new PrNotifier(this, this.effects);
    this.admissions = new Admissions(this, this.delivered);
    // Carried inbox items count as already pushed, so handler sequence numbers stay in inbox order.
    this.pushedSeq = carried.inbox.length;
  }

  push(event: EngineEvent): number {
    this.carried.inbox.push(event);
    return ++this.pushedSeq;
  }

  /** Whether the event `push` numbered `seq` has been decided. */
  applied(seq: number): boolean {
    return this.appliedSeq >= seq;
  }

  get quiet(): boolean {
    return this.signals.quiet;
  }

  /** Recorded by a handler and not taken yet: signals, submissions to read. */
  get hasReceived(): boolean {
    return this.received.length > 0 || this.admissions.waiting;
  }

  /**
   * Something for the loop's next turn: events to decide, messages to take, an update waiting, or a
   * side-effects pump asked for.
   */
  get hasWork(): boolean {
    return this.carried.inbox.length > 0 || this.hasReceived || this.turnWanted || this.effects.wantsPump;
  }

  /** A signal's handler records what it brought; the loop's next turn takes it. */
  receive(item: Received): void {
    this.received.push(item);
  }

  /** Resolves after the loop's next turn (an update handler's last step: received.ts). */
  async turn(): Promise<void> {
    const after = this.turns;
    this.turnWanted = true;
    await condition(() => this.turns > after);
  }

  /**
   * Takes what the handlers recorded: signals in arrival order, then the submissions' reads. Alone
   * while continuing as new (queue-workflow.ts), where the inbox is no longer decided.
   */
  intake(): void {
    for (const item of this.received.splice(0)) takeReceived(this, item);
    this.admissions.startReads();
  }

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

  refreshDetails(pr: number, testedOn?: TestedOn, stalledChecks?: StalledChecks | null): void {
    this.notifier.refresh(pr, testedOn, stalledChecks);
  }

  drain(): void {
    const c = this.carried;
    this.intake();
    // Whatever this drain changes, a view read after it is newer than one read before (ADR 0016).
    c.viewRevision = (c.viewRevision ?? 0) + 1;
    const resubmitted = new Set<number>();
    while (c.inbox.length > 0) {
      const event = c.inbox.shift()!;
      const { state, commands } = decide(c.engine, event, { now: Date.now(), newId: uuid4 });
      c.engine = state;
      this.appliedSeq++;
      this.route(commands);
      if (event.type === 'priorityChanged') resubmitted.add(event.pr);
    }
    this.notifier.flush();
    // A resubmission's new priority or noBatch changes no state, so no transition carries it to the
    // PR's record: its details go now (nothing released: no patch, histories recorded again).
    for (const pr of resubmitted) this.notifier.refresh(pr);
    this.executor.cleanUpFinishedRuns();
    c.runs = bounded(c.runs, MAX_FINISHED_RUNS + c.engine.groups.length);
    // After everything this turn and the results before it produced (side-effect-patches.ts, PUMP_IN_TURN_PATCH).
    this.effects.pumpInTurn();
    this.turns++;
    this.turnWanted = false;
  }

  private route(commands: EngineCommand[]): void {
    for (const cmd of commands) {
      if (cmd.type === 'notifyPr') this.notifier.record(cmd);
      else this.executor.execute(cmd);
    }
  }
}
