/**
 * announceStalledChecks: records and starts the `pull_request.checks_stalled` deliveries of one
 * details refresh that reported stalled checks (webhooks/stalled-check-events.ts), for the queue's
 * side effects (activities/index.ts, after the refresh reached the PR's record).
 * Idempotent: deliveries are unique per (subscription, event key), so a retried effect sends nothing
 * twice. Without a Temporal client nothing is recorded or sent.
 */
import type { PrDetailsRefresh, PullRequestWorkflowInput } from '../../contract';
import { dispatchWebhookEvents, type WebhookDispatchDeps } from '../../webhooks/dispatch';
import { stalledChecksEvent } from '../../webhooks/stalled-check-events';

export function createStalledChecksAnnouncer(deps: WebhookDispatchDeps & { publicUrl: string }) {
  const base = deps.publicUrl.replace(/\/+$/, '');
  const enc = encodeURIComponent;
  return async (input: { workflow: PullRequestWorkflowInput; refresh: PrDetailsRefresh }): Promise<void> => {
    const { repo, targetBranch } = input.workflow.key;
    // Trunk's PR page shape, as the transitions' events (append.ts defaultDetailsUrl).
    const detailsUrl = `${base}/merge/${enc(repo.host)}/${enc(repo.owner)}/${enc(repo.name)}/${enc(targetBranch)}/${input.workflow.prNumber}`;
    const event = stalledChecksEvent({ ...input, detailsUrl });
    if (event) await dispatchWebhookEvents(deps, [event]);
  };
}
