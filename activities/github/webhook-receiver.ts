/**
 * Acting on verified GitHub webhook deliveries: store first, answer, then act (GitHub gives a delivery
 * 10 s; acting never delays the answer).
 *
 * Rules:
 * - `receive` stores the delivery once (by delivery id) and returns; a redelivered id is not acted on
 *   again. Acting runs afterwards, tracked so `idle()` (tests, shutdown) can wait for it.
 * - For now only installation events are acted on, and only for installations linked to an
 *   organisation: `installation_repositories` added/removed add or drop the repositories it covers;
 *   `installation` suspend/unsuspend records the suspension; `installation` deleted unlinks it.
 *   Every other event is stored for later consumers (merge-queue signalling) and marked 'not acted on'.
 * - Payloads are read with zod picking only the needed fields; a payload that lacks them is marked
 *   failed, never thrown at GitHub.
 * - The outcome of each delivery is recorded on its row (handled_at, outcome).
 */
import { z } from 'zod';
import { InstallationNotLinkedError, type GitHubInstallationStore } from '../stores/github-installations';
import type { WebhookDeliveryStore } from '../stores/github-webhook-deliveries';

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

export interface WebhookReceiverDeps {
  deliveries: WebhookDeliveryStore;
  installations: GitHubInstallationStore;
  onError: (err: unknown, message: string) => void;
}

const Envelope = z.object({
  action: z.string().max(100).optional(),
  installation: z.object({ id: z.number().int().positive() }).optional(),
  repository: z.object({ full_name: z.string().max(300) }).optional(),
});

const Repo = z.object({ full_name: z.string().regex(/^[^/]+\/[^/]+$/) });
const InstallationRepositories = z.object({
  action: z.enum(['added', 'removed']),
  installation: z.object({ id: z.number().int().positive() }),
  repositories_added: z.array(Repo).default([]),
  repositories_removed: z.array(Repo).default([]),
});
const Installation = z.object({
  action: z.string(),
  installation: z.object({ id: z.number().int().positive(), suspended_at: z.string().nullish() }),
});

const covered = (repos: readonly { full_name: string }[]) =>
  repos.map((r) => {
    const [owner, name] = r.full_name.split('/') as [string, string];
    return { owner, name };
  });

export function createWebhookReceiver(deps: WebhookReceiverDeps): WebhookReceiver {
  const pending = new Set<Promise<void>>();

  /** What acting on the delivery did, as recorded in its outcome. */
  async function act(event: string, payload: unknown): Promise<string> {
    if (event === 'installation_repositories') {
      const p = InstallationRepositories.safeParse(payload);
      if (!p.success) return 'failed: payload lacks the installation_repositories fields';
      const id = p.data.installation.id;
      if (!(await deps.installations.find(id))) return 'installation not linked';
      if (p.data.action === 'added')
        await deps.installations.addRepositories(id, covered(p.data.repositories_added));
      else await deps.installations.removeRepositories(id, covered(p.data.repositories_removed));
      return 'applied';
    }
    if (event === 'installation') {
      const p = Installation.safeParse(payload);
      if (!p.success) return 'failed: payload lacks the installation fields';
      const { id, suspended_at } = p.data.installation;
      switch (p.data.action) {
        case 'suspend': {
          const at = suspended_at ? new Date(suspended_at) : new Date();
          const linked = await deps.installations.setSuspended(
            id,
            Number.isNaN(at.getTime()) ? new Date() : at,
          );
          return linked ? 'applied' : 'installation not linked';
        }
        case 'unsuspend':
          return (await deps.installations.setSuspended(id, null)) ? 'applied' : 'installation not linked';
        case 'deleted':
          return (await deps.installations.unlink(id)) ? 'applied' : 'installation not linked';
        default:
          return 'not acted on';
      }
    }
    return 'not acted on';
  }

  async function handle(deliveryId: string, event: string, payload: unknown): Promise<void> {
    let outcome: string;
    try {
      outcome = await act(event, payload);
    } catch (err) {
      if (err instanceof InstallationNotLinkedError) outcome = 'installation not linked';
      else {
        deps.onError(err, `could not act on GitHub delivery ${deliveryId} (${event})`);
        outcome = `failed: ${err instanceof Error ? err.name : 'error'}`;
      }
    }
    try {
      await deps.deliveries.markHandled(deliveryId, outcome);
    } catch (err) {
      deps.onError(err, `could not record the outcome of GitHub delivery ${deliveryId}`);
    }
  }

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
      const work = handle(deliveryId, event, payload).finally(() => pending.delete(work));
      pending.add(work);
      return 'stored';
    },
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
