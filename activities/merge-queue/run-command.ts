/**
 * runTestCommand: the `command` test runner as an activity. The command comes from the tested commit's
 * `.railyard/merge-queue.json`, so a PR that changes how tests run is tested with its own change. The
 * activity heartbeats while the command runs and honours cancellation (the process group is killed).
 * Per-test verdicts come from the JUnit files the command wrote, with quarantine applied by
 * `deps.judgeTests` (the flaky-test service: results are ingested and the quarantine check applied).
 */
import { Context } from '@temporalio/activity';
import type { GitHost } from '../git/git-host';
import { readRepoTestConfig } from '../runners/repo-test-config';
import type { RunLogStore } from '../runners/run-logs';
import type { JunitFile, TestRunner } from '../runners/test-runner';
import type { RepositoryKey, RunCommandResult, TestCaseVerdict } from '../../workflows/contract';
import type { RunCommandInput } from './types';

const LOG_STORE_TIMEOUT_MS = 10_000;

/** 'stored', or what went wrong (an error's message, or the time it took too long). */
async function withinTime(work: Promise<void>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${ms} ms`), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => 'stored',
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export type JudgeTests = (input: {
  organisationId: string;
  repo: RepositoryKey;
  runId: string;
  headSha: string;
  branchName: string;
  junitFiles: JunitFile[];
}) => Promise<TestCaseVerdict[]>;

export function createRunCommandActivity(deps: {
  gitHost: GitHost;
  runner: TestRunner;
  judgeTests?: JudgeTests;
  /** Where the run's log is kept for the API (ADR 0011); none: it stays on the worker's disk only. */
  runLogs?: RunLogStore;
  /** Longest wait for storing the log before the verdict goes back without it (default 10 s). */
  logStoreTimeoutMs?: number;
}) {
  return {
    async runTestCommand(input: RunCommandInput): Promise<RunCommandResult> {
      const ctx = Context.current();
      const config = await readRepoTestConfig(deps.gitHost, input.repo, input.headSha);
      switch (config.kind) {
        case 'absent':
          return {
            kind: 'config_problem',
            reason: config.reason,
            detail:
              'The tested commit has no .railyard/merge-queue.json and the queue has no requiredStatuses.',
          };
        case 'invalid':
          return { kind: 'config_problem', reason: config.reason, detail: config.detail };
        case 'found':
          break;
      }
      const result = await deps.runner.run({
        runId: input.runId,
        repo: input.repo,
        branchName: input.branchName,
        headSha: input.headSha,
        command: config.config.command,
        timeoutMs: input.timeoutMs,
        ...(config.config.junitGlobs ? { junitGlobs: config.config.junitGlobs } : {}),
        signal: ctx.cancellationSignal,
        heartbeat: () => ctx.heartbeat(),
      });
      if (result.outcome === 'cancelled') return { kind: 'cancelled' };
      // Before the verdict goes back: a record that names the run can link its log at once. Best
      // effort: a database that is down or slow must not hold up the verdict (the log stays on disk).
      if (deps.runLogs) {
        const stored = await withinTime(
          deps.runLogs.store({
            organisationId: input.organisationId,
            repo: input.repo,
            runId: input.runId,
            logPath: result.logPath,
          }),
          deps.logStoreTimeoutMs ?? LOG_STORE_TIMEOUT_MS,
        );
        if (stored !== 'stored')
          ctx.log.warn('the run log was not stored; the record will have no log link', {
            runId: input.runId,
            problem: stored,
          });
      }
      const tests = deps.judgeTests
        ? await deps.judgeTests({
            organisationId: input.organisationId,
            branchName: input.branchName,
            repo: input.repo,
            runId: input.runId,
            headSha: input.headSha,
            junitFiles: result.junitFiles,
          })
        : [];
      return {
        kind: 'finished',
        outcome: result.outcome,
        tests,
        logPath: result.logPath,
        exitCode: result.exitCode,
      };
    },
  };
}
