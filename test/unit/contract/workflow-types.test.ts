/**
 * The contract's workflow type names are the names the worker registers: each is an export of the
 * workflow bundle (workflows/index.ts) and nothing else is exported there, so a caller starting a
 * workflow by name from the contract starts the function the bundle runs. The signatures the contract
 * gives callers are checked against the bundle's functions at compile time.
 */
import * as bundle from '../../../workflows';
import {
  FLAKY_MAINTENANCE_WORKFLOW_TYPE,
  FLAKY_REEVALUATION_WORKFLOW_TYPE,
  GITHUB_RECONCILIATION_WORKFLOW_TYPE,
  LANDING_CHECK_WORKFLOW_TYPE,
  PING_WORKFLOW_TYPE,
  PREFLIGHT_WORKFLOW_TYPE,
  PULL_REQUEST_WORKFLOW_TYPE,
  QUEUE_WORKFLOW_TYPE,
  TEST_RUN_WORKFLOW_TYPE,
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  type PingWorkflow,
  type PreflightWorkflow,
  type PullRequestWorkflow,
  type QueueWorkflow,
  type TestRunWorkflow,
} from '../../../contract';

/** The bundle as callers see it through the contract; the assignment is the compile-time check. */
const asCalled: {
  [QUEUE_WORKFLOW_TYPE]: QueueWorkflow;
  [PULL_REQUEST_WORKFLOW_TYPE]: PullRequestWorkflow;
  [TEST_RUN_WORKFLOW_TYPE]: TestRunWorkflow;
  [PING_WORKFLOW_TYPE]: PingWorkflow;
  [PREFLIGHT_WORKFLOW_TYPE]: PreflightWorkflow;
} = bundle;

test('every workflow type name is a workflow the bundle exports, and the bundle exports no other', () => {
  const names = [
    QUEUE_WORKFLOW_TYPE,
    PULL_REQUEST_WORKFLOW_TYPE,
    TEST_RUN_WORKFLOW_TYPE,
    WEBHOOK_DELIVERY_WORKFLOW_TYPE,
    FLAKY_REEVALUATION_WORKFLOW_TYPE,
    FLAKY_MAINTENANCE_WORKFLOW_TYPE,
    GITHUB_RECONCILIATION_WORKFLOW_TYPE,
    LANDING_CHECK_WORKFLOW_TYPE,
    PING_WORKFLOW_TYPE,
    PREFLIGHT_WORKFLOW_TYPE,
  ] as const;
  expect(Object.keys(bundle).sort()).toEqual([...names].sort());
  for (const name of names) expect(bundle[name].name).toBe(name);
});

test('the contract types the calls of the workflows callers start by name', () => {
  expect(asCalled[QUEUE_WORKFLOW_TYPE]).toBe(bundle.queueWorkflow);
  expect(asCalled[TEST_RUN_WORKFLOW_TYPE]).toBe(bundle.testRunWorkflow);
  expect(asCalled[PREFLIGHT_WORKFLOW_TYPE]).toBe(bundle.preflightWorkflow);
});
