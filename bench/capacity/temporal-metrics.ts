/**
 * Temporal's own account of its persistence, read from the dev server's Prometheus endpoint
 * (`--metrics-port`): `persistence_requests` by operation. Writes are the operations that change
 * state (create, update, append, delete, complete, ...); the rest are reads.
 *
 * Rule: a missing or unreadable endpoint gives `null`, never a guess; the report then says "not
 * measured".
 */
export interface PersistenceCounts {
  writes: number;
  reads: number;
  /** Requests by operation, for the JSON. */
  byOperation: Record<string, number>;
}

const WRITE =
  /^(Create|Update|Append|Delete|Complete|RangeComplete|RangeDelete|Put|Upsert|Set|Conflict|Insert|Register|Enqueue|Trim|Init|Add|Prune)/;

/** Parses `persistence_requests{...operation="X"...} N` lines of a Prometheus text exposition. */
export function parsePersistence(text: string): PersistenceCounts {
  const byOperation: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('persistence_requests{')) continue;
    const operation = /operation="([^"]+)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!operation || !Number.isFinite(value)) continue;
    byOperation[operation] = (byOperation[operation] ?? 0) + value;
  }
  let writes = 0;
  let reads = 0;
  for (const [operation, n] of Object.entries(byOperation)) {
    if (WRITE.test(operation)) writes += n;
    else reads += n;
  }
  return { writes, reads, byOperation };
}

export async function readPersistence(metricsPort: number): Promise<PersistenceCounts | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, {
      signal: AbortSignal.timeout(10_000),
    });
    return res.ok ? parsePersistence(await res.text()) : null;
  } catch {
    return null;
  }
}

export function persistenceDelta(
  after: PersistenceCounts | null,
  before: PersistenceCounts | null,
): PersistenceCounts | null {
  if (!after || !before) return null;
  const byOperation: Record<string, number> = {};
  for (const [op, n] of Object.entries(after.byOperation)) {
    const d = n - (before.byOperation[op] ?? 0);
    if (d !== 0) byOperation[op] = d;
  }
  return { writes: after.writes - before.writes, reads: after.reads - before.reads, byOperation };
}
