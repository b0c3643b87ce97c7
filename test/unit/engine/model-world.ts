/**
 * A model of the world around the engine, for property tests: it plays the workflow (runs, merges
 * with compare-and-swap, pushes), keeps its own record of what the target branch holds and of every
 * PR's timeline, and checks the invariants of DESIGN §4 as the engine's commands arrive.
 */
import {
  decide,
  initialState,
  type EngineCommand,
  type EngineEvent,
  type PrState,
  type QueueConfigPatch,
  type QueueState,
  type TargetList,
} from '../../../engine';

interface Run {
  /** The target branch content when the run was asked for, then the PRs it tested, in order. */
  tree: string[];
  prs: number[];
  live: boolean;
  passed: boolean;
}

interface Pr {
  state: PrState | null;
  episode: number;
  headSha: string;
  baseSha: string | null;
  targets: Map<string, TargetList>;
  merged: boolean;
}

export class ModelWorld {
  state: QueueState;
  now = 0;
  /** Content of the target branch: a push marker, then PRs merged since, in order. */
  tip: string[] = ['push-0'];
  tipSha = 'sha-0';
  readonly runs = new Map<string, Run>();
  readonly prs = new Map<number, Pr>();
  merge: Extract<EngineCommand, { type: 'merge' }> | null = null;
  /** What the PRs of the merge in flight had reported (base, targets) when it was issued. */
  private mergeBases: (string | null)[] = [];
  private mergeTargets: TargetList[] = [];
  readonly violations: string[] = [];
  /** Targets of each PR merged into the current tip (for the lane check in parallel mode). */
  private readonly mergedTargets = new Map<number, TargetList>();
  private ids = 0;
  private pushes = 0;

  constructor(config: QueueConfigPatch) {
    this.state = initialState(config, this.tipSha);
  }

  send(event: EngineEvent): void {
    if (event.type === 'testRunFinished' || event.type === 'testRunFailedToStart') {
      const run = this.runs.get(event.runId);
      if (run) run.live = false;
    }
    const { state, commands } = decide(this.state, event, { now: this.now, newId: () => `id-${++this.ids}` });
    this.state = state;
    for (const c of commands) this.observe(c);
  }

  liveRuns(): string[] {
    return [...this.runs].filter(([, r]) => r.live).map(([id]) => id);
  }

  runPassed(runId: string, passed: boolean): void {
    const run = this.runs.get(runId);
    if (run) run.passed = passed;
  }

  submit(pr: number, priority: number, noBatch: boolean, ready: boolean, upToDate: boolean): void {
    const known = this.prs.get(pr);
    const record: Pr = known ?? {
      state: null,
      episode: 0,
      headSha: `h${pr}-0`,
      baseSha: null,
      targets: new Map(),
      merged: false,
    };
    if (!known) this.prs.set(pr, record);
    // A resubmission of a queued PR only rewrites priority and noBatch; readiness is not re-read.
    const active = record.state !== null && !isTerminal(record.state);
    if (!active) record.baseSha = upToDate ? this.tipSha : null;
    this.send({
      type: 'submitted',
      pr,
      headSha: record.headSha,
      priority,
      noBatch,
      ready,
      baseSha: record.baseSha,
    });
  }

  ready(pr: number, push: boolean, upToDate: boolean): void {
    const record = this.prs.get(pr);
    if (!record) return;
    if (push) record.headSha = `h${pr}-${Number(record.headSha.split('-')[1]) + 1}`;
    record.baseSha = upToDate ? this.tipSha : null;
    this.send({ type: 'ready', pr, headSha: record.headSha, baseSha: record.baseSha });
  }

  setTargets(pr: number, targets: TargetList): void {
    const record = this.prs.get(pr);
    if (!record) return;
    record.targets.set(record.headSha, targets);
    this.send({ type: 'impactedTargetsSet', pr, headSha: record.headSha, targets });
  }

  /** Lands (or fails) the merge in flight the way a compare-and-swap would. */
  completeMerge(outcome: 'ok' | 'fail'): void {
    const merge = this.merge;
    if (!merge) return;
    this.merge = null;
    if (merge.expectedTipSha !== this.tipSha) {
      this.send({
        type: 'mergeFailed',
        mergeId: merge.mergeId,
        reason: 'TARGET_BRANCH_MOVED',
        pr: null,
        mergedPrs: [],
        tipSha: this.tipSha,
      });
      return;
    }
    if (outcome === 'fail') {
      const pr = merge.prs.at(-1) ?? null;
      this.send({
        type: 'mergeFailed',
        mergeId: merge.mergeId,
        reason: 'GITHUB_API_MERGE_PR_FAILED',
        pr,
        mergedPrs: [],
        tipSha: this.tipSha,
      });
      return;
    }
    this.checkMerge(merge);
    // What it merged is known by the last targets uploaded while it was queued (what the engine used
    // for everything decided after the merge was issued).
    for (const pr of merge.prs) this.mergedTargets.set(pr, this.targetsNow(pr));
    this.tip = [...this.tip, ...merge.prs.map(String)];
    this.tipSha = `sha-${this.ids}-${merge.mergeId}`;
    this.send({ type: 'mergeDone', mergeId: merge.mergeId, newTipSha: this.tipSha });
  }

  push(): void {
    this.pushes += 1;
    this.tip = [`push-${this.pushes}`];
    this.tipSha = `pushed-${this.pushes}`;
    this.mergedTargets.clear();
    this.send({ type: 'targetBranchMoved', sha: this.tipSha });
  }

  private observe(c: EngineCommand): void {
    switch (c.type) {
      case 'startTestRun':
        this.runs.set(c.runId, {
          tree: [...this.tip, ...[...c.ahead, ...c.prs].map(String)],
          prs: c.prs,
          live: true,
          passed: false,
        });
        return;
      case 'cancelTestRun': {
        const run = this.runs.get(c.runId);
        if (run) run.live = false;
        return;
      }
      case 'merge':
        if (this.merge)
          this.violations.push(`merge ${c.mergeId} issued while ${this.merge.mergeId} is in flight`);
        this.merge = c;
        this.mergeBases = c.prs.map((p) => this.prs.get(p)?.baseSha ?? null);
        this.mergeTargets = c.prs.map((p) => this.targetsNow(p));
        return;
      case 'notifyPr':
        return this.checkTransition(c);
    }
  }

  private checkTransition(c: Extract<EngineCommand, { type: 'notifyPr' }>): void {
    const pr = this.prs.get(c.pr);
    if (!pr) return void this.violations.push(`notification for unknown PR ${c.pr}`);
    if (c.from === null) {
      if (pr.state !== null && !isTerminal(pr.state))
        this.violations.push(`PR ${c.pr} submitted twice while active`);
      pr.episode += 1;
      pr.merged = false;
    } else if (pr.state !== c.from) {
      this.violations.push(`PR ${c.pr}: transition from ${c.from} but it was ${pr.state}`);
    }
    if (pr.state !== null && isTerminal(pr.state) && c.from !== null) {
      this.violations.push(`PR ${c.pr} changed state after ending ${pr.state}`);
    }
    // Issue 25: a culprit found by bisection names runs the queue really started.
    for (const id of c.convictedBy ?? [])
      if (!this.runs.has(id)) this.violations.push(`PR ${c.pr} convicted by unknown run ${id}`);
    if (c.convictedBy && c.to !== 'failed') this.violations.push(`PR ${c.pr} ${c.to} with convictedBy`);
    if (c.to === 'merged') {
      if (pr.merged) this.violations.push(`PR ${c.pr} merged twice`);
      pr.merged = true;
      const viaQueue = c.reason !== 'MANUAL_MERGE';
      if (viaQueue && !this.tip.includes(String(c.pr)))
        this.violations.push(`PR ${c.pr} reported merged but not on the target`);
    }
    pr.state = c.to;
  }

  /** The target only advances to a tested tree (single mode), a tested tree plus disjoint lanes, or a direct merge. */
  private checkMerge(merge: Extract<EngineCommand, { type: 'merge' }>): void {
    const after = [...this.tip, ...merge.prs.map(String)];
    for (const pr of merge.prs) {
      const state = this.prs.get(pr)?.state;
      if (state === 'failed' || state === 'cancelled' || state === 'merged') {
        this.violations.push(`merging PR ${pr} which is ${state}`);
      }
    }
    if (merge.via === 'direct') {
      const pr = merge.prs[0]!;
      if (merge.prs.length !== 1 || this.mergeBases[0] !== this.tipSha) {
        this.violations.push(`direct merge of ${pr} not based on the tip`);
      }
      return;
    }
    const run = merge.runId === null ? undefined : this.runs.get(merge.runId);
    if (!run?.passed)
      return void this.violations.push(`merge ${merge.mergeId} carries run ${merge.runId} that did not pass`);
    if (merge.via === 'tested_commit') {
      if (run.tree.join() !== after.join()) {
        this.violations.push(
          `tested_commit merge moves the tip to [${after.join()}], run tested [${run.tree.join()}]`,
        );
      }
      return;
    }
    if (this.state.config.mode !== 'parallel') this.violations.push('rebase merge in single mode');
    const missing = after.filter((x) => !run.tree.includes(x));
    const extra = run.tree.filter((x) => !after.includes(x));
    if (extra.length > 0) this.violations.push(`rebase merge drops tested PRs ${extra.join()}`);
    for (const other of missing) {
      const otherTargets = this.mergedTargets.get(Number(other));
      merge.prs.forEach((pr, i) => {
        // Judged by the targets the engine had when it issued the merge: a merge already out cannot
        // be recalled by a later upload.
        if (otherTargets === undefined || overlap(otherTargets, this.mergeTargets[i] ?? 'ALL')) {
          this.violations.push(`rebase merge of ${pr} over untested, overlapping ${other}`);
        }
      });
    }
  }

  private targetsNow(pr: number): TargetList {
    const record = this.prs.get(pr);
    return record?.targets.get(record.headSha) ?? 'ALL';
  }
}

/** Impacted targets overlap, by the definition (written independently of the engine's lanes.ts). */
export function overlap(a: TargetList, b: TargetList): boolean {
  if (a === 'ALL') return b === 'ALL' || b.length > 0;
  if (b === 'ALL') return a.length > 0;
  return a.some((t) => b.includes(t));
}

function isTerminal(state: PrState): boolean {
  return state === 'merged' || state === 'failed' || state === 'cancelled';
}
