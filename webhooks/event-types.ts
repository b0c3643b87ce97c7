/**
 * The webhook event catalogue: Trunk's event type names (trunk-compat §7), which subscriptions filter
 * on and which every payload carries in its top-level `type`.
 *
 * Rule: the names are Trunk's, spelling included (`canceled` with one "l", while the PR state is
 * `cancelled`). There is no `tests_passed` or `not_ready` event, as in Trunk.
 */

export const PULL_REQUEST_ACTIONS = [
  'submitted',
  'queued',
  'testing',
  'pending_failure',
  'failed',
  'merged',
  'canceled',
] as const;
export type PullRequestAction = (typeof PULL_REQUEST_ACTIONS)[number];

/** Batch events exist only for the actions of a test run (a batch is formed when testing starts). */
export const BATCH_ACTIONS = ['testing', 'pending_failure', 'failed', 'merged', 'canceled'] as const;
export type BatchAction = (typeof BATCH_ACTIONS)[number];

export const TEST_CASE_EVENT_TYPES = [
  'test_case.status_changed',
  'test_case.quarantining_setting_changed',
] as const;
export type TestCaseEventType = (typeof TEST_CASE_EVENT_TYPES)[number];

/**
 * railyard's own PR events, not transitions (Trunk has none): a testing PR's required checks that have
 * not started within the queue's grace (stalled-check-events.ts).
 */
export const RAILYARD_PR_EVENT_TYPES = ['pull_request.checks_stalled'] as const;
export type RailyardPrEventType = (typeof RAILYARD_PR_EVENT_TYPES)[number];

export type PullRequestEventType = `pull_request.${PullRequestAction}`;
export type BatchEventType = `pull_request_batch.${BatchAction}`;
export type WebhookEventType =
  PullRequestEventType | BatchEventType | TestCaseEventType | RailyardPrEventType;

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  ...PULL_REQUEST_ACTIONS.map((a): PullRequestEventType => `pull_request.${a}`),
  ...BATCH_ACTIONS.map((a): BatchEventType => `pull_request_batch.${a}`),
  ...TEST_CASE_EVENT_TYPES,
  ...RAILYARD_PR_EVENT_TYPES,
];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

export function isBatchAction(action: PullRequestAction): action is BatchAction {
  return (BATCH_ACTIONS as readonly string[]).includes(action);
}

/**
 * One event on its way to the subscriptions of an organisation. `key` identifies it for good: the
 * same key recorded again (an activity retry) is the same delivery, never a second one.
 */
export interface OutgoingEvent {
  organisationId: string;
  key: string;
  type: WebhookEventType;
  /** The whole JSON body (top-level `type`, no wrapper), serialised once and sent byte for byte. */
  payload: Record<string, unknown>;
}
