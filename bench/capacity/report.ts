/**
 * The capacity run's report: the raw phases (what was measured), the per-unit figures derived from them,
 * the capacity plan, and the tables printed at the end. The JSON holds all of it, so the docs table can
 * be recomputed from a file without running the stack again.
 */
import { table } from '../../scripts/lib/markdown-table';
import { percentile } from '../queue/stats';
import type { HistoryTotals } from './histories';
import { idleCost, perHour, perQueueHour, perUnit, type UnitCost } from './per-unit';
import { bytes, plan, planTable, type PlanRow } from './plan';
import { ROLES } from './processes';
import type { QueueLoadResult } from './queues';
import type { PhaseCost } from './snapshot';
import type { UploadLoadResult } from './uploads';

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
}

export const summarise = (ms: number[]): LatencySummary => ({
  count: ms.length,
  p50: percentile(ms, 50),
  p95: percentile(ms, 95),
  p99: percentile(ms, 99),
});

export interface CapacityReport {
  date: string;
  machine: { cores: number; model: string; memoryBytes: number };
  command: string;
  options: Record<string, unknown>;
  phases: {
    baseline: { cost: PhaseCost; histories: HistoryTotals };
    create: { cost: PhaseCost; histories: HistoryTotals; queues: number };
    idle: { cost: PhaseCost; histories: HistoryTotals; queues: number };
    merge: { cost: PhaseCost; histories: HistoryTotals; result: QueueLoadResult };
    upload: { cost: PhaseCost; histories: HistoryTotals; result: UploadLoadResult };
  };
  /** API latency by route, as the driver saw it, in each load phase. */
  latencies: { merge: Record<string, LatencySummary>; upload: Record<string, LatencySummary> };
  submitToMerge: LatencySummary;
  /** Answers retried (429, 503) by route and status, with the last body. */
  retries: Record<string, { count: number; body: string }>;
  workerRss: { start: number; afterQueues: number; afterMerge: number; max: number };
}

export interface Derived {
  perMergedPr: UnitCost;
  perResult: UnitCost;
  perQueueHour: UnitCost;
  perQueueCreated: UnitCost;
  /** The stack with no queue, per hour. */
  fixedPerHour: UnitCost;
  plan: PlanRow[];
}

export function derive(r: CapacityReport): Derived {
  const idle = idleCost(r.phases.idle.cost, r.phases.idle.histories);
  const perMergedPr = perUnit(
    r.phases.merge.cost,
    r.phases.merge.histories,
    r.phases.merge.result.merged,
    idle,
  );
  const perResult = perUnit(
    r.phases.upload.cost,
    r.phases.upload.histories,
    r.phases.upload.result.results,
    idle,
  );
  const baseline = idleCost(r.phases.baseline.cost, r.phases.baseline.histories);
  const queueHour = perQueueHour(idle, baseline, r.phases.idle.queues);
  const fixedPerHour = perHour(baseline);
  return {
    perMergedPr,
    perResult,
    perQueueHour: queueHour,
    perQueueCreated: perUnit(r.phases.create.cost, r.phases.create.histories, r.phases.create.queues),
    fixedPerHour,
    plan: plan(perMergedPr, perResult, queueHour, fixedPerHour),
  };
}

const f = (n: number | null, digits = 1) => (n === null ? 'not measured' : n.toFixed(digits));

export function formatReport(r: CapacityReport): string {
  const d = derive(r);
  const m = r.phases.merge.result;
  const u = r.phases.upload.result;
  const units = [d.perMergedPr, d.perResult, d.perQueueHour, d.perQueueCreated, d.fixedPerHour];
  const line = (name: string, get: (c: UnitCost) => string) => [name, ...units.map(get)];
  const stackCpu = (c: UnitCost) => ROLES.filter((x) => x !== 'driver').reduce((n, x) => n + c.cpuMs[x], 0);
  const out: string[] = [];
  out.push(
    `Capacity run, ${r.date.slice(0, 16)} UTC, ${r.machine.cores} cores (${r.machine.model}): ${r.phases.idle.queues} queues, ` +
      `${String(r.options.active)} active x ${String(r.options.prsPerQueue)} PRs; ${m.merged} merged, ${m.failed} failed, ${m.other} other in ${m.seconds.toFixed(0)} s ` +
      `(${((m.merged / m.seconds) * 3600).toFixed(0)} merged/h); ${u.uploads} uploads, ${u.results.toLocaleString('en-US')} results in ${u.seconds.toFixed(0)} s ` +
      `(${(u.results / u.seconds).toFixed(0)} results/s). CPU figures are CPU-seconds of each process tree, not wall time.\n`,
  );
  out.push(
    table(
      [
        'per unit',
        'merged PR (marginal)',
        'uploaded result',
        'idle queue-hour',
        'queue created',
        'no queue, per hour',
      ],
      [
        ...ROLES.map((role) => line(`CPU ms, ${role}`, (c) => f(c.cpuMs[role], role === 'driver' ? 1 : 2))),
        line('CPU ms, stack (all but driver)', (c) => f(stackCpu(c), 2)),
        line('Temporal history events', (c) => f(c.historyEvents, 2)),
        line('Temporal history bytes', (c) => bytes(c.historyBytes)),
        line('Temporal persistence writes', (c) => f(c.persistenceWrites, 2)),
        line('Temporal persistence reads', (c) => f(c.persistenceReads, 2)),
        line('Temporal SQLite file growth', (c) => bytes(c.temporalFileBytes)),
        line('PostgreSQL rows inserted', (c) => f(c.pgRowsInserted, 2)),
        line('PostgreSQL rows updated', (c) => f(c.pgRowsUpdated, 2)),
        line('PostgreSQL bytes (tables + indexes)', (c) => bytes(c.pgBytes)),
      ],
    ),
  );
  const routes = (phase: Record<string, LatencySummary>) =>
    Object.entries(phase).map(([route, s]) => [
      route,
      String(s.count),
      s.p50.toFixed(0),
      s.p95.toFixed(0),
      s.p99.toFixed(0),
    ]);
  out.push(
    `\n${table(
      ['latency (ms)', 'count', 'p50', 'p95', 'p99'],
      [
        [
          'submit → merged',
          String(r.submitToMerge.count),
          r.submitToMerge.p50.toFixed(0),
          r.submitToMerge.p95.toFixed(0),
          r.submitToMerge.p99.toFixed(0),
        ],
        ...routes(r.latencies.merge),
        ...routes(r.latencies.upload),
      ],
    )}`,
  );
  out.push(
    `\nWorker RSS: ${bytes(r.workerRss.start)} at start, ${bytes(r.workerRss.afterQueues)} with ${r.phases.idle.queues} queues, ` +
      `${bytes(r.workerRss.afterMerge)} after the merge load, ${bytes(r.workerRss.max)} at most (sampled every 2 s). ` +
      `Retried answers: ${
        Object.entries(r.retries)
          .map(([k, v]) => `${k} x${v.count} (${v.body})`)
          .join('; ') || 'none'
      }. ` +
      `Polls while waiting: ${(m.polls / Math.max(1, m.merged)).toFixed(1)} getSubmittedPullRequest calls per merged PR (in the API's CPU).`,
  );
  const p = planTable(d.plan);
  out.push(`\nCapacity plan (arithmetic from the figures above; assumptions in bench/capacity/plan.ts):\n`);
  out.push(table(p.header, p.rows));
  return out.join('\n');
}
