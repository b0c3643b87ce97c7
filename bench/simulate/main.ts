/**
 * Merge-queue engine simulation:
 * `npx tsx bench/simulate/main.ts [--quick] [--seeds N] [--prs N] [--only serial|optimistic|batching|lanes|flakes|adaptive]`.
 *
 * For each policy it runs the real engine in a seeded discrete-event world (world.ts) twice per
 * seed: at saturation (a backlog that never empties) for throughput, CI cost and wrong ejections, and
 * with Poisson arrivals at 80% of the measured capacity for time to merge. It prints progress on
 * stderr and, on stdout, the table with each policy's analytic bound and the ratio, the targets with
 * PASS/MISS, the batching rows with and without the speculation threshold side by side, and the
 * engine's own cost on a 1,000-PR queue. `--only adaptive` runs adaptive batching against a sweep of
 * fixed (B, C) instead (adaptive.ts).
 */
import { DEFAULT_CONFIG } from '../../engine';
import { adaptiveReport } from './adaptive';
import { flakeTable, flakeTarget } from './flake-report';
import { entropyFloor, dorfmanRunsPerPr, pipelinedBatchUpperBound } from './bounds';
import { CI_MINUTES, policies, type Policy, type PolicyGroup } from './policies';
import { formatNumber, formatPercent, markdownTable, percentile } from './stats';
import { simulate, type Outcome, type Scenario } from './world';

interface Options {
  seeds: number;
  prs: number;
  quick: boolean;
  only: PolicyGroup | 'adaptive' | null;
}

interface Measured {
  policy: Policy;
  resolvedPerHour: number;
  mergedPerHour: number;
  runsPerMerged: number;
  bisectionRunsPerMerged: number;
  cancelledRunsPerMerged: number;
  ciTimePerMerged: number;
  goodEjectedShare: number;
  goodEjected: number;
  badMerged: number;
  p50: number;
  p95: number;
}

const LATENCY_LOAD = 0.8;

function parseOptions(argv: readonly string[]): Options {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : undefined;
  };
  const quick = argv.includes('--quick');
  const only = argv.includes('--only') ? (argv[argv.indexOf('--only') + 1] as Options['only']) : null;
  return {
    quick,
    only,
    seeds: value('--seeds') ?? (quick ? 1 : 2),
    prs: value('--prs') ?? (quick ? 400 : 4000),
  };
}

function scenario(
  policy: Policy,
  o: Options,
  seed: number,
  arrivals: Scenario['arrivals'],
  prs: number,
): Scenario {
  return {
    config: policy.config,
    p: policy.p,
    f: policy.f,
    ...(policy.tests ? { tests: policy.tests } : {}),
    ciMinutes: CI_MINUTES,
    ciSigma: 0,
    lanes: policy.lanes,
    arrivals,
    prs,
    warmup: Math.round(prs / 10),
    seed: seed * 7919 + (o.quick ? 1 : 0),
  };
}

function measure(policy: Policy, o: Options, tag: string): Measured {
  const saturated: Outcome[] = [];
  const latencies: number[] = [];
  for (let seed = 1; seed <= o.seeds; seed += 1) {
    const progress = (phase: string) => (done: number) => {
      if (process.stderr.isTTY) process.stderr.write(`\r${tag} seed ${seed} ${phase}: ${done} resolved   `);
    };
    const sat = simulate(
      scenario(policy, o, seed, { kind: 'backlog', size: policy.backlog }, o.prs),
      progress('saturation'),
    );
    saturated.push(sat);
    const perHour = Math.max(0.1, LATENCY_LOAD * sat.resolvedPerHour);
    const light = simulate(
      scenario(policy, o, seed, { kind: 'poisson', perHour }, Math.round(o.prs / 2)),
      progress('80% load'),
    );
    latencies.push(...light.timeToMerge);
  }
  clearLine();
  const sum = (f: (x: Outcome) => number) => saturated.reduce((acc, x) => acc + f(x), 0);
  return {
    policy,
    resolvedPerHour: sum((x) => x.resolvedPerHour) / saturated.length,
    mergedPerHour: sum((x) => x.mergedPerHour) / saturated.length,
    runsPerMerged: sum((x) => x.runsStarted) / sum((x) => x.mergedTotal),
    bisectionRunsPerMerged: sum((x) => x.bisectionRuns) / sum((x) => x.mergedTotal),
    cancelledRunsPerMerged: sum((x) => x.cancelledRuns) / sum((x) => x.mergedTotal),
    ciTimePerMerged: sum((x) => x.ciTime) / sum((x) => x.mergedTotal),
    goodEjectedShare: sum((x) => x.goodEjected) / sum((x) => x.goodResolved),
    goodEjected: sum((x) => x.goodEjected),
    badMerged: sum((x) => x.badMerged),
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
  };
}

interface Target {
  text: string;
  value: string;
  pass: boolean;
}

function targets(rows: readonly Measured[]): Target[] {
  const byId = new Map(rows.map((r) => [r.policy.id, r]));
  const out: Target[] = [];
  const judged = rows.filter((r) => r.policy.judged);
  for (const r of judged.filter((x) => x.policy.group === 'serial' || x.policy.group === 'optimistic')) {
    const ratio = r.resolvedPerHour / (r.policy.bound ?? Number.NaN);
    out.push({
      text: `${r.policy.label} p=${pct(r.policy.p)}: >= 98% of bound`,
      value: formatPercent(ratio, 1),
      pass: ratio >= 0.98,
    });
  }
  for (const r of judged.filter((x) => x.policy.group === 'batching')) {
    // Issue 25: B=4 C=4 pays for its re-tests of good PRs, so its cost target is 0.52, not 0.5.
    const maxRuns = r.policy.id === 'batch-b4-c4' ? 0.52 : 0.5;
    out.push({
      text: `${r.policy.label} p=5%: <= ${maxRuns} runs per merged PR`,
      value: formatNumber(r.runsPerMerged, 3),
      pass: r.runsPerMerged <= maxRuns,
    });
  }
  // Pipelined batches are judged against the corrected ceiling of §5.3 (bounds.ts), not the old
  // upper bound, which no bisecting queue can reach.
  for (const r of judged.filter((x) => x.policy.id === 'batch-b8-c4')) {
    const ratio = r.resolvedPerHour / (r.policy.bound ?? Number.NaN);
    out.push({
      text: `${r.policy.label} p=5%: >= 90% of the corrected ceiling`,
      value: formatPercent(ratio, 1),
      pass: ratio >= 0.9,
    });
  }
  const one = byId.get('lanes-1');
  const ten = byId.get('lanes-10');
  if (one && ten) {
    const scale = ten.resolvedPerHour / one.resolvedPerHour;
    out.push({
      text: '10 disjoint lanes: >= 9x one lane',
      value: `${formatNumber(scale, 2)}x`,
      pass: scale >= 9,
    });
  }
  const clean = byId.get('flakes-f0');
  const flakes = byId.get('flakes-f0.05');
  if (clean && flakes) {
    out.push({
      text: 'f=5%, depth 1 + optimistic: <= 0.5% good PRs ejected',
      value: formatPercent(flakes.goodEjectedShare, 3),
      pass: flakes.goodEjectedShare <= 0.005,
    });
    const keep = flakes.resolvedPerHour / clean.resolvedPerHour;
    out.push({
      text: 'f=5%, depth 1 + optimistic: throughput >= 90% of f=0',
      value: formatPercent(keep, 1),
      pass: keep >= 0.9,
    });
  }
  const flaky = flakeTarget(rows);
  if (flaky) out.push(flaky);
  const badMerged = rows.reduce((acc, r) => acc + r.badMerged, 0);
  out.push({ text: 'no bad PR ever merged (all runs)', value: String(badMerged), pass: badMerged === 0 });
  return out;
}

function pct(p: number): string {
  return `${Math.round(p * 100)}%`;
}

function engineCost(o: Options): string[][] {
  const rows: string[][] = [];
  const cases = [
    { label: 'single, C=10', config: { concurrency: 10 }, lanes: 1 },
    { label: 'parallel, 10 lanes, C=10', config: { mode: 'parallel' as const, concurrency: 10 }, lanes: 10 },
  ];
  for (const c of cases) {
    process.stderr.write(`engine cost: ${c.label}\n`);
    const out = simulate({
      config: c.config,
      p: 0.05,
      f: 0,
      ciMinutes: CI_MINUTES,
      ciSigma: 0,
      lanes: c.lanes,
      arrivals: { kind: 'backlog', size: 1000 },
      prs: o.quick ? 1100 : 2500,
      warmup: 100,
      seed: 1,
    });
    rows.push([
      c.label,
      String(out.maxEntries),
      String(out.decideCalls),
      formatNumber(out.decideCalls / (out.decideMs / 1000), 0),
      formatNumber(out.decideMs / out.decideCalls, 3),
      `${formatNumber(out.maxStateBytes / 1024, 0)} KiB`,
      `${out.finalEntries} entries, ${out.finalGroups} groups, ${out.finalStateBytes} B`,
    ]);
  }
  return rows;
}

/** Each batching row next to the same policy without the speculation threshold (same seeds). */
function beforeAfter(rows: readonly Measured[]): string[][] {
  const byId = new Map(rows.map((r) => [r.policy.id, r]));
  const cell = (before: number, after: number, digits: number) =>
    `${formatNumber(before, digits)} → ${formatNumber(after, digits)}`;
  return rows.flatMap((after) => {
    const before = after.policy.before === undefined ? undefined : byId.get(after.policy.before);
    if (!before) return [];
    return [
      [
        after.policy.label,
        cell(before.resolvedPerHour, after.resolvedPerHour, 2),
        signed(after.resolvedPerHour / before.resolvedPerHour - 1),
        cell(before.runsPerMerged, after.runsPerMerged, 3),
        cell(before.cancelledRunsPerMerged, after.cancelledRunsPerMerged, 3),
        cell(before.bisectionRunsPerMerged, after.bisectionRunsPerMerged, 3),
        `${formatNumber(before.p50, 0)} / ${formatNumber(before.p95, 0)} → ${formatNumber(after.p50, 0)} / ${formatNumber(after.p95, 0)}`,
      ],
    ];
  });
}

function signed(change: number): string {
  return `${change >= 0 ? '+' : ''}${formatPercent(change, 1)}`;
}

function clearLine(): void {
  if (process.stderr.isTTY) process.stderr.write('\r' + ' '.repeat(100) + '\r');
}

function main(): void {
  const o = parseOptions(process.argv.slice(2));
  if (o.only === 'adaptive') {
    const started = Date.now();
    const report = adaptiveReport({ seeds: o.seeds, prs: o.prs }, (line) =>
      process.stderr.write(`${line}\n`),
    );
    console.log(
      `Merge-queue engine simulation, adaptive batching: T = ${CI_MINUTES} min (fixed); ${((Date.now() - started) / 1000).toFixed(0)} s.\n`,
    );
    console.log(report);
    return;
  }
  const all = o.only ? policies().filter((p) => p.group === o.only) : policies();
  const list = o.quick ? all.filter((p) => p.id === 'optimistic-c4-p0.05') : all;
  const started = Date.now();
  const rows: Measured[] = [];
  list.forEach((policy, i) => {
    const tag = `[${i + 1}/${list.length}] ${policy.label} p=${pct(policy.p)} f=${pct(policy.f)}`;
    rows.push(measure(policy, o, tag));
    process.stderr.write(`${tag}: ${formatNumber(rows.at(-1)!.resolvedPerHour)} resolved/h\n`);
  });
  const table = markdownTable(
    [
      'policy',
      'p',
      'f',
      'merged/h',
      'resolved/h',
      'bound/h',
      'ratio',
      'p50 / p95 min',
      'runs/merged',
      'CI time/merged',
      'good ejected',
    ],
    rows.map((r) => [
      r.policy.label,
      pct(r.policy.p),
      pct(r.policy.f),
      formatNumber(r.mergedPerHour),
      formatNumber(r.resolvedPerHour),
      formatNumber(r.policy.bound ?? Number.NaN),
      formatPercent(r.resolvedPerHour / (r.policy.bound ?? Number.NaN), 1),
      `${formatNumber(r.p50, 0)} / ${formatNumber(r.p95, 0)}`,
      formatNumber(r.runsPerMerged, 3),
      formatNumber(r.ciTimePerMerged, 3),
      `${formatPercent(r.goodEjectedShare, 2)} (${r.goodEjected})`,
    ]),
  );
  const checks = targets(rows);
  const targetTable = markdownTable(
    ['target', 'measured', 'result'],
    checks.map((t) => [t.text, t.value, t.pass ? 'PASS' : 'MISS']),
  );
  const sideBySide = markdownTable(
    [
      `policy (no threshold → ${DEFAULT_CONFIG.speculationThreshold})`,
      'resolved/h',
      'change',
      'runs/merged',
      'of which cancelled',
      'of which bisection',
      'p50 / p95 min',
    ],
    beforeAfter(rows),
  );
  const cost = markdownTable(
    [
      'engine',
      'queue size',
      'decide calls',
      'events/s',
      'ms/event',
      'state size (peak)',
      'state after all resolved',
    ],
    o.only ? [] : engineCost(o),
  );
  const elapsed = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `Merge-queue engine simulation: T = ${CI_MINUTES} min (fixed), ${o.seeds} seed(s), ${o.prs} PRs per ` +
      `saturation run, time to merge at ${LATENCY_LOAD * 100}% of measured capacity; ${elapsed} s.\n`,
  );
  console.log(table);
  console.log(
    `\nBatching reference at p=5%: Dorfman best ${formatNumber(dorfmanRunsPerPr(5, 0.05), 2)} runs/PR (B=5), entropy floor ${formatNumber(entropyFloor(0.05), 2)}. ` +
      `bound/h of the batching rows is the corrected ceiling of §5.3; the old formula, an upper bound no bisecting queue reaches, ` +
      `gives ${formatNumber(pipelinedBatchUpperBound(4, 4, 0.05, CI_MINUTES))} (B=4 C=4) and ${formatNumber(pipelinedBatchUpperBound(8, 4, 0.05, CI_MINUTES))} (B=8 C=4).\n`,
  );
  console.log(targetTable);
  const flakeRows = flakeTable(rows);
  if (flakeRows.length > 0) {
    console.log('\nFlaky-test world (issue 28), each f next to the per-run world on the same seeds:\n');
    console.log(
      markdownTable(
        [
          'policy',
          'f per run',
          'world, engine',
          'resolved/h',
          'merged/h',
          'runs/merged',
          'good ejected',
          'bad merged',
        ],
        flakeRows,
      ),
    );
  }
  console.log('\nSpeculation threshold (speculation-threshold.ts), before → after, same seeds:\n');
  console.log(sideBySide);
  if (o.only) return;
  console.log('');
  console.log(cost);
}

main();
