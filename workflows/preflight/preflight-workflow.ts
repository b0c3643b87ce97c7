/**
 * preflightWorkflow (issue 28, "no silent stall"): pushes a throw-away test branch for a queue, waits up
 * to `waitMs` for the queue's required checks to start on it, answers which did and which did not
 * (engine/preflight.ts decides, contract/preflight.ts says it), and deletes the branch.
 *
 * Rules:
 * - The host's checks are read every `pollMs` (GitHub); statuses of hosts without checks (local) arrive
 *   as PREFLIGHT_STATUS_SIGNAL, forwarded by the API's reportTestStatus, and end the wait at once.
 * - The answer comes as soon as every required check has started, else at the deadline.
 * - The branch is deleted whatever happens after it was pushed (a failure, a cancellation): the
 *   deletion runs in a non-cancellable scope, with the activities' own retries. In draft-PR testing
 *   mode the branch's draft PR is closed by that deletion (GitHost.deleteBranch closes it first), and
 *   the answer names it (`draftPullRequest`); a draft PR the host refused is startPreflight's answer.
 * Invariants: deterministic (only the workflow clock and timers); the reports kept from signals are
 * distinct, of the branch's commit once it is known, and at most MAX_SIGNALLED_NAMES, so a flood of
 * reports cannot grow the workflow's state, and only a new report wakes it.
 */
import {
  CancellationScope,
  condition,
  defineSignal,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { PreflightActivities } from '../../activities/preflight';
import {
  boundedNames,
  PREFLIGHT_STATUS_SIGNAL,
  type PreflightResult,
  type PreflightStatus,
  type PreflightWorkflowInput,
} from '../../contract';
import { judgePreflightChecks } from '../../engine';

const MAX_SIGNALLED_NAMES = 100;

const { startPreflight, readPreflightChecks, removePreflightBranch } = proxyActivities<PreflightActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
});

export const preflightStatusSignal = defineSignal<[PreflightStatus]>(PREFLIGHT_STATUS_SIGNAL);

export async function preflightWorkflow(input: PreflightWorkflowInput): Promise<PreflightResult> {
  const signalled: PreflightStatus[] = [];
  /** The branch's commit once pushed: reports of other commits are dropped from then on. */
  let pushedSha: string | null = null;
  let woken = false;
  setHandler(preflightStatusSignal, (s) => {
    if (pushedSha !== null && s.sha !== pushedSha) return;
    if (signalled.some((k) => k.sha === s.sha && k.context === s.context)) return;
    if (signalled.length >= MAX_SIGNALLED_NAMES) return;
    signalled.push({ sha: s.sha, context: s.context });
    woken = true;
  });

  const start = await startPreflight({
    key: input.key,
    requiredStatuses: input.requiredStatuses,
    testBranchPrefix: input.testBranchPrefix,
    id: workflowInfo().runId,
    draftPullRequest: input.draftPullRequest === true,
  });
  if (start.kind !== 'pushed') return start;
  pushedSha = start.sha;
  const pushedAt = Date.now();
  const deadline = pushedAt + input.waitMs;
  const { repo } = input.key;
  const draft = start.draftPullRequest ? { draftPullRequest: start.draftPullRequest } : {};
  try {
    for (;;) {
      const fromHost = start.hostHasChecks ? await readPreflightChecks({ repo, sha: start.sha }) : [];
      const reported = [...fromHost, ...signalled.filter((s) => s.sha === start.sha).map((s) => s.context)];
      const now = Date.now();
      const v = judgePreflightChecks({ required: start.required, reported, now, deadline });
      const waitedMs = now - pushedAt;
      switch (v.kind) {
        case 'nothing_required': // startPreflight answers `problem` without required checks
        case 'started':
          return {
            kind: 'started',
            branch: start.branch,
            sha: start.sha,
            ...draft,
            required: start.required,
            started: v.kind === 'started' ? v.started : [],
            waitedMs,
          };
        case 'missing': {
          const required = new Set(start.required);
          return {
            kind: 'missing',
            branch: start.branch,
            sha: start.sha,
            ...draft,
            required: start.required,
            started: v.started,
            missing: v.missing,
            cause: v.cause,
            otherChecks: boundedNames([...new Set(reported)].filter((c) => !required.has(c))).names,
            waitedMs,
          };
        }
        case 'waiting':
          woken = false;
          await condition(() => woken, Math.max(1, Math.min(input.pollMs, deadline - now)));
      }
    }
  } finally {
    await CancellationScope.nonCancellable(() =>
      removePreflightBranch({ repo, branch: start.branch, prefix: start.prefix }),
    );
  }
}
