/**
 * createGitHubReconciliationActivities(deps): the four steps of the periodic GitHub reconciliation
 * (github/inbound/reconciliation.ts) as the activities workflows/github/reconciliation-workflow.ts
 * runs, in order. Failures a step survives are logged with the activity logger (warn) unless the
 * caller passes its own `onError`.
 */
import { log } from '@temporalio/activity';
import { createGitHubReconciliation, type GitHubReconciliationDeps } from '../github/inbound/reconciliation';

export type { PruneSummary, RedeliverySummary, UnhandledSummary } from '../github/inbound/reconciliation';
export type { HintResult } from '../github/inbound/queue-hints';

export type GitHubReconciliationActivityDeps = Omit<GitHubReconciliationDeps, 'onError'> &
  Partial<Pick<GitHubReconciliationDeps, 'onError'>>;

function warn(err: unknown, message: string): void {
  log.warn(message, { error: err instanceof Error ? err.message : String(err) });
}

export function createGitHubReconciliationActivities(deps: GitHubReconciliationActivityDeps) {
  const reconciliation = createGitHubReconciliation({ ...deps, onError: deps.onError ?? warn });
  return {
    redeliverFailedGitHubDeliveries: () => reconciliation.redeliverFailed(),
    actOnUnhandledGitHubDeliveries: () => reconciliation.actOnUnhandled(),
    reconcileGitHubQueues: () => reconciliation.reconcileQueues(),
    pruneGitHubDeliveries: () => reconciliation.prune(),
  };
}

export type GitHubReconciliationActivities = ReturnType<typeof createGitHubReconciliationActivities>;
