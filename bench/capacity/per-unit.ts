/**
 * The per-unit figures of a capacity run: each phase's cost divided by what it did (merged PRs,
 * uploaded results, queue-hours of idling). Per merged PR the figure is marginal: the idle phase's
 * standing cost of the same queues over the same time is taken out, so it is what one more merged PR
 * costs; that standing cost is given on its own, per queue and hour, above the stack's fixed cost
 * (an idle window before any queue existed).
 *
 * Rule: a figure that was not measured is null, never zero (Temporal's metrics endpoint can be absent).
 */
import { ROLES, type CpuByRole } from './processes';
import type { PhaseCost } from './snapshot';
import type { HistoryTotals } from './histories';

export interface UnitCost {
  /** CPU milliseconds by role. */
  cpuMs: CpuByRole;
  historyEvents: number;
  historyBytes: number;
  persistenceWrites: number | null;
  persistenceReads: number | null;
  /** Temporal's SQLite file (WAL included): growth, an approximation of its stored bytes. */
  temporalFileBytes: number;
  pgRowsInserted: number;
  pgRowsUpdated: number;
  pgBytes: number;
}

export function perUnit(
  cost: PhaseCost,
  histories: HistoryTotals,
  units: number,
  idle?: UnitCost & { seconds: number },
): UnitCost {
  // The idle phase's cost for as long as this phase lasted, with the same queues.
  const share = idle ? cost.at / 1000 / idle.seconds : 0;
  const less = (v: number, i: number | null | undefined) => v - share * (i ?? 0);
  const n = Math.max(1, units);
  return {
    cpuMs: Object.fromEntries(
      ROLES.map((r) => [r, Math.max(0, less(cost.cpu[r] * 1000, idle?.cpuMs[r])) / n]),
    ) as CpuByRole,
    historyEvents: Math.max(0, less(histories.events, idle?.historyEvents)) / n,
    historyBytes: Math.max(0, less(histories.bytes, idle?.historyBytes)) / n,
    persistenceWrites: cost.persistence
      ? Math.max(0, less(cost.persistence.writes, idle?.persistenceWrites)) / n
      : null,
    persistenceReads: cost.persistence
      ? Math.max(0, less(cost.persistence.reads, idle?.persistenceReads)) / n
      : null,
    temporalFileBytes: Math.max(0, cost.temporalFileBytes) / n,
    pgRowsInserted: Math.max(0, less(cost.database.total.inserted, idle?.pgRowsInserted)) / n,
    pgRowsUpdated: Math.max(0, less(cost.database.total.updated, idle?.pgRowsUpdated)) / n,
    pgBytes: Math.max(0, cost.database.total.bytes) / n,
  };
}

/** The idle phase as a whole (units = 1), to be scaled by `perUnit`, and per queue-hour for the report. */
export function idleCost(cost: PhaseCost, histories: HistoryTotals): UnitCost & { seconds: number } {
  return { ...perUnit(cost, histories, 1), seconds: cost.at / 1000 };
}

/** An idle window's cost per hour (the stack's fixed cost when no queue exists). */
export function perHour(idle: UnitCost & { seconds: number }): UnitCost {
  return scaled(idle, 3600 / idle.seconds);
}

/**
 * What one idle queue adds per hour: the idle window with the queues less the window before any
 * existed, per second, times 3600, over the queues (never below zero: noise is not a saving).
 */
export function perQueueHour(
  idle: UnitCost & { seconds: number },
  baseline: UnitCost & { seconds: number },
  queues: number,
): UnitCost {
  const a = perHour(idle);
  const b = perHour(baseline);
  const d = (x: number, y: number) => Math.max(0, x - y) / Math.max(1, queues);
  return {
    cpuMs: Object.fromEntries(ROLES.map((r) => [r, d(a.cpuMs[r], b.cpuMs[r])])) as CpuByRole,
    historyEvents: d(a.historyEvents, b.historyEvents),
    historyBytes: d(a.historyBytes, b.historyBytes),
    persistenceWrites:
      a.persistenceWrites === null || b.persistenceWrites === null
        ? null
        : d(a.persistenceWrites, b.persistenceWrites),
    persistenceReads:
      a.persistenceReads === null || b.persistenceReads === null
        ? null
        : d(a.persistenceReads, b.persistenceReads),
    temporalFileBytes: d(a.temporalFileBytes, b.temporalFileBytes),
    pgRowsInserted: d(a.pgRowsInserted, b.pgRowsInserted),
    pgRowsUpdated: d(a.pgRowsUpdated, b.pgRowsUpdated),
    pgBytes: d(a.pgBytes, b.pgBytes),
  };
}

function scaled(c: UnitCost, f: number): UnitCost {
  return {
    cpuMs: Object.fromEntries(ROLES.map((r) => [r, c.cpuMs[r] * f])) as CpuByRole,
    historyEvents: c.historyEvents * f,
    historyBytes: c.historyBytes * f,
    persistenceWrites: c.persistenceWrites === null ? null : c.persistenceWrites * f,
    persistenceReads: c.persistenceReads === null ? null : c.persistenceReads * f,
    temporalFileBytes: c.temporalFileBytes * f,
    pgRowsInserted: c.pgRowsInserted * f,
    pgRowsUpdated: c.pgRowsUpdated * f,
    pgBytes: c.pgBytes * f,
  };
}
