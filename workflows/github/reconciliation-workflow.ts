/**
 * gitHubReconciliationWorkflow: one periodic GitHub reconciliation, started by the Temporal Schedule of
 * worker/github-reconciliation-schedule.ts (every RAILYARD_GITHUB_RECONCILE_MINUTES). The work is four
 * activities (activities/github-reconciliation.ts), run in order: redeliver the webhook deliveries
 * GitHub failed to deliver, act on stored deliveries nobody acted on, hint every queue of the GitHub
 * host to reconcile, prune old deliveries.
 *
 * Each step gets its own retries, and a step that still fails does not keep the later ones from
 * running; the run then fails at the end, naming the failed steps, so the Temporal UI shows it. The
 * workflow only calls activities (deterministic; no clock, no I/O).
 */
import { ActivityFailure, ApplicationFailure, log, proxyActivities } from '@temporalio/workflow';
import type {
  GitHubReconciliationActivities,
  HintResult,
  PruneSummary,
  RedeliverySummary,
  UnhandledSummary,
} from '../../activities/github-reconciliation';

const steps = proxyActivities<GitHubReconciliationActivities>({
  startToCloseTimeout: '3 minutes',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
});

export interface GitHubReconciliationSummary {
  redelivery: RedeliverySummary | null;
  unhandled: UnhandledSummary | null;
  queues: HintResult | null;
  pruned: PruneSummary | null;
  /** Steps that failed after their retries, with the reason. */
  failed: { step: string; message: string }[];
}

export async function gitHubReconciliationWorkflow(): Promise<GitHubReconciliationSummary> {
  const failed: GitHubReconciliationSummary['failed'] = [];
  async function step<T>(name: string, run: () => Promise<T>): Promise<T | null> {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      const message = err.cause?.message ?? err.message;
      log.warn(`GitHub reconciliation step ${name} failed; the other steps go on`, { message });
      failed.push({ step: name, message });
      return null;
    }
  }
  const summary: GitHubReconciliationSummary = {
    redelivery: await step('redeliver', () => steps.redeliverFailedGitHubDeliveries()),
    unhandled: await step('act on unhandled', () => steps.actOnUnhandledGitHubDeliveries()),
    queues: await step('reconcile queues', () => steps.reconcileGitHubQueues()),
    pruned: await step('prune', () => steps.pruneGitHubDeliveries()),
    failed,
  };
  if (failed.length > 0)
    throw ApplicationFailure.nonRetryable(
      `GitHub reconciliation: ${failed.map((f) => `${f.step} failed (${f.message})`).join('; ')}`,
      'GitHubReconciliationStepFailed',
      summary,
    );
  return summary;
}
