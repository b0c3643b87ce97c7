/**
 * Recording a run from the executor's report (executor/run-report.ts): its log kept for the API, its
 * JUnit judged (judge.ts), and the result the test-run workflow hands to the queue.
 *
 * Rules and invariants:
 * - A cancelled run records nothing: no log is stored and nothing is judged.
 * - The run is judged first, so the stored log ends with its failing tests and their failures
 *   (failing-tests.ts, bounded): the log says why even when the command printed only an exit code.
 * - Storing the log is best effort and bounded in time (LOG_STORE_TIMEOUT_MS unless told): a slow or
 *   failing database does not hold up the verdict; `onLogNotStored` hears why, and the run still ends.
 * - Without a judge the run has no tests; a failed run's unjudged reports still count (testsOfRun).
 * - The result names the log by run id (`test-run-logs/<runId>`, read at GET /v1/testRuns/<id>/log),
 *   whether or not it was stored.
 */
import type { RepositoryKey, RunCommandResult } from '../contract';
import type { RunReport } from '../executor/run-report';
import { failingTestsSection } from './failing-tests';
import { type JudgeTests, testsOfRun } from './judge';
import type { RunLogStore } from './store/run-logs';

export const LOG_STORE_TIMEOUT_MS = 10_000;

export interface RecordDeps {
  judgeTests?: JudgeTests;
  runLogs?: RunLogStore;
  logStoreTimeoutMs?: number;
}

export interface RunToRecord {
  organisationId: string;
  repo: RepositoryKey;
  runId: string;
  branchName: string;
  headSha: string;
  /** The queue's target branch (the judge names where failed tests last passed there); absent: none. */
  targetBranch?: string;
}

/** The run's result from its report; `onLogNotStored` hears why the log was not kept, if it was not. */
export async function recordRun(
  deps: RecordDeps,
  run: RunToRecord,
  report: RunReport,
  onLogNotStored: (problem: string) => void,
): Promise<RunCommandResult> {
  if (report.outcome === 'cancelled') return { kind: 'cancelled' };
  const judged = deps.judgeTests
    ? await deps.judgeTests({
        organisationId: run.organisationId,
        branchName: run.branchName,
        repo: run.repo,
        runId: run.runId,
        headSha: run.headSha,
        ...(run.targetBranch ? { targetBranch: run.targetBranch } : {}),
        junitFiles: report.junitFiles,
      })
    : { tests: [], problems: [] };
  if (deps.runLogs) {
    // Without a judge nobody read the reports: nothing is said about them.
    const section = deps.judgeTests
      ? failingTestsSection({
          outcome: report.outcome,
          failures: judged.failures ?? [],
          problems: judged.problems,
          junitTruncated: report.junitTruncated,
          junitFiles: report.junitFiles.length,
        })
      : '';
    const withSection = {
      log: `${report.log}${section}`,
      logOriginalBytes: report.logOriginalBytes + Buffer.byteLength(section),
    };
    const stored = await storeRunLog(deps.runLogs, run, withSection, deps.logStoreTimeoutMs);
    if (stored !== 'stored') onLogNotStored(stored);
  }
  return {
    kind: 'finished',
    outcome: report.outcome,
    tests: testsOfRun(report.outcome, judged, report.junitTruncated),
    // The log lives in the database now; this names it for records (GET /v1/testRuns/<id>/log).
    logPath: `test-run-logs/${run.runId}`,
    exitCode: report.exitCode,
  };
}

/** Stores the report's log within `ms`: 'stored', or what went wrong. */
export function storeRunLog(
  runLogs: RunLogStore,
  run: Pick<RunToRecord, 'organisationId' | 'repo' | 'runId'>,
  report: Pick<RunReport, 'log' | 'logOriginalBytes'>,
  ms = LOG_STORE_TIMEOUT_MS,
): Promise<string> {
  return withinTime(
    runLogs.storeContent({
      organisationId: run.organisationId,
      repo: run.repo,
      runId: run.runId,
      content: Buffer.from(report.log, 'utf8'),
      originalBytes: report.logOriginalBytes,
    }),
    ms,
  );
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
