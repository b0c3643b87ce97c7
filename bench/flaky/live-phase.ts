/**
 * Phase 4: the reads again, at the documented rates, while uploads run at `pace` results/s into the
 * same database (issue 26's target is the reads *while* a monorepo's CI pours in, not at rest).
 *
 * The uploads continue the world after the first load: new pipelines in the hour after `end`
 * (upload ids prefixed `live-`, so none is an idempotent repeat), paced open loop, the fold running
 * as in production. The reads start once the uploads have run `warmupSeconds`, use the 7-day window
 * ending with that hour (so they read the rows being written), and the uploads stop when the reads
 * end. The acknowledged rate is counted over the reads' window only; the psql baselines run inside it
 * too, so both sides of each ratio saw the same neighbours. CPU per request is not reported here: the
 * API's and PostgreSQL's CPU is shared with the ingestion.
 */
import { ingest, type IngestOptions, type IngestResult } from './ingest-phase';
import { reads, type ReadOptions, type ReadRow } from './read-phase';
import { ms, rate, table } from './stats';

export interface LiveOptions {
  readonly ingest: Omit<IngestOptions, 'targetResults' | 'days' | 'end' | 'pace' | 'stop' | 'uploadPrefix'>;
  readonly read: Omit<ReadOptions, 'end' | 'loads' | 'loadNote'>;
  readonly end: Date;
  readonly pace: number;
  readonly warmupSeconds: number;
}

export interface LiveResult {
  readonly rows: ReadRow[];
  /** Results acknowledged per second while the reads ran. */
  readonly perSecondDuringReads: number;
  readonly readSeconds: number;
  readonly load: IngestResult;
}

const HOUR = 3_600_000;

export async function readsWhileUploading(options: LiveOptions): Promise<LiveResult> {
  const { log } = options.read;
  const liveEnd = new Date(options.end.getTime() + HOUR);
  // Enough results for the reads at the pace twice over (paced list pages at 50/s, details at 100/s,
  // the baselines and the page walk); the load stops when the reads end, whichever comes first.
  const n = options.read.requests;
  const expectedSeconds = options.warmupSeconds + (3 * n) / 50 + n / 100 + 60;
  let acknowledged = 0;
  let readsDone = false;
  const loading = ingest({
    ...options.ingest,
    targetResults: Math.ceil(options.pace * expectedSeconds * 2),
    days: 1 / 24,
    end: liveEnd,
    pace: options.pace,
    uploadPrefix: 'live-',
    stop: () => readsDone,
    onAcknowledged: (results) => {
      acknowledged = results;
    },
    log: (line) => log(`live ${line}`),
  });
  // A load that fails during the warm-up fails the phase before the reads start.
  await Promise.race([loading, new Promise((resolve) => setTimeout(resolve, options.warmupSeconds * 1000))]);
  log(`live: uploads at ${rate(options.pace)} for ${options.warmupSeconds} s; reads start`);
  const atStart = acknowledged;
  const started = performance.now();
  let rows: ReadRow[];
  try {
    const result = await reads({
      ...options.read,
      end: liveEnd,
      loads: ['paced'],
      loadNote: `uploads at ${rate(options.pace)}`,
    });
    rows = result.rows;
  } finally {
    readsDone = true;
  }
  const readSeconds = (performance.now() - started) / 1000;
  const perSecondDuringReads = (acknowledged - atStart) / readSeconds;
  const load = await loading;
  log(
    `live: ${rate(perSecondDuringReads)} acknowledged during ${readSeconds.toFixed(0)} s of reads ` +
      `(${load.results.toLocaleString('en-US')} results in all)`,
  );
  return { rows, perSecondDuringReads, readSeconds, load };
}

/** The summary's section for this phase: the reads' table and what the uploads did meanwhile. */
export function liveSummary(
  live: LiveResult,
  pace: number,
  foldLag: { p50: number; p99: number; n: number },
): string {
  const reached = live.perSecondDuringReads >= 0.95 * pace;
  return [
    `reads while uploads run (paced at ${rate(pace)}): ${rate(live.perSecondDuringReads)} acknowledged during ` +
      `${live.readSeconds.toFixed(0)} s of reads${reached ? '' : ` (BELOW the pace: the machine could not carry both)`}; ` +
      `ack p99 ${ms(live.load.ack.p99)}; fold lag p50 ${ms(foldLag.p50)}, p99 ${ms(foldLag.p99)} (${foldLag.n} uploads)`,
    table(
      ['read', 'load', 'API p50', 'API p99', 'psql p50', 'psql p99', 'p99 ratio'],
      live.rows.map((r) => [
        r.endpoint,
        r.load,
        ms(r.api.p50),
        ms(r.api.p99),
        ms(r.baseline.p50),
        ms(r.baseline.p99),
        `${(r.api.p99 / r.baseline.p99).toFixed(1)}×`,
      ]),
    ),
  ].join('\n');
}
