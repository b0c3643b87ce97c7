/** The workflow bundle's entry point: every workflow type the worker runs is exported here. */
export { pingWorkflow } from './ping';
export { queueWorkflow } from './queue/queue-workflow';
export { pullRequestWorkflow } from './pull-request/pull-request-workflow';
export { testRunWorkflow } from './test-run/test-run-workflow';
export { webhookDeliveryWorkflow } from './webhooks/delivery-workflow';
export { flakyReevaluationWorkflow } from './flaky/reevaluation-workflow';
export { flakyMaintenanceWorkflow } from './flaky/maintenance-workflow';
export { gitHubReconciliationWorkflow } from './github/reconciliation-workflow';
export { landingCheckWorkflow } from './landing/landing-check-workflow';
export { preflightWorkflow } from './preflight/preflight-workflow';
