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
 * The PR_STATE search attribute (listPullRequests' state filter) follows the record's state: the start
 * sets it (signal-with-start), and the workflow upserts it only when the state differs from what it last
 * set, once per workflow task however many transitions the task applied (issue 25: an upsert is a
 * history event).
 *
 * Invariants: transitions are applied in `seq` order exactly once (duplicates and stale notices are
 * ignored); the search attribute holds the record's state whenever a workflow task ends; the workflow
 * completes only after a terminal transition, after it was presented (when presentation was asked
 * for) and after all handlers finished.
 */
import {
  allHandlersFinished,
  condition,
  log,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { isTerminal } from '../../engine';
import {
  foldRefresh,
  foldTransition,
  getPullRequestQuery,
  newRecordFold,
  PR_STATE,
  prDetailsSignal,
  prTransitionSignal,
  type Presentation,
  type PresentedIds,
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

export async function pullRequestWorkflow(input: PullRequestWorkflowInput): Promise<PullRequestRecord> {
  // The fold is shared with the read projection (contract/pr-record.ts), so both keep the same record.
  const fold = newRecordFold(input);
  const { record } = fold;
  let presentation: Presentation | null = null;
  let presented = 0;
  /** Details refreshes applied (prDetailsSignal), and how many of them were shown. */
  let refreshed = 0;
  let presentedRefreshes = 0;
  const ids: PresentedIds = { commentId: null, checkRunId: null, announcedSeq: 0 };

  setHandler(prTransitionSignal, (notices) => {
    for (const notice of notices) {
      if (notice.submissionId !== input.submissionId) continue;
      const { applied, refreshes } = foldTransition(fold, notice);
      for (const n of applied) if (n.presentation) presentation = n.presentation;
      refreshed += refreshes;
    }
  });
  setHandler(prDetailsSignal, (r) => {
    if (r.submissionId !== input.submissionId) return;
    if (foldRefresh(fold, r)) refreshed += 1;
  });
  setHandler(getPullRequestQuery, () => record);

  // What the search attribute holds: set at the start from the first delivery's last state.
  let searched: string | undefined = workflowInfo().typedSearchAttributes.get(PR_STATE);
  const search = (): void => {
    if (record.state === searched) return;
    searched = record.state;
    upsertSearchAttributes([{ key: PR_STATE, value: searched }]);
  };
  const done = () => isTerminal(record.state) && fold.pending.length === 0;

  const wanted = (p: Presentation | null): p is Presentation => p !== null && (p.comment || p.checkRun);
  const present = async (): Promise<void> => {
    for (;;) {
      await condition(
        () => wanted(presentation) && (fold.applied > presented || refreshed > presentedRefreshes),
      );
      if (!isTerminal(record.state)) await sleep(PRESENT_COALESCE_MS);
      const seq = fold.applied;
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

  // Conditions are checked once the task's signals are handled: one upsert for all they changed.
  while (!done()) {
    await condition(() => record.state !== searched || done());
    search();
  }
  search();
  await condition(() => !wanted(presentation) || presented === fold.applied);
  await condition(allHandlersFinished);
  return record;
}
