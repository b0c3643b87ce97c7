/**
 * The control plane's side of a test run on an executor (issue 17): everything that needs the git root,
 * the mirrors or the database happens here, on the control task queue, so that the executor — which
 * runs pull requests' code — needs none of them.
 *
 *  - takeRunSlot / endTestRun: the organisation's share of executor slots (run-slots.ts), and the end of
 *    the run's content token;
 *  - prepareTestRun: the command from the tested commit's `.railyard/merge-queue.json` (so a PR that
 *    changes how tests run is tested with its own change), and the commit staged as a git bundle for
 *    the executor (run-content.ts);
 *  - recordTestRun: the executor's report (run-report.ts) stored and judged: the log kept for the API
 *    (best effort, bounded in time: a slow database does not hold up the verdict) and the JUnit results
 *    judged by the flaky-test service (quarantine applied). A failed run whose JUnit files could not
 *    all be read, or were not all collected (junitTruncated), reports that as a failure no quarantine
 *    forgives, so it is never rescued (the rule of flaky/ingest/judge.ts's quarantinedRunPasses).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { GitHost } from '../git/git-host';
import type { RunCommandInput } from './merge-queue/types';
import { readRepoTestConfig } from '../executor/repo-test-config';
import type { RunLogStore } from '../test-runs/store/run-logs';
import type { JunitFile } from '../executor/test-runner';
import type { RepositoryKey, RunCommandResult, TestCaseVerdict } from '../contract';
import { RunContentTooLarge, type RunContentStore } from '../test-runs/store/run-content';
import { gitCommand } from '../executor/git-command';
import { unpackRunReport } from '../executor/run-report';
import type { RunSlots } from '../test-runs/store/run-slots';
import type { FlakyStore } from '../flaky/service';

const LOG_STORE_TIMEOUT_MS = 10_000;

/**
 * The flaky-test service's judgement of a run's JUnit files (results ingested, quarantine applied):
 * a verdict per test read, and one sentence per file that could not be read.
 */
export type JudgeTests = (input: {
  organisationId: string;
  repo: RepositoryKey;
  runId: string;
  headSha: string;
  branchName: string;
  junitFiles: JunitFile[];
}) => Promise<{ tests: TestCaseVerdict[]; problems: string[] }>;

/** JudgeTests by the flaky-test service: the run's results ingested, each test's quarantine applied. */
export function judgeTestsWith(flaky: Pick<FlakyStore, 'judgeJunitFiles'>): JudgeTests {
  return async ({ organisationId, repo, runId, headSha, branchName, junitFiles }) => {
    const { verdicts, problems } = await flaky.judgeJunitFiles({
      organisationId,
      repo,
      runId,
      headSha,
      branchName,
      junitFiles,
    });
    return {
      tests: verdicts.map(({ name, status, quarantined }) => ({ name, status, quarantined })),
      problems: [...problems],
    };
  };
}

/** What a failed run's JUnit did not let the judge see, as failures quarantine cannot forgive. */
export const JUNIT_LEFT_OUT =
  'JUnit reports left out (over the count or size limits): their tests were not judged';
export const unreadableJunit = (problem: string) => `unreadable JUnit report: ${problem}`;

function unjudged(problems: readonly string[], truncated: boolean): TestCaseVerdict[] {
  const names = [...problems.map(unreadableJunit), ...(truncated ? [JUNIT_LEFT_OUT] : [])];
  return names.map((name) => ({ name, status: 'failed', quarantined: false }));
}

export type PreparedTestRun =
  | { kind: 'ready'; command: string; junitGlobs?: string[]; contentToken: string }
  | Extract<RunCommandResult, { kind: 'config_problem' }>;

export interface TestRunControlDeps {
  gitHost: GitHost;
  contents: RunContentStore;
  slots: RunSlots;
  /** Where bundles are built before they are staged (removed at once). */
  scratchRoot: string;
  judgeTests?: JudgeTests;
  runLogs?: RunLogStore;
  logStoreTimeoutMs?: number;
  /** Wakes a test-run workflow waiting for a slot (runSlotFreedSignal); absent: waiters ask every 30 s. */
  wake?: (workflowId: string) => Promise<void>;
}

export function createTestRunControlActivities(deps: TestRunControlDeps) {
  return {
    async takeRunSlot(input: {
      organisationId: string;
      runId: string;
      workflowId: string;
      leaseMs: number;
    }): Promise<boolean> {
      return deps.slots.take(input);
    },

    async endTestRun(input: { runId: string }): Promise<void> {
      const [next] = await Promise.all([deps.slots.release(input.runId), deps.contents.drop(input.runId)]);
      // The organisation's oldest waiting run takes the freed slot now rather than at its next ask.
      if (!next || !deps.wake) return;
      try {
        await deps.wake(next);
      } catch (err) {
        Context.current().log.warn('a run waiting for a slot was not woken; it asks again within 30 s', {
          workflowId: next,
          problem: err instanceof Error ? err.message : String(err),
        });
      }
    },

    prepareTestRun: (input: RunCommandInput) => whileHeartbeating(() => prepare(input)),

    /** The report is an argument of its own: a top-level Uint8Array is a binary payload, not JSON. */
    recordTestRun: (run: RunCommandInput, packed: Uint8Array) => whileHeartbeating(() => record(run, packed)),
  };

  async function prepare(input: RunCommandInput): Promise<PreparedTestRun> {
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
    await mkdir(deps.scratchRoot, { recursive: true });
    const scratch = await mkdtemp(join(deps.scratchRoot, `${input.runId}-`));
    try {
      const checkout = join(scratch, 'checkout');
      await deps.gitHost.checkout({ repo: input.repo, sha: input.headSha, directory: checkout });
      const bundlePath = join(scratch, 'content.bundle');
      // HEAD is the tested commit, detached: the bundle holds it and its history, and nothing else.
      await gitCommand(checkout, ['bundle', 'create', '--quiet', bundlePath, 'HEAD']);
      const contentToken = await deps.contents.stage({
        organisationId: input.organisationId,
        runId: input.runId,
        repo: input.repo,
        sha: input.headSha,
        bundlePath,
      });
      return {
        kind: 'ready',
        command: config.config.command,
        ...(config.config.junitGlobs ? { junitGlobs: config.config.junitGlobs } : {}),
        contentToken,
      };
    } catch (err) {
      if (err instanceof RunContentTooLarge)
        throw ApplicationFailure.nonRetryable(err.message, 'RunContentTooLarge');
      throw err;
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  async function record(run: RunCommandInput, packed: Uint8Array): Promise<RunCommandResult> {
    const ctx = Context.current();
    const report = unpackRunReport(packed);
    if (report.outcome === 'cancelled') return { kind: 'cancelled' };
    if (deps.runLogs) {
      const stored = await withinTime(
        deps.runLogs.storeContent({
          organisationId: run.organisationId,
          repo: run.repo,
          runId: run.runId,
          content: Buffer.from(report.log, 'utf8'),
          originalBytes: report.logOriginalBytes,
        }),
        deps.logStoreTimeoutMs ?? LOG_STORE_TIMEOUT_MS,
      );
      if (stored !== 'stored')
        ctx.log.warn('the run log was not stored; the record will have no log link', {
          runId: run.runId,
          problem: stored,
        });
    }
    const judged = deps.judgeTests
      ? await deps.judgeTests({
          organisationId: run.organisationId,
          branchName: run.branchName,
          repo: run.repo,
          runId: run.runId,
          headSha: run.headSha,
          junitFiles: report.junitFiles,
        })
      : { tests: [], problems: [] };
    // Quarantine forgives only the failures it can name (engine/verdict.ts): a failed run with a report
    // that could not be read, or with reports left out, also failed in tests nobody judged.
    const tests =
      report.outcome === 'failed'
        ? [...judged.tests, ...unjudged(judged.problems, report.junitTruncated)]
        : judged.tests;
    return {
      kind: 'finished',
      outcome: report.outcome,
      tests,
      // The log lives in the database now; this names it for records (GET /v1/testRuns/<id>/log).
      logPath: `test-run-logs/${run.runId}`,
      exitCode: report.exitCode,
    };
  }
}

/** Runs `work` while heartbeating every 5 s: a worker that dies mid-step is noticed in seconds. */
async function whileHeartbeating<T>(work: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const timer = setInterval(() => ctx.heartbeat(), 5_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** 'stored', or what went wrong (an error's message, or the time it took too long). */
export async function withinTime(work: Promise<void>, ms: number): Promise<string> {
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
