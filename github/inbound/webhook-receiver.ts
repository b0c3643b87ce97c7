/**
 * Receiving verified GitHub webhook deliveries: store first, answer, then act (GitHub gives a delivery
 * 10 s; acting never delays the answer).
 *
 * Rules:
 * - `receive` stores the delivery once (by delivery id) and returns; a redelivered id is not acted on
 *   again. Acting (delivery-actions.ts: installation events, hints to the merge queues of the
 *   repository for pull request, push and check events, and commands in PR comments when `commands`
 *   is given) runs afterwards, tracked so `idle()` (tests, shutdown) can wait for it.
 * - The stored envelope (action, installation id, repository) is read with zod picking only those
 *   fields; a payload without them is stored all the same.
 * - The outcome of each delivery is recorded on its row (handled_at, outcome). A row left unhandled
 *   because the process stopped before acting is acted on by the reconciliation (reconciliation.ts).
 */
import { z } from 'zod';
import type { WebhookDeliveryStore } from '../store/webhook-deliveries';
import { createDeliveryActions, type DeliveryActionDeps } from './delivery-actions';

export interface ReceivedDelivery {
  deliveryId: string;
  event: string;
  /** The raw JSON text, exactly as signed. */
  body: string;
  /** `body` parsed. */
  payload: unknown;
}

export interface WebhookReceiver {
  /** 'stored' the first time a delivery id arrives, 'duplicate' after. */
  receive(delivery: ReceivedDelivery): Promise<'stored' | 'duplicate'>;
  /** Resolves once every delivery received so far has been acted on. */
  idle(): Promise<void>;
}

export interface WebhookReceiverDeps extends Omit<DeliveryActionDeps, 'deliveries'> {
  deliveries: WebhookDeliveryStore;
}

const Envelope = z.object({
  action: z.string().max(100).optional(),
  installation: z.object({ id: z.number().int().positive() }).optional(),
  repository: z.object({ full_name: z.string().max(300) }).optional(),
});

export function createWebhookReceiver(deps: WebhookReceiverDeps): WebhookReceiver {
  const pending = new Set<Promise<unknown>>();
  const actions = createDeliveryActions(deps);

  return {
    async receive({ deliveryId, event, body, payload }) {
      const envelope = Envelope.safeParse(payload);
      const e = envelope.success ? envelope.data : {};
      const stored = await deps.deliveries.record({
        deliveryId,
        event,
        action: e.action ?? null,
        installationId: e.installation?.id ?? null,
        repository: e.repository?.full_name ?? null,
        payload: body,
      });
      if (!stored) return 'duplicate';
      const work = actions.handle(deliveryId, event, payload).finally(() => pending.delete(work));
      pending.add(work);
      return 'stored';
    },
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
