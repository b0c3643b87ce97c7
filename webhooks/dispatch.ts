/**
 * Dispatch: turns outgoing events into delivery rows and starts one delivery workflow per row.
 *
 * Rules:
 * - Recording and starting are separate steps: the caller records inside its own transaction (the
 *   event log's), commits, then starts. Starting is idempotent (one workflow id per delivery,
 *   a duplicate start is "already started", and REJECT_DUPLICATE keeps a finished delivery from
 *   running again), so a retried caller simply starts every still-pending delivery again.
 * - Only starting a workflow happens here, never an HTTP request: a slow or failing receiver costs the
 *   caller nothing.
 * - Without a Temporal client nothing is recorded or sent (a process configured without webhooks).
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Pool } from '../stores/db';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryWorkflowId } from '../contract';
import { recordDeliveries } from './store/deliveries';
import type { OutgoingEvent } from './event-types';
import { DEFAULT_RETRY_POLICY, type DeliveryRetryPolicy, type WebhookDeliveryInput } from './types';

export interface WebhookDispatchDeps {
  pool: Pool;
  client?: Client;
  taskQueue?: string;
  retry?: Partial<DeliveryRetryPolicy>;
}

/** How many workflow starts are in flight at once; a large drain should not flood the frontend. */
const START_CONCURRENCY = 8;

async function startOne(client: Client, taskQueue: string, input: WebhookDeliveryInput): Promise<void> {
  try {
    await client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
      workflowId: webhookDeliveryWorkflowId(input.deliveryId),
      taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `webhook delivery ${input.deliveryId}`,
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}

export async function startDeliveries(
  deps: WebhookDispatchDeps,
  deliveryIds: readonly string[],
): Promise<void> {
  const { client, taskQueue } = deps;
  if (!client || !taskQueue || deliveryIds.length === 0) return;
  const retry = { ...DEFAULT_RETRY_POLICY, ...deps.retry };
  const queue = [...deliveryIds];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      await startOne(client, taskQueue, { deliveryId: id, retry });
    }
  };
  await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, queue.length) }, worker));
}

/** Records and starts in one go, for callers without a transaction of their own (flaky events). */
export async function dispatchWebhookEvents(
  deps: WebhookDispatchDeps,
  events: readonly OutgoingEvent[],
): Promise<number> {
  if (!deps.client || !deps.taskQueue) return 0;
  const ids = await recordDeliveries(deps.pool, events);
  await startDeliveries(deps, ids);
  return ids.length;
}
