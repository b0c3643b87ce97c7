/**
 * How many processes of a kind are running (issue 27), for limits that must hold across replicas
 * rather than per process: an organisation's requests per second are split evenly over the API
 * processes alive, so together they never admit more than the figure however a load balancer spreads
 * the traffic (one that sends an organisation to one process gives it only that process's share).
 *
 * Invariants: `count()` is at least 1 and answers at once from memory; it is the figure of the last
 * beat that reached the database (every `intervalMs`; a process is alive while its last beat is
 * younger than `staleMs`). Before the first beat, and while the database cannot be reached, the last
 * known figure stands (1 at start): a replica that cannot see the others errs towards its own share
 * of the last census, never towards the whole budget once it has seen others.
 */

/** Where the beats are kept (stores/replicas.ts: PostgreSQL). */
export interface ReplicaStore {
  /** Records this process as alive and answers how many of its kind are (at least 1: itself). */
  beat(kind: string, id: string, staleMs: number): Promise<number>;
  /** Removes this process's row (a clean stop). */
  leave(kind: string, id: string): Promise<void>;
}

/** The census of every process that writes to GitHub (APIs and workers with the App configured). */
export const GITHUB_WRITERS = 'github-writer';

export interface ReplicaCensus {
  /** Processes of this kind alive at the last beat, this one included (at least 1). */
  count(): number;
  /** Beats now and then every interval; resolves after the first beat (or its failure). */
  start(): Promise<void>;
  /** Stops beating and removes this process's row. */
  stop(): Promise<void>;
}

export interface ReplicaCensusOptions {
  store: ReplicaStore;
  kind: string;
  id: string;
  intervalMs?: number;
  staleMs?: number;
  /** Told once when a beat fails after the last one succeeded, and once when they succeed again. */
  warn?: (message: string) => void;
}

export function createReplicaCensus(opts: ReplicaCensusOptions): ReplicaCensus {
  const intervalMs = opts.intervalMs ?? 5_000;
  const staleMs = opts.staleMs ?? 3 * intervalMs;
  let n = 1;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const beat = async (): Promise<void> => {
    try {
      n = Math.max(1, await opts.store.beat(opts.kind, opts.id, staleMs));
      if (failing) opts.warn?.(`the ${opts.kind} replica census reaches the database again (${n} alive)`);
      failing = false;
    } catch (err) {
      if (!failing) {
        opts.warn?.(
          `the ${opts.kind} replica census cannot reach the database (${(err as Error).message}); limits keep the last count, ${n}`,
        );
      }
      failing = true;
    }
  };

  return {
    count: () => n,
    async start() {
      await beat();
      const loop = () => {
        if (stopped) return;
        timer = setTimeout(() => void beat().finally(loop), intervalMs);
        timer.unref();
      };
      loop();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await opts.store.leave(opts.kind, opts.id).catch(() => undefined);
    },
  };
}
