/**
 * Adaptive batching against a sweep of fixed (B, C), in the same run (issue 25):
 * `npx tsx bench/simulate/main.ts --only adaptive`.
 *
 * The budget both sides get: batches of at most MAX_SIZE PRs, at most MAX_DEPTH main runs and
 * MAX_DEPTH bisection runs in flight, `bisection_skip_redundant_tests`, the same backlog at
 * saturation, and a cost target (each of TARGETS) in runs per merged PR. The adaptive queue is given
 * exactly those settings (`batchingMode: adaptive`, `batchingMinSize: MAX_SIZE`, `concurrency:
 * MAX_DEPTH`, `batchingRunsPerPrTarget`); each fixed row is one (B, C) of the grid with the default
 * speculation threshold. The best fixed row of a world is the one with the highest throughput among
 * those within the cost target (when none is, the cheapest), chosen after measuring all of them on
 * the same seeds; nothing is a hard-coded figure. Adaptive passes a world when its rate is at least
 * 95% of the best fixed row's and its cost is within the target (when no fixed row is, within 5% of
 * the cheapest).
 *
 * Worlds: saturation at p = 2, 5 and 10% (a backlog that never empties; resolved/h); a bursty trace
 * at p = 5% (QUIET_HOURS hours of one PR an hour, then BURST PRs within BURST_MINUTES; the burst's
 * PRs per hour from its first arrival to the last resolution); and a quiet queue (one PR an hour,
 * p = 5%), where adaptive's p50 time to merge is compared with B = 1 (no batching, same depth).
 */
import { type QueueConfigPatch } from '../../engine';
import { CI_MINUTES } from './policies';
import { exponential, seededRng } from './rng';
import { formatNumber, formatPercent, markdownTable, percentile } from './stats';
import { simulate, type Arrivals, type Outcome } from './world';

export const MAX_SIZE = 16;
export const MAX_DEPTH = 4;
/** The cost targets judged: issue 25's 0.5, which no fixed row meets at p = 10%, and a looser one. */
export const TARGETS = [0.5, 0.75];
/** Every row keeps this backlog at saturation, so all are offered the same queue (the largest need). */
const BACKLOG = 3 * 16 * 4 + 20;
const SIZES = [2, 3, 4, 6, 8, 12, 16];
const DEPTHS = [1, 2, 3, 4];
const QUIET_HOURS = 6;
const BURST = 200;
const BURST_MINUTES = 30;
const QUIET_PER_HOUR = 1;
/** Adaptive must reach this share of the best fixed row. */
const WITHIN = 0.95;

export interface AdaptiveOptions {
  seeds: number;
  prs: number;
}

interface Candidate {
  label: string;
  config: QueueConfigPatch;
  backlog: number;
}

interface Row {
  label: string;
  /** resolved/h at saturation, or the burst's PRs per hour. */
  rate: number;
  runsPerMerged: number;
  p50: number;
  p95: number;
}

const common: QueueConfigPatch = {
  batch: true,
  bisectionConcurrency: MAX_DEPTH,
  optimizationMode: 'bisection_skip_redundant_tests',
};

function adaptive(target: number): Candidate {
  return {
    label: `adaptive, target ${target}`,
    config: {
      ...common,
      batchingMode: 'adaptive',
      batchingMinSize: MAX_SIZE,
      concurrency: MAX_DEPTH,
      batchingRunsPerPrTarget: target,
    },
    backlog: BACKLOG,
  };
}

function grid(): Candidate[] {
  return SIZES.flatMap((b) =>
    DEPTHS.map((c) => ({
      label: `fixed B=${b} C=${c}`,
      config: { ...common, batchingMinSize: b, concurrency: c },
      backlog: BACKLOG,
    })),
  );
}

function run(
  c: Candidate,
  p: number,
  arrivals: Arrivals,
  prs: number,
  warmup: number,
  seed: number,
): Outcome {
  return simulate({
    config: c.config,
    p,
    f: 0,
    ciMinutes: CI_MINUTES,
    ciSigma: 0,
    lanes: 1,
    arrivals,
    prs,
    warmup,
    seed: seed * 7919 + 25,
  });
}

function saturation(c: Candidate, p: number, o: AdaptiveOptions): Row {
  const outs: Outcome[] = [];
  for (let seed = 1; seed <= o.seeds; seed += 1)
    outs.push(run(c, p, { kind: 'backlog', size: c.backlog }, o.prs, Math.round(o.prs / 10), seed));
  return { ...row(c.label, outs, (x) => x.resolvedPerHour), p50: Number.NaN, p95: Number.NaN };
}

/** One PR an hour for QUIET_HOURS, then BURST PRs at random within BURST_MINUTES. */
function burstTrace(seed: number): number[] {
  const rng = seededRng(seed * 104_729 + 7);
  const times: number[] = [];
  for (
    let t = exponential(rng, 60 / QUIET_PER_HOUR);
    t < QUIET_HOURS * 60;
    t += exponential(rng, 60 / QUIET_PER_HOUR)
  )
    times.push(t);
  const burst = Array.from({ length: BURST }, () => QUIET_HOURS * 60 + rng.next() * BURST_MINUTES);
  return [...times, ...burst.sort((a, b) => a - b)];
}

function bursty(c: Candidate, o: AdaptiveOptions): Row {
  const outs: Outcome[] = [];
  for (let seed = 1; seed <= o.seeds; seed += 1) {
    const minutes = burstTrace(seed);
    outs.push(run(c, 0.05, { kind: 'trace', minutes }, minutes.length, 0, seed));
  }
  // The burst's PRs per hour, from its first arrival until the last PR resolved.
  return row(c.label, outs, (x) => BURST / ((x.lastResolutionMinute - QUIET_HOURS * 60) / 60));
}

function quiet(c: Candidate, o: AdaptiveOptions): Row {
  const outs: Outcome[] = [];
  const prs = Math.max(100, Math.round(o.prs / 10));
  for (let seed = 1; seed <= o.seeds; seed += 1)
    outs.push(run(c, 0.05, { kind: 'poisson', perHour: QUIET_PER_HOUR }, prs, 0, seed));
  return row(c.label, outs, (x) => x.resolvedPerHour);
}

function row(label: string, outs: readonly Outcome[], rate: (x: Outcome) => number): Row {
  const sum = (f: (x: Outcome) => number) => outs.reduce((acc, x) => acc + f(x), 0);
  const latencies = outs.flatMap((x) => x.timeToMerge);
  const bad = sum((x) => x.badMerged);
  if (bad > 0) throw new Error(`${label}: ${bad} bad PRs merged`);
  return {
    label,
    rate: sum(rate) / outs.length,
    runsPerMerged: sum((x) => x.runsStarted) / sum((x) => x.mergedTotal),
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
  };
}

/** Highest rate within the cost target; when no row meets it, the cheapest (marked). */
function bestOf(rows: readonly Row[], target: number): Row {
  const within = rows.filter((r) => r.runsPerMerged <= target);
  if (within.length > 0) return within.reduce((a, b) => (b.rate > a.rate ? b : a));
  const cheapest = rows.reduce((a, b) => (b.runsPerMerged < a.runsPerMerged ? b : a));
  return { ...cheapest, label: `${cheapest.label} (cheapest: none within ${target})` };
}

export function adaptiveReport(o: AdaptiveOptions, progress: (line: string) => void): string {
  const candidates = grid();
  const lines: string[][] = [];
  const verdicts: string[][] = [];
  const say = (world: string, r: Row) =>
    progress(
      `${world} ${r.label}: ${formatNumber(r.rate)}/h, ${formatNumber(r.runsPerMerged, 3)} runs/merged`,
    );
  const compare = (world: string, rows: readonly Row[], measure: (c: Candidate) => Row) => {
    for (const target of TARGETS) {
      const a = measure(adaptive(target));
      say(world, a);
      const best = bestOf(rows, target);
      const ratio = a.rate / best.rate;
      // Out of reach (no fixed row meets the target): as cheap as the cheapest fixed row, give or
      // take 5% (the seeds' noise), is as close as a queue can come.
      const withinCost = a.runsPerMerged <= Math.max(target, best.runsPerMerged * 1.05);
      lines.push(
        [world, best.label, formatNumber(best.rate), formatNumber(best.runsPerMerged, 3), fmtLatency(best)],
        [world, a.label, formatNumber(a.rate), formatNumber(a.runsPerMerged, 3), fmtLatency(a)],
      );
      verdicts.push([
        `${world}, target ${target}: adaptive >= ${WITHIN * 100}% of the best fixed`,
        `${formatPercent(ratio, 1)} at ${formatNumber(a.runsPerMerged, 3)} runs/merged (best: ${best.label.replace('fixed ', '')})`,
        ratio >= WITHIN && withinCost ? 'PASS' : ratio >= WITHIN ? 'MISS (cost)' : 'MISS',
      ]);
    }
  };
  for (const p of [0.02, 0.05, 0.1]) {
    const world = `saturation p=${p * 100}%`;
    const rows = candidates.map((c) => saturation(c, p, o));
    rows.forEach((r) => say(world, r));
    compare(world, rows, (c) => saturation(c, p, o));
  }
  const burstWorld = `burst of ${BURST} p=5%`;
  const burstRows = candidates.map((c) => bursty(c, o));
  burstRows.forEach((r) => say(burstWorld, r));
  compare(burstWorld, burstRows, (c) => bursty(c, o));

  const one: Candidate = {
    label: `B=1 C=${MAX_DEPTH} (no batching)`,
    config: { concurrency: MAX_DEPTH },
    backlog: 0,
  };
  const quietWorld = `quiet, ${QUIET_PER_HOUR} PR/h p=5%`;
  const q1 = quiet(one, o);
  lines.push([quietWorld, q1.label, '', formatNumber(q1.runsPerMerged, 3), fmtLatency(q1)]);
  for (const target of TARGETS) {
    const qa = quiet(adaptive(target), o);
    lines.push([quietWorld, qa.label, '', formatNumber(qa.runsPerMerged, 3), fmtLatency(qa)]);
    verdicts.push([
      `quiet, target ${target}: adaptive p50 time to merge <= B=1`,
      `${formatNumber(qa.p50, 1)} vs ${formatNumber(q1.p50, 1)} min`,
      qa.p50 <= q1.p50 ? 'PASS' : 'MISS',
    ]);
  }
  return [
    `Adaptive batching (B <= ${MAX_SIZE}, C <= ${MAX_DEPTH}) vs the best fixed (B, C) of a sweep (B in ${SIZES.join(', ')}; ` +
      `C in ${DEPTHS.join(', ')}; ${MAX_DEPTH} bisection slots and a backlog of ${BACKLOG} for all; best = highest rate ` +
      `within the target's runs/merged), ${o.seeds} seed(s), ${o.prs} PRs per saturation run:\n`,
    markdownTable(['world', 'policy', 'resolved/h (burst: PRs/h)', 'runs/merged', 'p50 / p95 min'], lines),
    '',
    markdownTable(['target', 'measured', 'result'], verdicts),
  ].join('\n');
}

/** Saturation rows have none: their time to merge is the backlog the run keeps, not the policy's. */
function fmtLatency(r: Row): string {
  if (Number.isNaN(r.p50)) return '—';
  return `${formatNumber(r.p50, 0)} / ${formatNumber(r.p95, 0)}`;
}
