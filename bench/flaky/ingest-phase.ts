/**
 * Phase 1: load the world's results through the real ingestion path — multipart HTTP uploads to the
 * API process, `concurrency` at a time, in simulated time order — and measure results per second
 * and the upload acknowledgement latency. Prints progress every few seconds.
 */
import { seededRng } from '../simulate/rng';
import { renderJob } from './junit-writer';
import { type Latencies, rate, summarise } from './stats';
import { jobs, type WorldRepo } from './world';

export interface IngestOptions {
  readonly baseUrl: string;
  readonly key: string;
  readonly world: readonly WorldRepo[];
  readonly targetResults: number;
  readonly concurrency: number;
  readonly days: number;
  readonly end: Date;
  readonly seed: number;
  readonly setClock: (at: Date) => Promise<void>;
  readonly log: (line: string) => void;
  /** Results per second to send at most (paced by results sent); unpaced when absent. */
  readonly pace?: number;
  /** Prefixes every upload id (a second load into the same world). */
  readonly uploadPrefix?: string;
  /** Asked before each upload: true ends the load early (a load that runs while something else does). */
  readonly stop?: () => boolean;
  /** Told the results acknowledged so far after each upload (a caller measuring a window of its own). */
  readonly onAcknowledged?: (results: number) => void;
}

export interface IngestResult {
  readonly uploads: number;
  readonly results: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly ack: Latencies;
}

export async function ingest(options: IngestOptions): Promise<IngestResult> {
  const testsPerPipeline = options.world[0]!.shards.reduce((n, s) => n + s.length, 0);
  const pipelines = Math.max(1, Math.ceil(options.targetResults / testsPerPipeline));
  const source = jobs(options.world, {
    seed: options.seed,
    days: options.days,
    end: options.end,
    pipelines,
    ...(options.uploadPrefix === undefined ? {} : { uploadPrefix: options.uploadPrefix }),
  });
  const acks: number[] = [];
  let results = 0;
  let acknowledged = 0;
  let uploads = 0;
  let pulled = 0;
  let done = false;
  const started = performance.now();
  let lastReport = started;
  let lastResults = 0;

  async function worker(): Promise<void> {
    for (;;) {
      if (done || results >= options.targetResults || options.stop?.() === true) return;
      const next = source.next();
      if (next.done === true) return;
      const job = next.value;
      // One generator per job: outcomes do not depend on which worker renders it.
      const rendered = renderJob(seededRng(options.seed * 7919 + pulled++), job.repo.shards[job.shard]!);
      if (options.pace !== undefined) {
        // Open loop: this upload is due when the results before it were sent at the pace.
        const due = started + (results / options.pace) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      results += rendered.attempts;
      const form = new FormData();
      form.append('org_url_slug', 'bench');
      form.append('repo.host', 'github.com');
      form.append('repo.owner', 'bench');
      form.append('repo.name', job.repo.name);
      form.append('upload_id', job.uploadId);
      form.append('commit_sha', job.commitSha);
      form.append('branch', job.branch);
      if (job.prNumber !== undefined) form.append('pr_number', String(job.prNumber));
      form.append('job_name', `shard-${job.shard}`);
      form.append('file', new Blob([rendered.xml], { type: 'application/xml' }), `junit-${job.shard}.xml`);
      await options.setClock(job.at);
      const sent = performance.now();
      const res = await fetch(`${options.baseUrl}/v1/flaky-tests/upload`, {
        method: 'POST',
        headers: { 'x-api-token': options.key },
        body: form,
      });
      const body = await res.text();
      if (res.status !== 200) {
        done = true;
        throw new Error(`upload ${job.uploadId} failed with ${res.status}: ${body}`);
      }
      acks.push(performance.now() - sent);
      uploads += 1;
      acknowledged += rendered.attempts;
      options.onAcknowledged?.(acknowledged);
      const now = performance.now();
      if (now - lastReport > 5_000) {
        options.log(
          `ingest: ${uploads} uploads, ${results.toLocaleString('en-US')} results (${Math.round((100 * results) / options.targetResults)}%), ` +
            `${rate((results - lastResults) / ((now - lastReport) / 1000))} now, ${rate(results / ((now - started) / 1000))} overall, ` +
            `simulated ${job.at.toISOString().slice(0, 16)}`,
        );
        lastReport = now;
        lastResults = results;
      }
    }
  }

  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  const seconds = (performance.now() - started) / 1000;
  return { uploads, results, seconds, perSecond: results / seconds, ack: summarise(acks) };
}
