/**
 * pullRequestWorkflow: the durable record of one submission of a PR to a queue: its state, details,
 * readiness and timeline (every transition with reason and time). The queue workflow decides; this
 * workflow only records what it is told, in sequence order, and ends when the submission reaches a
 * terminal state. getSubmittedPullRequest reads it with a query, also after it ended.
 *
 * Invariants: transitions are applied in `seq` order exactly once (duplicates and stale notices are
 * ignored); the workflow completes only after a terminal transition and after all handlers finished.
 */
import { allHandlersFinished, condition, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { isTerminal } from '../engine';
import {
  getPullRequestQuery,
  PR_STATE,
  prTransitionSignal,
  type PrTransitionNotice,
  type PullRequestRecord,
  type PullRequestWorkflowInput,
} from '../contract';

/** A record keeps its whole timeline; past this it keeps the first and the latest entries. */
const MAX_TIMELINE = 500;

export async function pullRequestWorkflow(input: PullRequestWorkflowInput): Promise<PullRequestRecord> {
  const record: PullRequestRecord = {
    id: input.submissionId,
    prNumber: input.prNumber,
    state: 'not_ready',
    stateChangedAt: input.submittedAt,
    reason: 'USER_REQUESTED',
    details: null,
    skipTheLine: false,
    isCurrentlySubmittedToQueue: true,
    verifiedByTestRun: null,
    timeline: [],
  };
  let applied = 0;
  const pending = new Map<number, PrTransitionNotice>();

  const apply = (n: PrTransitionNotice) => {
    const t = n.transition;
    record.state = t.to;
    record.stateChangedAt = t.at;
    record.reason = t.reason;
    record.details = n.details;
    record.skipTheLine = n.details.priorityValue === 0;
    record.isCurrentlySubmittedToQueue = !isTerminal(t.to);
    if (t.to === 'merged' && t.testRunId) record.verifiedByTestRun = t.testRunId;
    record.timeline.push(t);
    if (record.timeline.length > MAX_TIMELINE) record.timeline.splice(1, 1);
    upsertSearchAttributes([{ key: PR_STATE, value: t.to }]);
  };

  setHandler(prTransitionSignal, (notice) => {
    if (notice.submissionId !== input.submissionId || notice.seq <= applied) return;
    pending.set(notice.seq, notice);
    // Deliveries may arrive out of order after retries; apply the contiguous prefix.
    for (let next = pending.get(applied + 1); next; next = pending.get(applied + 1)) {
      pending.delete(applied + 1);
      applied += 1;
      apply(next);
    }
  });
  setHandler(getPullRequestQuery, () => record);

  await condition(() => isTerminal(record.state) && pending.size === 0);
  await condition(allHandlersFinished);
  return record;
}
