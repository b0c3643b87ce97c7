/**
 * Builders for TransitionEvents: one submission's path through the queue as a list of steps, numbered
 * 1, 2, 3… with `from` filled in from the step before, as the queue workflow reports them.
 */
import type { TransitionEvent } from '../../../events/types';
import type { PrState } from '../../../engine';

export interface Step {
  to: PrState;
  /** Epoch milliseconds. */
  at: number;
  reason?: string;
  testRunId?: string;
  batch?: number[];
  isBisection?: boolean;
  testBranch?: string;
}

export interface SubmissionSpec {
  organisationId: string;
  repo?: { host: string; owner: string; name: string };
  targetBranch?: string;
  prNumber: number;
  submissionId?: string;
}

const DEFAULT_REASON: Record<PrState, string> = {
  not_ready: 'API_REQUESTED',
  pending: 'MERGE_ITEM_NOW_READY',
  testing: 'TEST_RUN_STARTED',
  tests_passed: 'TEST_RUN_PASSED',
  pending_failure: 'TEST_RUN_REQUIRED_STATUS_FAILED',
  failed: 'TEST_RUN_REQUIRED_STATUS_FAILED',
  merged: 'MERGE_GRAPH_MERGE',
  cancelled: 'USER_REQUESTED',
};

export function submission(spec: SubmissionSpec, steps: Step[]): TransitionEvent[] {
  const repo = spec.repo ?? { host: 'github.com', owner: 'acme', name: 'app' };
  const submissionId =
    spec.submissionId ?? `${repo.owner}/${repo.name}#${spec.prNumber}@${steps[0]?.at ?? 0}`;
  let from: PrState | null = null;
  return steps.map((step, i) => {
    const testRunId = step.testRunId ?? null;
    const event: TransitionEvent = {
      organisationId: spec.organisationId,
      repo,
      targetBranch: spec.targetBranch ?? 'main',
      prNumber: spec.prNumber,
      submissionId,
      seq: i + 1,
      from,
      to: step.to,
      reason: step.reason ?? DEFAULT_REASON[step.to],
      testRunId,
      batch: step.batch ?? (testRunId ? [spec.prNumber] : []),
      isBisection: step.isBisection ?? false,
      testBranch: step.testBranch ?? (testRunId ? `railyard-merge/pr-${spec.prNumber}/${testRunId}` : null),
      testBranchSha: testRunId ? 'a'.repeat(40) : null,
      at: step.at,
      title: `PR ${spec.prNumber}`,
      author: 'octocat',
      headSha: 'b'.repeat(40),
    };
    from = step.to;
    return event;
  });
}

export const MINUTE = 60_000;
