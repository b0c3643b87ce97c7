/**
 * A seeded discrete-event simulation of one queue driven by the real engine (`decide`), with a fake
 * CI and a fake git host that answer its commands.
 *
 * The world: PRs arrive (Poisson at a given rate, or closed-loop keeping a fixed backlog, which is
 * what "at saturation" means); each PR is bad with probability p; a test run fails iff its tree holds
 * a bad PR, or, independently, with the flake probability f; CI takes a log-normal time around T
 * (sigma 0 = exactly T, as the analytic model assumes). With `tests` (test-world.ts) flakes belong to
 * tests instead, a whole-suite run failing spuriously with the same f, and a run's report names its
 * failed tests to the engine as the workflow does; a run of only some tests (`onlyTests`) takes T too
 * (the build and setup dominate, or the runner cannot select and runs everything). Merges complete instantly. Ticks arrive when
 * asked for. Everything happens in time order; simultaneous events in the order they were scheduled.
 */
import {
  decide,
  initialState,
  isTerminal,
  type EngineCommand,
  type EngineEvent,
  type QueueConfigPatch,
  type QueueState,
} from '../../engine';
import { bernoulli, exponential, logNormal, seededRng, type Rng } from './rng';
import { TestWorld, type TestWorldSpec } from './test-world';

export type Arrivals =
  | { kind: 'backlog'; size: number }
  | { kind: 'poisson'; perHour: number }
  /** A trace: one PR at each of these times (minutes, ascending), e.g. quiet hours then a burst. */
  | { kind: 'trace'; minutes: readonly number[] };

export interface Scenario {
  config: QueueConfigPatch;
  /** Probability that a PR is bad. */
  p: number;
  /** Probability that a run (of the whole suite) fails for no reason (a flake). */
  f: number;
  /** The flaky-test world; absent: a run flakes as a whole with probability f. */
  tests?: TestWorldSpec;
  /** CI duration median, minutes. */
  ciMinutes: number;
  ciSigma: number;
  /** Disjoint impacted-target lanes a PR is spread over uniformly (parallel mode). */
  lanes: number;
  arrivals: Arrivals;
  prs: number;
  /** Resolutions to ignore before measuring. */
  warmup: number;
  seed: number;
}

export interface Outcome {
  resolved: number;
  merged: number;
  /** Measured rates over the steady window (backlog mode) or the whole run (Poisson). */
  resolvedPerHour: number;
  mergedPerHour: number;
  runsStarted: number;
  /** Merged PRs over the whole run (runs per merged PR divides by this: runs are counted for all). */
  mergedTotal: number;
  cancelReasons: Record<string, number>;
  bisectionRuns: number;
  /** Runs cancelled before they finished (superseded, restarted, covered by a later pass). */
  cancelledRuns: number;
  /** CI time spent, in units of the median CI duration, cancelled runs counting what they used. */
  ciTime: number;
  goodEjected: number;
  goodResolved: number;
  badMerged: number;
  /** Flaky tests the service knew at the end (flaky-test world only, else 0). */
  knownFlaky: number;
  /** Minutes from submission to merge, merged PRs after warm-up. */
  timeToMerge: number[];
  /** Minutes at which the last PR resolved. */
  lastResolutionMinute: number;
  decideCalls: number;
  decideMs: number;
  maxEntries: number;
  /** Largest JSON size of the state seen (sampled), and its size once everything resolved. */
  maxStateBytes: number;
  finalStateBytes: number;
  finalEntries: number;
  finalGroups: number;
}

type Happening =
  { kind: 'engine'; event: EngineEvent } | { kind: 'arrival' } | { kind: 'finish'; runId: string };
type SimEvent = { at: number; seq: number } & Happening;

interface Pr {
  bad: boolean;
  /** Tests it breaks (flaky-test world, bad PRs only). */
  breaks: number[];
  submittedAt: number;
  lane: number;
}

interface Run {
  tree: number[];
  onlyTests: string[] | undefined;
  startedAt: number;
  cancelled: boolean;
}

const MINUTE = 60_000;

export function simulate(s: Scenario, onProgress?: (done: number) => void): Outcome {
  return new World(s, onProgress).run();
}

class World {
  private readonly rng: Rng;
  private readonly tests: TestWorld | null;
  private state: QueueState;
  private now = 0;
  private seq = 0;
  private ids = 0;
  private readonly heap: SimEvent[] = [];
  private readonly prs = new Map<number, Pr>();
  private readonly runs = new Map<string, Run>();
  private readonly ticks = new Set<number>();
  private submitted = 0;
  private lastSubmission = 0;
  private readonly resolutions: { at: number; merged: boolean; pr: number }[] = [];
  private runsStarted = 0;
  private bisectionRuns = 0;
  private cancelledRuns = 0;
  private readonly cancelReasons: Record<string, number> = {};
  private ciTime = 0;
  private decideCalls = 0;
  private decideMs = 0;
  private maxEntries = 0;
  private maxStateBytes = 0;

  constructor(
    private readonly s: Scenario,
    private readonly onProgress?: (done: number) => void,
  ) {
    this.rng = seededRng(s.seed);
    // Its own generator, so that `rng` draws what the per-run world draws (finish()).
    this.tests = s.tests ? new TestWorld(s.tests, s.f, seededRng(s.seed ^ 0x5eed7e57)) : null;
    this.state = initialState(s.config, 'tip-0');
  }

  run(): Outcome {
    const a = this.s.arrivals;
    if (a.kind === 'trace') for (const m of a.minutes) this.push({ at: m * MINUTE, kind: 'arrival' });
    const initial = a.kind === 'backlog' ? a.size : a.kind === 'poisson' ? 1 : 0;
    for (let i = 0; i < Math.min(initial, this.s.prs); i += 1) this.push({ at: 0, kind: 'arrival' });
    for (let e = this.pop(); e; e = this.pop()) {
      this.now = e.at;
      if (e.kind === 'arrival') this.arrive();
      else if (e.kind === 'finish') this.finish(e.runId);
      else this.deliver(e.event);
    }
    return this.outcome();
  }

  private arrive(): void {
    const pr = ++this.submitted;
    this.lastSubmission = this.now;
    const lane = Math.floor(this.rng.next() * this.s.lanes);
    const bad = bernoulli(this.rng, this.s.p);
    const breaks = bad && this.tests ? this.tests.brokenByBadPr() : [];
    this.prs.set(pr, { bad, breaks, submittedAt: this.now, lane });
    const headSha = `head-${pr}`;
    this.deliver({
      type: 'submitted',
      pr,
      headSha,
      priority: 100,
      noBatch: false,
      ready: true,
      baseSha: null,
    });
    if (this.s.config.mode === 'parallel') {
      this.deliver({ type: 'impactedTargetsSet', pr, headSha, targets: [`lane-${lane}`] });
    }
    const a = this.s.arrivals;
    if (a.kind === 'poisson' && this.submitted < this.s.prs) {
      this.push({ at: this.now + exponential(this.rng, (60 * MINUTE) / a.perHour), kind: 'arrival' });
    }
  }

  private finish(runId: string): void {
    const run = this.runs.get(runId);
    if (!run || run.cancelled) return;
    this.runs.delete(runId);
    this.ciTime += (this.now - run.startedAt) / (this.s.ciMinutes * MINUTE);
    if (this.tests) {
      // The per-run world's flake draw (made only for a tree with no bad PR), taken and unused, keeps
      // `rng` in step with it: both worlds see the same arrivals, badness and durations until their
      // outcomes differ (at f = 0, never).
      if (!run.tree.some((pr) => this.prs.get(pr)?.bad)) this.rng.next();
      const broken = new Set(run.tree.flatMap((pr) => this.prs.get(pr)?.breaks ?? []));
      const { failed, tests } = this.tests.run(broken, run.onlyTests);
      // As workflows/queue/run-result.ts passes a command run's result on.
      this.deliver({
        type: 'testRunFinished',
        runId,
        outcome: failed ? 'failed' : 'passed',
        ...(tests === undefined ? {} : { tests, judge: 'command' as const }),
      });
      return;
    }
    const broken = run.tree.some((pr) => this.prs.get(pr)?.bad);
    const failed = broken || bernoulli(this.rng, this.s.f);
    this.deliver({ type: 'testRunFinished', runId, outcome: failed ? 'failed' : 'passed' });
  }

  private deliver(event: EngineEvent): void {
    const started = performance.now();
    const { state, commands } = decide(this.state, event, { now: this.now, newId: () => `id-${++this.ids}` });
    this.decideMs += performance.now() - started;
    this.decideCalls += 1;
    this.state = state;
    this.maxEntries = Math.max(this.maxEntries, state.entries.length);
    if (this.decideCalls % 256 === 0) {
      this.maxStateBytes = Math.max(this.maxStateBytes, JSON.stringify(state).length);
    }
    for (const c of commands) this.execute(c);
    // The engine asks for its next tick through the state; each time is ticked once.
    const wakeAt = state.wakeAt;
    if (wakeAt !== null && !this.ticks.has(wakeAt)) {
      this.ticks.add(wakeAt);
      this.engineAt(wakeAt, { type: 'tick' });
    }
  }

  private execute(c: EngineCommand): void {
    switch (c.type) {
      case 'startTestRun': {
        this.runsStarted += 1;
        if (c.bisection) this.bisectionRuns += 1;
        this.runs.set(c.runId, {
          tree: [...c.ahead, ...c.prs],
          onlyTests: c.onlyTests,
          startedAt: this.now,
          cancelled: false,
        });
        const duration = logNormal(this.rng, this.s.ciMinutes * MINUTE, this.s.ciSigma);
        this.push({ at: this.now + duration, kind: 'finish', runId: c.runId });
        return;
      }
      case 'cancelTestRun': {
        const run = this.runs.get(c.runId);
        if (!run || run.cancelled) return;
        run.cancelled = true;
        this.cancelledRuns += 1;
        this.cancelReasons[c.reason] = (this.cancelReasons[c.reason] ?? 0) + 1;
        this.ciTime += (this.now - run.startedAt) / (this.s.ciMinutes * MINUTE);
        return;
      }
      case 'merge':
        this.engineAt(this.now, { type: 'mergeDone', mergeId: c.mergeId, newTipSha: `tip-${c.mergeId}` });
        return;
      case 'notifyPr':
        if (isTerminal(c.to)) this.resolve(c.pr, c.to === 'merged');
        return;
      default:
        return assertUnreachable(c);
    }
  }

  private resolve(pr: number, merged: boolean): void {
    this.resolutions.push({ at: this.now, merged, pr });
    const done = this.resolutions.length;
    if (done % 500 === 0) this.onProgress?.(done);
    if (this.s.arrivals.kind === 'backlog' && this.submitted < this.s.prs)
      this.push({ at: this.now, kind: 'arrival' });
  }

  private outcome(): Outcome {
    const { warmup } = this.s;
    const measured = this.resolutions.slice(warmup);
    const from = this.resolutions[warmup - 1]?.at ?? 0;
    // In backlog mode the queue is saturated only until the last submission; after it, it drains.
    const to = this.s.arrivals.kind === 'backlog' ? this.lastSubmission : (this.resolutions.at(-1)?.at ?? 0);
    const inWindow = measured.filter((r) => r.at > from && r.at <= to);
    const hours = Math.max(1e-9, (to - from) / (60 * MINUTE));
    let goodEjected = 0;
    let goodResolved = 0;
    let badMerged = 0;
    const timeToMerge: number[] = [];
    for (const r of measured) {
      const pr = this.prs.get(r.pr)!;
      if (!pr.bad) goodResolved += 1;
      if (!pr.bad && !r.merged) goodEjected += 1;
      if (pr.bad && r.merged) badMerged += 1;
      if (r.merged) timeToMerge.push((r.at - pr.submittedAt) / MINUTE);
    }
    return {
      resolved: measured.length,
      merged: measured.filter((r) => r.merged).length,
      resolvedPerHour: inWindow.length / hours,
      mergedPerHour: inWindow.filter((r) => r.merged).length / hours,
      runsStarted: this.runsStarted,
      mergedTotal: this.resolutions.filter((r) => r.merged).length,
      cancelReasons: this.cancelReasons,
      bisectionRuns: this.bisectionRuns,
      cancelledRuns: this.cancelledRuns,
      ciTime: this.ciTime,
      goodEjected,
      goodResolved,
      badMerged,
      knownFlaky: this.tests?.knownFlaky() ?? 0,
      timeToMerge,
      lastResolutionMinute: (this.resolutions.at(-1)?.at ?? 0) / MINUTE,
      decideCalls: this.decideCalls,
      decideMs: this.decideMs,
      maxEntries: this.maxEntries,
      maxStateBytes: this.maxStateBytes,
      finalStateBytes: JSON.stringify(this.state).length,
      finalEntries: this.state.entries.length,
      finalGroups: this.state.groups.length,
    };
  }

  private engineAt(at: number, event: EngineEvent): void {
    this.push({ at, kind: 'engine', event });
  }

  private push(e: { at: number } & Happening): void {
    const item: SimEvent = { ...e, seq: this.seq++ };
    const h = this.heap;
    h.push(item);
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): SimEvent | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: SimEvent, b: SimEvent): boolean {
  return a.at !== b.at ? a.at < b.at : a.seq < b.seq;
}

function assertUnreachable(x: never): never {
  throw new Error(`unexpected command ${JSON.stringify(x)}`);
}
