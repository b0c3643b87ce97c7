/**
 * The test runs in progress as the queue page draws them: each run a stack, from the target branch at
 * the bottom, through the PRs ahead it was built on (dependentPrs, in queue order), to the PR or batch
 * it tests on top. A run testing more than one PR is a batch; a run the event log marks as bisection
 * (a failed batch split to find the culprit) says so. Pure: the page renders what this returns.
 */
import type { TestRunsInProgress } from '../../schemas/merge-queue';

export type RunKind = 'single' | 'batch' | 'bisection';

export interface RunGroup {
  readonly testRunId: string;
  readonly kind: RunKind;
  readonly testBranch: string;
  readonly startedAt: string;
  /** Bottom to top: the target branch, then each PR ahead it includes. */
  readonly base: readonly string[];
  /** The PRs this run decides, on top. */
  readonly tested: readonly { readonly prNumber: number; readonly title: string }[];
  /** Its required checks that have not started, as a sentence (issue 28); absent: none stalled. */
  readonly stalled?: string;
}

export function drawRuns(
  targetBranch: string,
  runs: TestRunsInProgress['testRuns'],
  bisection: ReadonlySet<string>,
): RunGroup[] {
  return runs.map((run) => ({
    testRunId: run.testRunId,
    kind: bisection.has(run.testRunId) ? 'bisection' : run.testedPullRequests.length > 1 ? 'batch' : 'single',
    testBranch: run.testBranch,
    startedAt: run.createdAt,
    base: [targetBranch, ...(run.dependentPrs ?? []).map((n) => `#${n}`)],
    tested: run.testedPullRequests.map((p) => ({ prNumber: p.prNumber, title: p.title })),
    ...(run.stalledChecks ? { stalled: run.stalledChecks.text } : {}),
  }));
}
