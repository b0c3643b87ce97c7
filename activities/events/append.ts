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
 */
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

export function createAppendActivity(deps: AppendDeps) {
  const webhooksOn = deps.client !== undefined && deps.taskQueue !== undefined;
  return {
    async appendTransitions(input: AppendTransitionsInput): Promise<AppendResult> {
      const events = input.events;
      if (events.length === 0) return { appended: 0, deliveries: 0 };
      const outgoing = webhooksOn
        ? pullRequestEventsOf(events, {
            detailsUrl: deps.detailsUrl,
            ...(deps.testRunLogUrl ? { testRunLogUrl: deps.testRunLogUrl } : {}),
          })
        : [];
      const { appended, deliveryIds } = await inTransaction(deps.pool, async (db) => ({
        appended: await appendToLog(db, events),
        deliveryIds: await recordDeliveries(db, outgoing),
      }));
      await startDeliveries(deps, deliveryIds);
      return { appended, deliveries: deliveryIds.length };
    },
  };
}
