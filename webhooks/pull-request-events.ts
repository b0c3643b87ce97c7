/**
 * PR transitions → Trunk's merge-queue webhook events (trunk-compat §7), a pure function.
 *
 * Rules:
 * - A submission (from = null) is `pull_request.submitted`; entering `pending` is `queued`; `testing`,
 *   `pending_failure`, `failed`, `merged` have their own event; `cancelled` is `canceled`. Entering
 *   `not_ready` again and `tests_passed` send nothing (Trunk has no such events).
 * - A PR in a batched run (its `batch` has more than one PR) still gets its own `pull_request.*` event
 *   (with `batched: true`), and the run gets one `pull_request_batch.*` event per action: the PRs that
 *   made that move together in this append are its `pr_numbers`, the whole run its
 *   `pr_numbers_in_batch`, and its reason, branch and time are those of the last PR of the batch among
 *   them. A batch event needs the run's test branch (Trunk requires it), so a run cancelled before its
 *   branch was built sends only the PR events.
 * - Keys: `pr/<submission>/<seq>/<action>` and `batch/<run>/<action>`. A later append that moves more
 *   PRs of the same run the same way maps to the same batch key, so the first append wins and the
 *   receiver hears about a batch action once.
 */
import { explainState } from '../contract';
import type { TransitionEvent } from '../events/types';
import { isBatchAction, type BatchAction, type OutgoingEvent, type PullRequestAction } from './event-types';

export interface PullRequestEventContext {
  /** Where a person reads about one PR of one queue (`http_details_url`). */
  detailsUrl(event: TransitionEvent): string;
  /** Where the API serves a run's log; runs judged by CI's statuses have none there. */
  testRunLogUrl?: (testRunId: string) => string;
}

/**
 * railyard's additions to Trunk's PR payload (docs/webhooks.md): the PR's head, the run behind the
 * transition with its log, and the reason as a sentence with its detail (contract/pr-reasons.ts).
 */
function explanation(e: TransitionEvent, ctx: PullRequestEventContext): Record<string, unknown> {
  const logged = e.testRunId !== null && e.runner === 'command' && ctx.testRunLogUrl;
  return {
    pr_sha: e.headSha,
    test_run_id: e.testRunId,
    ...(logged ? { test_run_log_url: ctx.testRunLogUrl!(e.testRunId!) } : {}),
    reason_text: explainState({
      state: e.to,
      reason: e.reason,
      ...(e.detail ? { detail: e.detail } : {}),
      targetBranch: e.targetBranch,
    }),
    ...(e.detail ? { reason_detail: e.detail } : {}),
    // The landing's proof on `merged` (docs/git-host.md, "Landing proof"): additive fields.
    ...(e.to === 'merged' && e.detail?.kind === 'landing'
      ? { landed_sha: e.detail.sha, tested_tree: e.detail.testedTree, landed_tree: e.detail.landedTree }
      : {}),
  };
}

const SUBMIT_REASONS = new Set(['USER_REQUESTED', 'API_REQUESTED', 'TRUNK_ADMIN_REQUESTED']);

/** The actions one transition announces, in order. */
export function actionsOf(event: TransitionEvent): PullRequestAction[] {
  const actions: PullRequestAction[] = event.from === null ? ['submitted'] : [];
  switch (event.to) {
    case 'pending':
      actions.push('queued');
      break;
    case 'testing':
    case 'pending_failure':
    case 'failed':
    case 'merged':
      actions.push(event.to);
      break;
    case 'cancelled':
      actions.push('canceled');
      break;
    case 'not_ready':
    case 'tests_passed':
      break;
  }
  return actions;
}

/** Trunk's reason field for an action: each action names its reason differently. */
function reasonField(action: PullRequestAction, event: TransitionEvent): Record<string, string> {
  switch (action) {
    case 'submitted':
      return { submitted_reason: SUBMIT_REASONS.has(event.reason) ? event.reason : 'API_REQUESTED' };
    case 'queued':
      return { queued_reason: event.reason };
    case 'pending_failure':
    case 'failed':
      return { failure_reason: event.reason };
    case 'merged':
      return { merged_reason: event.reason };
    case 'canceled':
      return { cancellation_reason: event.reason };
    case 'testing':
      return {};
  }
}

const repository = (e: TransitionEvent) => ({ host: e.repo.host, owner: e.repo.owner, name: e.repo.name });

function runFields(action: PullRequestAction, e: TransitionEvent): Record<string, unknown> {
  if (!isBatchAction(action)) return {};
  const branch =
    e.testBranch === null ? {} : { test_branch: e.testBranch, test_branch_sha: e.testBranchSha ?? '' };
  return { ...branch, batched: e.batch.length > 1, is_bisection: e.isBisection };
}

function pullRequestEvent(
  action: PullRequestAction,
  e: TransitionEvent,
  ctx: PullRequestEventContext,
): OutgoingEvent {
  const type = `pull_request.${action}` as const;
  return {
    organisationId: e.organisationId,
    key: `pr/${e.submissionId}/${e.seq}/${action}`,
    type,
    payload: {
      type,
      action,
      status: action,
      author: e.author,
      http_details_url: ctx.detailsUrl(e),
      pr_number: e.prNumber,
      repository: repository(e),
      target_branch: e.targetBranch,
      timestamp: new Date(e.at).toISOString(),
      ...runFields(action, e),
      ...reasonField(action, e),
      ...explanation(e, ctx),
    },
  };
}

function batchEvent(action: BatchAction, moved: TransitionEvent[]): OutgoingEvent | null {
  // The batch's own order decides which PR is last; `moved` is never empty.
  const last = moved.reduce((a, b) => (a.batch.indexOf(b.prNumber) > a.batch.indexOf(a.prNumber) ? b : a));
  if (last.testRunId === null || last.testBranch === null) return null;
  const type = `pull_request_batch.${action}` as const;
  const inBatch = new Set(moved.map((e) => e.prNumber));
  return {
    organisationId: last.organisationId,
    key: `batch/${last.testRunId}/${action}`,
    type,
    payload: {
      type,
      action,
      status: action,
      pr_numbers: last.batch.filter((n) => inBatch.has(n)),
      pr_numbers_in_batch: [...last.batch],
      repository: repository(last),
      target_branch: last.targetBranch,
      timestamp: new Date(Math.max(...moved.map((e) => e.at))).toISOString(),
      test_branch: last.testBranch,
      test_branch_sha: last.testBranchSha ?? '',
      batched: true,
      is_bisection: last.isBisection,
      ...reasonField(action, last),
    },
  };
}

/** Every webhook event a batch of transitions announces: PR events in input order, then batches. */
export function pullRequestEventsOf(
  events: readonly TransitionEvent[],
  ctx: PullRequestEventContext,
): OutgoingEvent[] {
  const out: OutgoingEvent[] = [];
  const batches = new Map<string, { action: BatchAction; moved: TransitionEvent[] }>();
  for (const e of events) {
    for (const action of actionsOf(e)) {
      out.push(pullRequestEvent(action, e, ctx));
      if (!isBatchAction(action) || e.batch.length < 2 || e.testRunId === null) continue;
      const key = `${e.organisationId}\n${e.testRunId}\n${action}`;
      const group = batches.get(key) ?? { action, moved: [] };
      group.moved.push(e);
      batches.set(key, group);
    }
  }
  for (const { action, moved } of batches.values()) {
    const event = batchEvent(action, moved);
    if (event) out.push(event);
  }
  return out;
}
