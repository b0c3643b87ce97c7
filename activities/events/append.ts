/**
 * appendTransitions: the one activity the queue workflow calls per main-loop drain with every
 * transition of that drain. In one transaction it appends them to the event log and records a webhook
 * delivery per matching subscription; after the commit it starts the delivery workflows.
 *
 * Invariants:
 * - Idempotent under retries: the log ignores a known (submission, seq), deliveries are unique per
 *   (subscription, event key), and every still-pending delivery of the batch is (re)started, so a
 *   crash between the commit and the starts loses no webhook and sends none twice.
 * - It never waits for a receiver: delivery happens in its own workflow, so a slow or failing
 *   receiver cannot slow the queue.
 * - It may fail as long as PostgreSQL is down: the queue workflow keeps the transitions and retries
 *   without limit (workflows/queue/side-effects.ts), so a failure here delays, never drops.
 * - The events that carry their PR's notice are folded into the PRs' records of the read projection
 *   (ADR 0016) in the same transaction: the durable path of the records (the notify activity's write
 *   is the fast one, and gives up during an outage).
 * - With `input.queue`, it then brings the queue's view in the read projection up to date (ADR 0016),
 *   so getQueue follows the queue's own moves: it applies `input.view`, the delta the queue sent
 *   (only the entries that changed are written, no workflow is asked). Only when there is no delta
 *   (an older worker) or it does not apply on the stored view (`diverged`: another writer got in
 *   between) is the queue's whole view read (one query) and stored; the answer then tells the queue to
 *   send a whole view next time. A query that fails or takes over VIEW_QUERY_DEADLINE_MS is logged and
 *   skipped (the next append projects again); a store that fails fails the activity like the log.
 */
import { log } from '@temporalio/activity';
import {
  getQueueQuery,
  queueWorkflowId,
  type PrTransitionNotice,
  type QueueKey,
  type QueueSnapshot,
} from '../../contract';
import { foldTransitionsIn, type RecordOwner } from '../../events/store/pr-records';
import type { QueueViewStore } from '../../events/store/queue-views';
import { inTransaction } from '../../stores/transaction';
import { recordDeliveries } from '../../webhooks/store/deliveries';
import { startDeliveries, type WebhookDispatchDeps } from '../../webhooks/dispatch';
import { pullRequestEventsOf, type PullRequestEventContext } from '../../webhooks/pull-request-events';
import { appendToLog } from '../../events/store/log-store';
import type { AppendTransitionsInput, TransitionEvent } from '../../events/types';

export interface AppendResult {
  /** Transitions that were new to the log (0 for a repeated batch). */
  appended: number;
  /** Deliveries started or restarted. */
  deliveries: number;
  /**
   * What became of the queue's view (absent without `input.queue`): `stored` or `stale` (the delta
   * applied, or the projection already held a newer view); `replaced` (the whole view was read and
   * stored instead); `unstored` (it could not be). After `replaced` or `unstored` the queue's next
   * delta is a whole view.
   */
  view?: ViewOutcome;
}

export type ViewOutcome = 'stored' | 'stale' | 'replaced' | 'unstored';

export interface AppendDeps extends WebhookDispatchDeps {
  /** The read projection's queue views (ADR 0016); without it (or a client) no view is stored. */
  views?: QueueViewStore;
  /** `http_details_url` of a PR event. */
  detailsUrl: PullRequestEventContext['detailsUrl'];
  /** The API's link to a run's log, in PR events. */
  testRunLogUrl?: PullRequestEventContext['testRunLogUrl'];
}

/** Trunk's PR page shape (`…/merge/<branch>/<pr>`) under this server's public URL. */
export function defaultDetailsUrl(publicUrl: string): (e: TransitionEvent) => string {
  const base = publicUrl.replace(/\/+$/, '');
  const enc = encodeURIComponent;
  return (e) =>
    `${base}/merge/${enc(e.repo.host)}/${enc(e.repo.owner)}/${enc(e.repo.name)}/${enc(e.targetBranch)}/${e.prNumber}`;
}

/** The events that carry their notice, per submission, in seq order. */
function recordBatchesOf(events: readonly TransitionEvent[]) {
  const bySubmission = new Map<string, { owner: RecordOwner; notices: PrTransitionNotice[] }>();
  for (const e of events) {
    if (!e.record) continue;
    const owner = {
      key: { organisationId: e.organisationId, repo: e.repo, targetBranch: e.targetBranch },
      prNumber: e.prNumber,
      submissionId: e.submissionId,
      submittedAt: e.record.submittedAt,
    };
    const batch = bySubmission.get(e.submissionId) ?? { owner, notices: [] };
    batch.notices.push(e.record.notice);
    bySubmission.set(e.submissionId, batch);
  }
  return [...bySubmission.values()];
}

/** How long the append waits for the queue's view (a skipped view is projected by the next append). */
const VIEW_QUERY_DEADLINE_MS = 5_000;

export function createAppendActivity(deps: AppendDeps) {
  const webhooksOn = deps.client !== undefined && deps.taskQueue !== undefined;

  async function queryView(queue: QueueKey): Promise<ViewOutcome> {
    const { client, views } = deps;
    if (!client || !views) return 'unstored';
    let snapshot: QueueSnapshot;
    try {
      // Bounded well inside the activity's 30 s: a queue the worker must replay first (not cached) can
      // take longer than that, and the log must not wait for its view.
      snapshot = await client.withDeadline(Date.now() + VIEW_QUERY_DEADLINE_MS, () =>
        client.workflow.getHandle(queueWorkflowId(queue)).query(getQueueQuery),
      );
    } catch (err) {
      log.warn('could not read the queue view to project it', {
        error: err instanceof Error ? err.message : String(err),
      });
      return 'unstored';
    }
    await views.put(queue, snapshot);
    return 'replaced';
  }

  async function projectView(input: AppendTransitionsInput): Promise<ViewOutcome | undefined> {
    const { queue, view } = input;
    if (!queue) return undefined;
    if (view && deps.views) {
      const outcome = await deps.views.apply(queue, view);
      if (outcome !== 'diverged') return outcome;
      log.info('the queue view delta does not apply on the stored view; reading the whole view', {
        base: view.base,
        revision: view.revision,
      });
    }
    return queryView(queue);
  }

  return {
    async appendTransitions(input: AppendTransitionsInput): Promise<AppendResult> {
      const events = input.events;
      if (events.length === 0) {
        const view = await projectView(input);
        return { appended: 0, deliveries: 0, ...(view ? { view } : {}) };
      }
      const outgoing = webhooksOn
        ? pullRequestEventsOf(events, {
            detailsUrl: deps.detailsUrl,
            ...(deps.testRunLogUrl ? { testRunLogUrl: deps.testRunLogUrl } : {}),
          })
        : [];
      const { appended, deliveryIds } = await inTransaction(deps.pool, async (db) => {
        const appended = await appendToLog(db, events);
        // The PRs' records in the read projection, from the same batch: nothing lost in an outage.
        await foldTransitionsIn(db, recordBatchesOf(events));
        return { appended, deliveryIds: await recordDeliveries(db, outgoing) };
      });
      await startDeliveries(deps, deliveryIds);
      const view = await projectView(input);
      return { appended, deliveries: deliveryIds.length, ...(view ? { view } : {}) };
    },
  };
}
