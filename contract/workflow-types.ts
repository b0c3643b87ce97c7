/**
 * Workflow type names: how code outside the workflow bundle starts or finds a workflow (start,
 * signal-with-start, child start, schedules, visibility queries) without importing its code. Each is the
 * name its function is exported under from workflows/index.ts, which is how the worker registers it
 * (test/unit/contract pins that).
 *
 * The strings are stable: recorded histories, running workflows and visibility queries hold them.
 * Inputs and results of each type are in its own messages file; ping needs none.
 */
export const QUEUE_WORKFLOW_TYPE = 'queueWorkflow';
export const PULL_REQUEST_WORKFLOW_TYPE = 'pullRequestWorkflow';
export const TEST_RUN_WORKFLOW_TYPE = 'testRunWorkflow';
export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = 'webhookDeliveryWorkflow';
export const FLAKY_REEVALUATION_WORKFLOW_TYPE = 'flakyReevaluationWorkflow';
/** Periodic flaky-test result maintenance (a Temporal Schedule): partitions ahead, retention. */
export const FLAKY_MAINTENANCE_WORKFLOW_TYPE = 'flakyMaintenanceWorkflow';
export const PING_WORKFLOW_TYPE = 'pingWorkflow';
/** Periodic GitHub reconciliation (a Temporal Schedule): redelivers failed webhooks, hints every queue. */
export const GITHUB_RECONCILIATION_WORKFLOW_TYPE = 'gitHubReconciliationWorkflow';
/** Periodic landing check (a Temporal Schedule): recent landings' trees compared again on their host. */
export const LANDING_CHECK_WORKFLOW_TYPE = 'landingCheckWorkflow';
/** A queue's preflight (contract/preflight.ts): are its required checks produced on test branches? */
export const PREFLIGHT_WORKFLOW_TYPE = 'preflightWorkflow';

/** One activity round trip answering its nonce: proof that a worker polls the task queue. */
export type PingWorkflow = (nonce: string) => Promise<string>;
