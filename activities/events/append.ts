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
 *   without limit (workflows/queue/event-log-outbox.ts), so a failure here delays, never drops.
 * - The events that carry their PR's notice are folded into the PRs' records of the read projection
 *   (ADR 0016) in the same transaction: the durable path of the records (the notify activity's write
 *   is the fast one, and gives up during an outage).
 * - With `input.queue`, it then reads the queue's view (one query) and stores it in the read
 *   projection (ADR 0016), so getQueue follows the queue's own moves. A query that fails or takes over
 *   VIEW_QUERY_DEADLINE_MS is logged and skipped (the next append projects again); a store that fails
 *   fails the activity like the log.
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
}

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

  async function projectView(queue: QueueKey): Promise<void> {
    const { client, views } = deps;
    if (!client || !views) return;
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
      return;
    }
    await views.put(queue, snapshot);
  }

  return {
    async appendTransitions(input: AppendTransitionsInput): Promise<AppendResult> {
      const events = input.events;
      if (events.length === 0) {
        if (input.queue) await projectView(input.queue);
        return { appended: 0, deliveries: 0 };
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
      if (input.queue) await projectView(input.queue);
      return { appended, deliveries: deliveryIds.length };
    },
  };
}
