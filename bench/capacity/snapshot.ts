/**
 * One measurement of the whole stack at a phase boundary, and the cost of a phase as the difference of
 * two: CPU-seconds by role, Temporal persistence requests, the bytes of Temporal's SQLite file (WAL
 * included), PostgreSQL rows and bytes, and wall time.
 *
 * Rule: the database is read first (it waits for PostgreSQL's lazy counters), then CPU and Temporal's
 * counters together, so the wait falls inside the phase that caused the rows and the two CPU readings
 * of a phase are taken the same way. History events are counted outside the windows (histories.ts),
 * since fetching them costs Temporal CPU that no unit of load caused.
 */
import fs from 'node:fs';
import type { Pool } from 'pg';
import { cpuByRole, cpuDelta, type CpuByRole } from './processes';
import { databaseDelta, readDatabaseStats, type DatabaseStats } from './postgres-stats';
import { persistenceDelta, readPersistence, type PersistenceCounts } from './temporal-metrics';

export interface Snapshot {
  at: number;
  cpu: CpuByRole;
  persistence: PersistenceCounts | null;
  temporalFileBytes: number;
  database: DatabaseStats;
}

export type PhaseCost = Snapshot;

function fileBytes(file: string): number {
  let total = 0;
  for (const f of [file, `${file}-wal`]) {
    try {
      total += fs.statSync(f).size;
    } catch {
      /* not there (in memory, or no WAL yet) */
    }
  }
  return total;
}

export async function snapshot(opts: {
  pool: Pool;
  metricsPort: number;
  temporalDb: string;
}): Promise<Snapshot> {
  const database = await readDatabaseStats(opts.pool);
  const [persistence, cpu] = [await readPersistence(opts.metricsPort), cpuByRole()];
  return { at: Date.now(), cpu, persistence, temporalFileBytes: fileBytes(opts.temporalDb), database };
}

export const phaseCost = (after: Snapshot, before: Snapshot): PhaseCost => ({
  at: after.at - before.at,
  cpu: cpuDelta(after.cpu, before.cpu),
  persistence: persistenceDelta(after.persistence, before.persistence),
  temporalFileBytes: after.temporalFileBytes - before.temporalFileBytes,
  database: databaseDelta(after.database, before.database),
});
