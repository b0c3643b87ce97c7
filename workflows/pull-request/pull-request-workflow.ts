/**
 * pullRequestWorkflow: the durable record of one submission of a PR to a queue: its state, details,
 * readiness and timeline (every transition with reason and time). The queue workflow decides; this
 * workflow only records what it is told, in sequence order, and ends when the submission reaches a
 * terminal state. getSubmittedPullRequest reads it with a query, also after it ended.
 *
 * The record is also shown on the PR's host (presentPullRequest: GitHub's live comment and check run)
 * when the queue asked for it in the notices: transitions are coalesced for PRESENT_COALESCE_MS, so a
 * burst of moves costs one update, and the terminal state is shown before the workflow ends. A failed
 * presentation is logged and never holds up the record.
 *
 * Between transitions the queue may refresh the details (prDetailsSignal: why a not-ready PR waits);
 * a refresh is applied only on top of the transition it was made after, and is shown like one.
 *
 * Invariants: transitions are applied in `seq` order exactly once (duplicates and stale notices are
 * ignored); the workflow completes only after a terminal transition, after it was presented (when
 * presentation was asked for) and after all handlers finished.
 */
import {
  allHandlersFinished,
  condition,
  log,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { isTerminal } from '../../engine';
import {
  getPullRequestQuery,
  PR_STATE,
  prDetailsSignal,
  prTransitionSignal,
  type Presentation,
  type PresentedIds,
  type PrDetailsRefresh,
  type PrTransitionNotice,
  type PullRequestRecord,
  type PullRequestWorkflowInput,
} from '../../contract';

/** Transitions closer together than this are shown on the PR as one update. */
const PRESENT_COALESCE_MS = 2_000;

const presenter = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  // Bounded: a host that keeps refusing costs the PR its comment, never its record.
  retry: {
    initialInterval: '2 seconds',
    maximumInterval: '1 minute',
    backoffCoefficient: 2,
    maximumAttempts: 8,
  },
});

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
  let presentation: Presentation | null = null;
  let presented = 0;
  /** Details refreshes applied (prDetailsSignal), and how many of them were shown. */
  let refreshed = 0;
  let presentedRefreshes = 0;
  const ids: PresentedIds = { commentId: null, checkRunId: null, announcedSeq: 0 };

  const apply = (n: PrTransitionNotice) => {
    if (n.presentation) presentation = n.presentation;
    const t = n.transition;
    record.state = t.to;
    record.stateChangedAt = t.at;
    record.reason = t.reason;
    // A PR that left the queue is reported without a head; the record keeps the one it had.
    record.details =
      n.details.headSha || !record.details ? n.details : { ...n.details, headSha: record.details.headSha };
    record.skipTheLine = n.details.priorityValue === 0;
    record.isCurrentlySubmittedToQueue = !isTerminal(t.to);
    if (t.to === 'merged' && t.testRunId) record.verifiedByTestRun = t.testRunId;
    if (n.testedOn) record.testedOn = n.testedOn;
    if (n.mergedAs) record.mergedAs = n.mergedAs;
    record.timeline.push(t);
    if (record.timeline.length > MAX_TIMELINE) record.timeline.splice(1, 1);
    upsertSearchAttributes([{ key: PR_STATE, value: t.to }]);
  };

  /** A refresh made after a transition that has not arrived yet waits for it (only the newest). */
  let early: PrDetailsRefresh | null = null;
  const refresh = (r: PrDetailsRefresh) => {
    if (isTerminal(record.state)) return;
    record.details = { ...r.details, headSha: r.details.headSha || record.details?.headSha || '' };
    if (r.testedOn) record.testedOn = r.testedOn;
    refreshed += 1;
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
    if (early && early.afterSeq <= applied) {
      if (early.afterSeq === applied) refresh(early);
      early = null;
    }
  });
  setHandler(prDetailsSignal, (r) => {
    if (r.submissionId !== input.submissionId || r.afterSeq < applied) return;
    if (r.afterSeq === applied) refresh(r);
    else if (!early || r.afterSeq >= early.afterSeq) early = r;
  });
  setHandler(getPullRequestQuery, () => record);

  const wanted = (p: Presentation | null): p is Presentation => p !== null && (p.comment || p.checkRun);
  const present = async (): Promise<void> => {
    for (;;) {
      await condition(() => wanted(presentation) && (applied > presented || refreshed > presentedRefreshes));
      if (!isTerminal(record.state)) await sleep(PRESENT_COALESCE_MS);
      const seq = applied;
      const refreshes = refreshed;
      try {
        const shown = await presenter.presentPullRequest({
          key: input.key,
          record,
          seq,
          presentation: presentation!,
          ids: { ...ids },
        });
        Object.assign(ids, shown);
      } catch (err) {
        log.warn('could not show the PR on its host', {
          error: err instanceof Error ? err.message : String(err),
        });
      }
      presented = seq;
      presentedRefreshes = refreshes;
    }
  };
  void present();

  await condition(() => isTerminal(record.state) && pending.size === 0);
  await condition(() => !wanted(presentation) || presented === applied);
  await condition(allHandlersFinished);
  return record;
}
