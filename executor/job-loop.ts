/**
 * The executor's work loop (issue 24, ADR 0014): `slots` loops, each taking one job at a time from the
 * API by long poll, running it (run-job.ts) while it heartbeats through the API, and reporting it.
 *
 * Rules:
 * - Each running job heartbeats every `heartbeatMs`. An answer "stop" (the run was cancelled, its
 *   attempt timed out and was retried elsewhere, or the job is no longer this executor's) aborts the run,
 *   and nothing is reported. A heartbeat the API does not answer is tried again at the next beat: the
 *   run goes on (an API restarting must not cost the run).
 * - A finished run is reported until the API takes or refuses it (api-client.ts); a refusal drops it.
 *   Its heartbeats go on until then (issue 27): a report waiting for an API (the one it reached died,
 *   another is restarting) keeps its attempt alive instead of letting it time out and run again.
 * - `stop` ends the claims at once; running jobs get `graceMs`, then are aborted and reported as the
 *   executor's failure, so Temporal retries them elsewhere at once instead of after a heartbeat timeout.
 * - An API that does not answer a claim is asked again after a backoff of 1 s to 15 s.
 */
import type { ExecutorApi } from './api-client';
import { ExecutorRefused } from './api-client';
import type { ClaimedJob } from './protocol';
import type { JobOutcome, RunJob } from './run-job';

export interface JobLoopOptions {
  api: ExecutorApi;
  runJob: RunJob;
  slots: number;
  heartbeatMs?: number;
  log?: (message: string) => void;
}

export interface JobLoop {
  /** Runs until `stop`; rejects only with ExecutorRefused (the credential was revoked). */
  done: Promise<void>;
  running(): number;
  stop(graceMs: number): Promise<void>;
}

export function startJobLoop(opts: JobLoopOptions): JobLoop {
  const heartbeatMs = opts.heartbeatMs ?? 5_000;
  const log = opts.log ?? (() => undefined);
  const stopping = new AbortController();
  const shutdown = new AbortController();
  let active = 0;

  async function runOne(job: ClaimedJob): Promise<void> {
    const run = new AbortController();
    let stoppedBy: string | null = null;
    let ran = false;
    const abortOnShutdown = () => run.abort();
    shutdown.signal.addEventListener('abort', abortOnShutdown);
    let beating = false;
    const beat = setInterval(() => {
      if (beating) return;
      beating = true;
      opts.api
        .heartbeat(job.id)
        .then((answer) => {
          // Once the run is over, "stop" changes nothing: the report will be refused if it is too late.
          if (answer.action === 'stop' && !stoppedBy && !ran) {
            stoppedBy = answer.reason;
            log(`run ${job.run.runId} (job ${job.id}) stopped: ${answer.reason}`);
            run.abort();
          }
        })
        .catch((err: unknown) =>
          log(`heartbeat of job ${job.id} not delivered, trying again: ${String(err)}`),
        )
        .finally(() => (beating = false));
    }, heartbeatMs);
    try {
      let outcome: JobOutcome;
      try {
        outcome = await opts.runJob(job, run.signal);
      } catch (err) {
        outcome = {
          kind: 'failure',
          failure: { kind: 'executor_error', message: String(err).slice(0, 2000) },
        };
      } finally {
        ran = true;
        shutdown.signal.removeEventListener('abort', abortOnShutdown);
      }
      if (stoppedBy) return;
      if (shutdown.signal.aborted)
        outcome = {
          kind: 'failure',
          failure: { kind: 'executor_error', message: 'the executor shut down mid-run' },
        };
      const delivery =
        outcome.kind === 'report'
          ? await opts.api.report(job.id, outcome.packed)
          : await opts.api.fail(job.id, outcome.failure);
      if (delivery.kind === 'refused')
        log(`the report of job ${job.id} was refused (HTTP ${delivery.status}): ${delivery.message}`);
    } finally {
      clearInterval(beat);
    }
  }

  async function slot(): Promise<void> {
    for (let failures = 0; !stopping.signal.aborted;) {
      let job: ClaimedJob | null;
      try {
        job = await opts.api.claim(stopping.signal);
        failures = 0;
      } catch (err) {
        if (err instanceof ExecutorRefused) throw err;
        if (stopping.signal.aborted) return;
        failures += 1;
        log(`claiming a job failed, asking again: ${String(err)}`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000 * 2 ** (failures - 1), 15_000)));
        continue;
      }
      if (!job) continue;
      active += 1;
      try {
        await runOne(job);
      } finally {
        active -= 1;
      }
    }
  }

  const done = Promise.all(Array.from({ length: opts.slots }, () => slot())).then(() => undefined);
  // A revoked credential stops every slot's claims.
  done.catch(() => stopping.abort());
  return {
    done,
    running: () => active,
    async stop(graceMs) {
      stopping.abort();
      const timer = setTimeout(() => shutdown.abort(), graceMs);
      await done.catch(() => undefined);
      clearTimeout(timer);
    },
  };
}
