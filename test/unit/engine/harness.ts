/**
 * A test harness around `decide`: a fake clock, counter ids, and helpers that play the workflow's
 * part (report runs, complete merges) so tests read as stories and assert compact shapes.
 */
import {
  decide,
  initialState,
  type EngineCommand,
  type EngineEvent,
  type PrState,
  type QueueConfigPatch,
  type QueueState,
  type Reason,
  type TestCaseResult,
} from '../../../engine';

export type StartCommand = Extract<EngineCommand, { type: 'startTestRun' }>;
export type MergeCommand = Extract<EngineCommand, { type: 'merge' }>;
export type Notify = Extract<EngineCommand, { type: 'notifyPr' }>;

export interface SubmitOptions {
  priority?: number;
  noBatch?: boolean;
  ready?: boolean;
  baseSha?: string | null;
  targets?: string[] | 'ALL';
}

export class Harness {
  state: QueueState;
  now = 1_000_000;
  /** Every command ever returned, in order. */
  readonly log: EngineCommand[] = [];
  private ids = 0;
  private tips = 0;

  constructor(config: QueueConfigPatch = {}, tipSha: string | null = 'tip-0') {
    this.state = initialState(config, tipSha);
  }

  send(event: EngineEvent): EngineCommand[] {
    const { state, commands } = decide(this.state, event, {
      now: this.now,
      newId: () => `id-${++this.ids}`,
    });
    this.state = state;
    this.log.push(...commands);
    return commands;
  }

  advance(minutes: number): EngineCommand[] {
    this.now += minutes * 60_000;
    return this.send({ type: 'tick' });
  }

  submit(pr: number, options: SubmitOptions = {}): EngineCommand[] {
    const out = this.send({
      type: 'submitted',
      pr,
      headSha: `head-${pr}`,
      priority: options.priority ?? 100,
      noBatch: options.noBatch ?? false,
      ready: options.ready ?? true,
      baseSha: options.baseSha ?? null,
    });
    if (options.targets !== undefined) out.push(...this.targets(pr, options.targets));
    return out;
  }

  targets(pr: number, targets: string[] | 'ALL'): EngineCommand[] {
    return this.send({ type: 'impactedTargetsSet', pr, headSha: `head-${pr}`, targets });
  }

  /** Trees of the runs in flight, in line order: each is ahead ++ prs. */
  runs(): number[][] {
    return this.testingGroups().map((g) => [...g.ahead, ...g.prs]);
  }

  /** The PRs each in-flight run decides, in line order. */
  batches(): number[][] {
    return this.testingGroups().map((g) => g.prs);
  }

  runOf(pr: number): string {
    const group = this.state.groups.find((g) => g.prs.includes(pr) && g.status === 'testing');
    if (!group?.runId) throw new Error(`PR ${pr} has no run in flight`);
    return group.runId;
  }

  pass(pr: number, tests?: TestCaseResult[]): EngineCommand[] {
    return this.send({ type: 'testRunFinished', runId: this.runOf(pr), outcome: 'passed', tests });
  }

  fail(pr: number, tests?: TestCaseResult[]): EngineCommand[] {
    return this.send({ type: 'testRunFinished', runId: this.runOf(pr), outcome: 'failed', tests });
  }

  /** Completes the merge in flight, moving the tip; returns the PRs it merged. */
  completeMerge(): number[] {
    const merge = this.state.merge;
    if (!merge) throw new Error('no merge in flight');
    this.tips += 1;
    this.send({ type: 'mergeDone', mergeId: merge.mergeId, newTipSha: `tip-${this.tips}` });
    return merge.prs;
  }

  /** Completes merges until none is in flight; returns each merge's PRs. */
  mergeAll(): number[][] {
    const merged: number[][] = [];
    while (this.state.merge) merged.push(this.completeMerge());
    return merged;
  }

  stateOf(pr: number): PrState | undefined {
    const entry = this.state.entries.find((e) => e.pr === pr);
    if (entry) return entry.state;
    const last = this.notifications(pr).at(-1);
    return last?.to;
  }

  /** Each PR's state now (terminal ones from their last notification). */
  states(prs: readonly number[]): Record<number, PrState | undefined> {
    return Object.fromEntries(prs.map((pr) => [pr, this.stateOf(pr)]));
  }

  notifications(pr: number): Notify[] {
    return this.log.filter((c): c is Notify => c.type === 'notifyPr' && c.pr === pr);
  }

  /** `state:REASON` for each transition of a PR. */
  timeline(pr: number): string[] {
    return this.notifications(pr).map((n) => `${n.to}:${n.reason satisfies Reason}`);
  }

  lastReason(pr: number): Reason | undefined {
    return this.notifications(pr).at(-1)?.reason;
  }

  commandsOf<T extends EngineCommand['type']>(type: T): Extract<EngineCommand, { type: T }>[] {
    return this.log.filter((c): c is Extract<EngineCommand, { type: T }> => c.type === type);
  }

  /** PR numbers in line order (not_ready excluded). */
  line(): number[] {
    return this.state.entries.filter((e) => e.state !== 'not_ready').map((e) => e.pr);
  }

  private testingGroups() {
    const order = new Map(this.state.entries.map((e, i) => [e.pr, i]));
    return this.state.groups
      .filter((g) => g.status === 'testing')
      .sort((a, b) => (order.get(a.prs[0]!) ?? 0) - (order.get(b.prs[0]!) ?? 0));
  }
}
