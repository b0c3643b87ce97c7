/**
 * The capacity table of docs/deployment.md, computed from measured per-unit figures (per-unit.ts) by
 * plain arithmetic. Every assumption the arithmetic adds is a named constant here and is said in the
 * docs next to the table:
 *
 * - merged PRs an hour are taken as the peak hour itself; results a day arrive at PEAK_FACTOR times
 *   their daily average in the busiest hour;
 * - there is one queue per merged PR an hour (1,000 queues at 1,000 merged PRs an hour), each costing
 *   its measured standing (idle) cost on top, and the stack's fixed cost (no queue) is added once;
 * - a replica is one core kept at TARGET_UTILISATION at peak, and there are at least two of each
 *   (one may be drained or lost);
 * - a Temporal history shard is given at most WRITES_PER_SHARD persistence writes a second at peak, and
 *   never fewer than MIN_SHARDS shards (the compose file's and Temporal's Helm chart's 512), rounded up
 *   to a power of two: shards cannot be changed once the cluster exists;
 * - PostgreSQL keeps merge-queue data for KEEP_PR_DAYS and raw test results for the default raw
 *   retention (RESULT_RETENTION_DAYS); Temporal keeps closed histories for TEMPORAL_RETENTION_DAYS
 *   (the compose namespace's retention).
 */
import { ROLES, type Role } from './processes';
import type { UnitCost } from './per-unit';

export const PEAK_FACTOR = 3;
export const TARGET_UTILISATION = 0.6;
export const WRITES_PER_SHARD = 50;
export const MIN_SHARDS = 512;
export const KEEP_PR_DAYS = 365;
export const RESULT_RETENTION_DAYS = 90;
export const TEMPORAL_RETENTION_DAYS = 30;

export const PR_RATES = [100, 1_000, 10_000] as const;
export const RESULT_RATES = [1_000_000, 10_000_000, 100_000_000] as const;

export interface PlanRow {
  load: string;
  cores: Record<Role, number>;
  replicas: { api: number; worker: number; executor: number };
  shards: number;
  persistenceWritesPerSecond: number | null;
  postgresBytes: number;
  temporalBytes: number;
}

const replicasFor = (cores: number) => Math.max(2, Math.ceil(cores / TARGET_UTILISATION));
const powerOfTwoAtLeast = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

function row(
  load: string,
  unit: UnitCost,
  perSecondAtPeak: number,
  standing: { cost: UnitCost; queues: number } | null,
  fixed: UnitCost,
  storedUnits: number,
  temporalUnits: number,
): PlanRow {
  const cores = Object.fromEntries(
    ROLES.map((r) => [
      r,
      (unit.cpuMs[r] * perSecondAtPeak +
        (standing ? (standing.cost.cpuMs[r] * standing.queues) / 3600 : 0) +
        fixed.cpuMs[r] / 3600) /
        1000,
    ]),
  ) as Record<Role, number>;
  const writes =
    unit.persistenceWrites === null
      ? null
      : unit.persistenceWrites * perSecondAtPeak +
        (standing ? ((standing.cost.persistenceWrites ?? 0) * standing.queues) / 3600 : 0) +
        (fixed.persistenceWrites ?? 0) / 3600;
  return {
    load,
    cores,
    replicas: {
      api: replicasFor(cores.api),
      worker: replicasFor(cores.worker),
      executor: replicasFor(cores.executor),
    },
    shards: Math.max(MIN_SHARDS, powerOfTwoAtLeast((writes ?? 0) / WRITES_PER_SHARD)),
    persistenceWritesPerSecond: writes,
    postgresBytes: unit.pgBytes * storedUnits,
    temporalBytes: unit.historyBytes * temporalUnits,
  };
}

export function plan(
  perPr: UnitCost,
  perResult: UnitCost,
  perQueueHour: UnitCost,
  fixed: UnitCost,
): PlanRow[] {
  return [
    ...PR_RATES.map((h) =>
      row(
        `${h.toLocaleString('en-US')} merged PRs/h`,
        perPr,
        h / 3600,
        { cost: perQueueHour, queues: h },
        fixed,
        h * 24 * KEEP_PR_DAYS,
        h * 24 * TEMPORAL_RETENTION_DAYS,
      ),
    ),
    ...RESULT_RATES.map((d) =>
      row(
        `${d / 1_000_000}M results/day`,
        perResult,
        (d / 86_400) * PEAK_FACTOR,
        null,
        fixed,
        d * RESULT_RETENTION_DAYS,
        d * TEMPORAL_RETENTION_DAYS,
      ),
    ),
  ];
}

const sig = (n: number) => (n >= 10 ? n.toFixed(0) : n >= 1 ? n.toFixed(1) : n.toFixed(2));
export const bytes = (n: number) => {
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return `${sig(n)} ${units[i]}`;
};

/** The table as docs/deployment.md prints it. */
export function planTable(rows: PlanRow[]): { header: string[]; rows: string[][] } {
  return {
    header: [
      'load',
      'api cores → replicas',
      'worker cores → replicas',
      'executor cores (railyard only) → replicas',
      'Temporal cores (dev server)',
      'persistence writes/s → shards',
      'PostgreSQL cores',
      'PostgreSQL data',
      'Temporal histories',
    ],
    rows: rows.map((r) => [
      r.load,
      `${sig(r.cores.api)} → ${r.replicas.api}`,
      `${sig(r.cores.worker)} → ${r.replicas.worker}`,
      `${sig(r.cores.executor)} → ${r.replicas.executor}`,
      sig(r.cores.temporal),
      `${r.persistenceWritesPerSecond === null ? 'not measured' : sig(r.persistenceWritesPerSecond)} → ${r.shards}`,
      sig(r.cores.postgres),
      bytes(r.postgresBytes),
      bytes(r.temporalBytes),
    ]),
  };
}
