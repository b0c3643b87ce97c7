/**
 * One job, run (issue 17, issue 24): the checkout from the job's content (content-fetch.ts), the
 * command with the `command` runner in its sandbox (command-runner.ts, sandbox.ts), and the outcome the
 * executor reports through the API (job-loop.ts): a packed run report (run-report.ts) or a failure of a
 * kind the control plane knows (protocol.ts FAILURE_KINDS). Nothing here speaks to Temporal.
 *
 * Invariants:
 * - Nothing of the run stays on the executor: the checkout is removed by the runner, the log file here
 *   once it is read into the report.
 * - A queue with testNetwork off runs without network, whatever the executor allows; an executor with
 *   the network off (RAILYARD_SANDBOX_NETWORK=off) never gives it.
 * - Content that is gone (the run ended) is a `content_gone` failure, which is not retried; a sandbox
 *   that could not be set up is the executor's fault, retried on this or another executor.
 * - A network-on run this executor cannot isolate (no pasta or ip, and no operator's allow) is refused
 *   before its content is fetched: a `sandbox_setup_failed` naming the missing tool, retried elsewhere.
 */
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createObjectCache, DEFAULT_OBJECT_CACHE_BYTES, type ObjectCache } from './object-cache';
import { createCommandRunner, type CommandRunnerOptions } from './command-runner';
import { boundedLog } from './bounded-log';
import { NETWORK_DOWN } from './sandbox-network';
import { CGROUP_JOIN_FAILED } from './run-cgroup';
import { networkRefusal, type SandboxSettings } from './sandbox';
import { bundleCheckout, ContentGone } from './content-fetch';
import type { ClaimedJob, JobFailure } from './protocol';
import { LOG_BYTES, packRunReport } from './run-report';
import type { ProcessRunner } from '../platform/process-runner';

export interface ExecutorDeps {
  /** The API's base URL as this executor reaches it, and this executor's credential (run content). */
  apiUrl: string;
  credential: string;
  /** Checkouts and logs go under these folders. */
  workRoot: string;
  logRoot: string;
  /** null: unsandboxed (RAILYARD_EXECUTOR_UNSANDBOXED=1 where bwrap cannot run). */
  sandbox: SandboxSettings | null;
  maxContentBytes: number;
  /**
   * Bases of thin run content kept between runs (object-cache.ts); default: one beside `workRoot`
   * (never under it: a sandbox binds a checkout under it) with the default bound.
   */
  cache?: ObjectCache;
  /** Further runner options (limits). */
  runner?: Omit<CommandRunnerOptions, 'gitHost' | 'workRoot' | 'logRoot' | 'sandbox' | 'processes'>;
  /**
   * Runs the short commands of a run (git of the hand-off, the checkout folder's chown and removal);
   * default: from this process. A large process (an executor inside a test's jest worker) gives its
   * broker: a fork of it costs milliseconds.
   */
  processes?: ProcessRunner;
}

export type JobOutcome = { kind: 'report'; packed: Uint8Array } | { kind: 'failure'; failure: JobFailure };

export type RunJob = (job: ClaimedJob, signal: AbortSignal) => Promise<JobOutcome>;

export function createJobRunner(deps: ExecutorDeps): RunJob {
  const cache =
    deps.cache ??
    createObjectCache({
      root: join(dirname(deps.workRoot), 'object-cache'),
      maxBytes: DEFAULT_OBJECT_CACHE_BYTES,
      ...(deps.processes ? { processes: deps.processes } : {}),
    });
  return async (job, signal) => {
    const { run } = job;
    const sandbox = deps.sandbox
      ? { ...deps.sandbox, network: deps.sandbox.network && run.network !== false }
      : null;
    const refusal = sandbox && networkRefusal(sandbox);
    if (refusal) return failure('sandbox_setup_failed', refusal);
    const runner = createCommandRunner({
      ...deps.runner,
      gitHost: bundleCheckout({
        apiUrl: deps.apiUrl,
        jobId: job.id,
        credential: deps.credential,
        maxBytes: deps.maxContentBytes,
        signal,
        cache,
        ...(deps.processes ? { processes: deps.processes } : {}),
      }),
      ...(deps.processes ? { processes: deps.processes } : {}),
      workRoot: deps.workRoot,
      logRoot: deps.logRoot,
      ...(sandbox ? { sandbox } : {}),
    });
    let result;
    try {
      result = await runner.run({
        runId: run.runId,
        repo: run.repo,
        branchName: run.branchName,
        headSha: run.headSha,
        command: run.command,
        timeoutMs: run.timeoutMs,
        ...(run.junitGlobs ? { junitGlobs: run.junitGlobs } : {}),
        ...(run.onlyTests && run.onlyTests.length > 0 ? { onlyTests: run.onlyTests } : {}),
        signal,
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return failure(err instanceof ContentGone ? 'content_gone' : 'executor_error', message);
    }
    try {
      const { content, size } = await boundedLog(result.logPath, LOG_BYTES);
      const fault = executorFault(result.exitCode, content.toString('utf8'));
      if (fault) return { kind: 'failure', failure: fault };
      return {
        kind: 'report',
        packed: packRunReport({
          outcome: result.outcome,
          exitCode: result.exitCode,
          durationMs: result.durationMs,
          junitFiles: result.junitFiles,
          junitTruncated: result.junitTruncated,
          log: content.toString('utf8'),
          logOriginalBytes: size,
          logTruncated: size > content.length,
        }),
      };
    } finally {
      await rm(result.logPath, { force: true });
    }
  };
}

const failure = (kind: JobFailure['kind'], message: string): JobOutcome => ({
  kind: 'failure',
  failure: { kind, message: message.slice(0, 2000) },
});

/**
 * A run that failed through the executor's fault before its command ran, which is tried again (on this
 * or another executor) instead of failing the PR; null for the command's own outcome:
 *  - the sandbox's network never came up (exit 125 and NETWORK_DOWN);
 *  - its first process could not join its cgroup (exit 125 and CGROUP_JOIN_FAILED, per-run limits);
 *  - bwrap failed to set the sandbox up (seen under load: "bwrap: loopback: Failed RTM_NEWADDR: No
 *    child processes", which pasta starting too early caused until sandbox-network.ts waited for
 *    bwrap's loopback; kept for any other cause). A command that prints such a line itself only gets
 *    its own run retried, up to the attempts allowed.
 */
export function executorFault(exitCode: number | null, log: string): JobFailure | null {
  const fault = (kind: JobFailure['kind'], message: string): JobFailure => ({
    kind,
    message: message.slice(0, 2000),
  });
  if (exitCode === 125 && log.includes(NETWORK_DOWN)) return fault('sandbox_network_down', NETWORK_DOWN);
  if (exitCode === 125 && log.includes(CGROUP_JOIN_FAILED))
    return fault('sandbox_setup_failed', CGROUP_JOIN_FAILED);
  const setup = sandboxSetupFailure(exitCode, log);
  return setup ? fault('sandbox_setup_failed', setup) : null;
}

/** bwrap's own error, when it is the first thing the run printed and the run failed: else null. */
export function sandboxSetupFailure(exitCode: number | null, log: string): string | null {
  if (exitCode !== 1) return null;
  const first = log.split('\n').find((line) => line !== '' && !line.startsWith('# '));
  return first?.startsWith('bwrap: ') ? `the sandbox could not be set up (${first.slice(0, 200)})` : null;
}
