/**
 * Visibility queries (Temporal's list filter) that find queue and PR workflows.
 *
 * Rules:
 * - Every value is a double-quoted string with `"` and `\` escaped (`quote`), so no branch, owner or
 *   organisation can end the string early or add a clause; the clauses are joined with AND.
 * - Tenancy lives in the workflow id (contract/ids.ts): a query scoped to an organisation selects by
 *   its id prefix, and the search attributes only narrow the scan. Callers still check every id they
 *   get back (parseQueueWorkflowId), because visibility compares attributes, not ownership.
 */
import {
  PR_STATE,
  prWorkflowIdPrefix,
  PULL_REQUEST_WORKFLOW_TYPE,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowIdPrefix,
  REPOSITORY,
  repositoryLabel,
  TARGET_BRANCH,
  type QueueKey,
} from '../contract';

/** A visibility string literal. */
export const quote = (s: string): string => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** The PR workflows of one queue, optionally in one state (the PR_STATE search attribute). */
export function submissionsQuery(key: QueueKey, state?: string): string {
  return [
    `WorkflowType = ${quote(PULL_REQUEST_WORKFLOW_TYPE)}`,
    `WorkflowId STARTS_WITH ${quote(prWorkflowIdPrefix(key))}`,
    `${REPOSITORY.name} = ${quote(repositoryLabel(key.repo))}`,
    `${TARGET_BRANCH.name} = ${quote(key.targetBranch)}`,
    ...(state !== undefined ? [`${PR_STATE.name} = ${quote(state)}`] : []),
  ].join(' AND ');
}

/** Which running queues: one organisation's queues of some repository labels, or every queue of a host. */
export type RunningQueuesScope =
  { organisationId: string; repositoryLabels: readonly string[]; targetBranch?: string } | { host: string };

/** The running queue workflows of `scope`. */
export function runningQueuesQuery(scope: RunningQueuesScope): string {
  const base = [`WorkflowType = ${quote(QUEUE_WORKFLOW_TYPE)}`, `ExecutionStatus = 'Running'`];
  if ('host' in scope)
    return [...base, `${REPOSITORY.name} STARTS_WITH ${quote(`${scope.host}/`)}`].join(' AND ');
  return [
    ...base,
    `WorkflowId STARTS_WITH ${quote(queueWorkflowIdPrefix(scope.organisationId))}`,
    `${REPOSITORY.name} IN (${scope.repositoryLabels.map(quote).join(', ')})`,
    ...(scope.targetBranch !== undefined ? [`${TARGET_BRANCH.name} = ${quote(scope.targetBranch)}`] : []),
  ].join(' AND ');
}
