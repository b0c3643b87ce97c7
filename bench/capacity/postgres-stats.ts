/**
 * What railyard's PostgreSQL database holds and has written: rows inserted, updated and deleted
 * (pg_stat_user_tables) and the bytes of every user table with its indexes and TOAST
 * (pg_total_relation_size), per table and in total.
 *
 * Rule: backends publish their counters lazily (PostgreSQL 15+: at most once a second while busy, and
 * an idle backend within 10 s), so a snapshot first waits 11 s; deltas are taken between two snapshots
 * of the same database.
 */
import type { Pool } from 'pg';

export interface TableStats {
  inserted: number;
  updated: number;
  deleted: number;
  bytes: number;
}

export interface DatabaseStats {
  total: TableStats;
  byTable: Record<string, TableStats>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function readDatabaseStats(pool: Pool): Promise<DatabaseStats> {
  // Other backends flush their counters on their own clock: an idle one within 10 s.
  await sleep(11_000);
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await pool.query<{
    name: string;
    ins: string;
    upd: string;
    del: string;
    bytes: string;
  }>(
    `SELECT schemaname || '.' || relname AS name, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del,
            pg_total_relation_size(relid) AS bytes
       FROM pg_stat_user_tables`,
  );
  const byTable: Record<string, TableStats> = {};
  const total: TableStats = { inserted: 0, updated: 0, deleted: 0, bytes: 0 };
  for (const r of rows) {
    const t = {
      inserted: Number(r.ins),
      updated: Number(r.upd),
      deleted: Number(r.del),
      bytes: Number(r.bytes),
    };
    byTable[r.name] = t;
    total.inserted += t.inserted;
    total.updated += t.updated;
    total.deleted += t.deleted;
    total.bytes += t.bytes;
  }
  return { total, byTable };
}

const minus = (a: TableStats, b: TableStats | undefined): TableStats => ({
  inserted: a.inserted - (b?.inserted ?? 0),
  updated: a.updated - (b?.updated ?? 0),
  deleted: a.deleted - (b?.deleted ?? 0),
  bytes: a.bytes - (b?.bytes ?? 0),
});

/** The change between two snapshots; only tables that changed are listed. */
export function databaseDelta(after: DatabaseStats, before: DatabaseStats): DatabaseStats {
  const byTable: Record<string, TableStats> = {};
  for (const [name, t] of Object.entries(after.byTable)) {
    const d = minus(t, before.byTable[name]);
    if (d.inserted || d.updated || d.deleted || d.bytes) byTable[name] = d;
  }
  return { total: minus(after.total, before.total), byTable };
}
