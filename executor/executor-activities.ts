/**
 * The executor's one activity, executeTestRun (issue 17): on the executor task queue, in a process that
 * holds no database URL, API secret or code-host credential. It makes the checkout from the run's
 * content token (content-fetch.ts), runs the command with the `command` runner in its sandbox
 * (runners/command-runner.ts, runners/sandbox.ts), and answers a packed run report (run-report.ts): the
 * verdict, the JUnit files and the log. The control plane stores and judges them (control-activities.ts).
 *
 * Invariants:
 * - Nothing of the run stays on the executor: the checkout is removed by the runner, the log file here
 *   once it is read into the report.
 * - A queue with testNetwork off runs without network, whatever the executor allows; an executor with
 *   the network off (RAILYARD_SANDBOX_NETWORK=off) never gives it.
 * - Content that is gone (the run ended) is not retried (ContentGone → non-retryable failure).
 */
import { rm } from 'node:fs/promises';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { createCommandRunner, type CommandRunnerOptions } from './command-runner';
import { boundedLog } from './bounded-log';
import { NETWORK_DOWN } from './sandbox-network';
import type { SandboxSettings } from './sandbox';
import type { RepositoryKey } from '../contract';
import { bundleCheckout, ContentGone } from './content-fetch';
import { LOG_BYTES, packRunReport } from './run-report';

export interface ExecuteTestRunInput {
  runId: string;
  repo: RepositoryKey;
  branchName: string;
  headSha: string;
  command: string;
  junitGlobs?: string[];
  timeoutMs: number;
  /** The queue's testNetwork (absent: on). */
  network?: boolean;
  contentToken: string;
}

export interface ExecutorDeps {
  /** The API's base URL as this executor reaches it (run content). */
  apiUrl: string;
  /** Checkouts and logs go under these folders. */
  workRoot: string;
  logRoot: string;
  /** null: unsandboxed (RAILYARD_EXECUTOR_UNSANDBOXED=1 where bwrap cannot run). */
  sandbox: SandboxSettings | null;
  maxContentBytes: number;
  /** Further runner options (limits, heartbeat interval in tests). */
  runner?: Omit<CommandRunnerOptions, 'gitHost' | 'workRoot' | 'logRoot' | 'sandbox'>;
}

export function createExecutorActivities(deps: ExecutorDeps) {
  return {
    async executeTestRun(input: ExecuteTestRunInput): Promise<Uint8Array> {
      const ctx = Context.current();
      const sandbox = deps.sandbox
        ? { ...deps.sandbox, network: deps.sandbox.network && input.network !== false }
        : null;
      const runner = createCommandRunner({
        ...deps.runner,
        gitHost: bundleCheckout({
          apiUrl: deps.apiUrl,
          token: input.contentToken,
          maxBytes: deps.maxContentBytes,
          signal: ctx.cancellationSignal,
        }),
        workRoot: deps.workRoot,
        logRoot: deps.logRoot,
        ...(sandbox ? { sandbox } : {}),
      });
      let result;
      try {
        result = await runner.run({
          runId: input.runId,
          repo: input.repo,
          branchName: input.branchName,
          headSha: input.headSha,
          command: input.command,
          timeoutMs: input.timeoutMs,
          ...(input.junitGlobs ? { junitGlobs: input.junitGlobs } : {}),
          signal: ctx.cancellationSignal,
          heartbeat: () => ctx.heartbeat(),
        });
      } catch (err) {
        if (err instanceof ContentGone) throw ApplicationFailure.nonRetryable(err.message, 'ContentGone');
        throw err;
      }
      try {
        const { content, size } = await boundedLog(result.logPath, LOG_BYTES);
        // The sandbox's network never came up: this executor's fault, so the run is tried again (on this
        // or another executor) instead of failing the PR.
        if (result.exitCode === 125 && content.includes(NETWORK_DOWN))
          throw ApplicationFailure.retryable(NETWORK_DOWN, 'SandboxNetworkDown');
        // bwrap failed to set the sandbox up (seen under load: "bwrap: loopback: Failed RTM_NEWADDR: No
        // child processes"), before the command ran: also the executor's fault, tried again. A command
        // that prints such a line itself only gets its own run retried, up to the attempts allowed.
        const setup = sandboxSetupFailure(result.exitCode, content.toString('utf8'));
        if (setup) throw ApplicationFailure.retryable(setup, 'SandboxSetupFailed');
        return packRunReport({
          outcome: result.outcome,
          exitCode: result.exitCode,
          durationMs: result.durationMs,
          junitFiles: result.junitFiles,
          junitTruncated: result.junitTruncated,
          log: content.toString('utf8'),
          logOriginalBytes: size,
          logTruncated: size > content.length,
        });
      } finally {
        await rm(result.logPath, { force: true });
      }
    },
  };
}

export type ExecutorActivities = ReturnType<typeof createExecutorActivities>;

/** bwrap's own error, when it is the first thing the run printed and the run failed: else null. */
export function sandboxSetupFailure(exitCode: number | null, log: string): string | null {
  if (exitCode !== 1) return null;
  const first = log.split('\n').find((line) => line !== '' && !line.startsWith('# '));
  return first?.startsWith('bwrap: ') ? `the sandbox could not be set up (${first.slice(0, 200)})` : null;
}
