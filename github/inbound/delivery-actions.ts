/**
 * Acting on one stored GitHub webhook delivery, and recording what that did on its row. The API's
 * receiver acts right after storing (webhook-receiver.ts); the reconciliation acts on rows a stopped
 * process left unhandled (reconciliation.ts). Both go through `handle`, so a delivery means the same
 * whichever ran it.
 *
 * Rules:
 * - Installation events, for installations linked to an organisation: `installation_repositories`
 *   added/removed add or drop the repositories it covers; `installation` suspend/unsuspend records the
 *   suspension; `installation` deleted unlinks it.
 * - Pull request, push and check events are routed by hint-routing.ts; a hint goes to the running
 *   queues of the repository that the organisation holding it through the delivery's linked
 *   installation owns (owner-lookup.ts, queue-hints.ts), never to another organisation's.
 * - A PR comment carrying a command (hint-routing.ts) is acted on for that same organisation by the
 *   command handler (pr-command-handler.ts), whose outcome is the row's. A process built without a
 *   command handler records `failed: PR commands are not available here` for such a comment.
 * - Outcomes: 'applied', 'hinted <n> queue(s)', 'installation not linked', 'repository not covered
 *   by the installation', 'not acted on', or 'failed: <reason>' (a payload lacking the fields an
 *   event needs, an error, or a hint some queues could not receive). Acting never throws.
 * - Acting is idempotent in effect: installation changes converge, hints carry no state, and a
 *   command's queue update id derives from its comment's id (applied once).
 */
import { z } from 'zod';
import { InstallationNotLinkedError, type GitHubInstallationStore } from '../store/installations';
import type { WebhookDeliveryStore } from '../store/webhook-deliveries';
import type { RepositoryKey } from '../../contract';
import { routeDelivery, type PayloadRepository } from './hint-routing';
import type { GitHubOwnerLookup } from '../store/owner-lookup';
import type { PrCommandHandler } from './pr-command-handler';
import type { HintResult, QueueHinter } from './queue-hints';

export interface DeliveryActionDeps {
  deliveries: Pick<WebhookDeliveryStore, 'markHandled'>;
  installations: Pick<
    GitHubInstallationStore,
    'find' | 'addRepositories' | 'removeRepositories' | 'setSuspended' | 'unlink'
  >;
  owners: GitHubOwnerLookup;
  hinter: Pick<QueueHinter, 'hintRepository'>;
  /** Commands in PR comments; absent, such comments are recorded as failed. */
  commands?: PrCommandHandler;
  onError: (err: unknown, message: string) => void;
}

export interface DeliveryActions {
  /** What acting on the delivery did, as recorded in its outcome. Throws only on errors. */
  act(event: string, payload: unknown): Promise<string>;
  /** Acts and records the outcome on the delivery's row; never throws. */
  handle(deliveryId: string, event: string, payload: unknown): Promise<string>;
}

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

const queues = (n: number) => `${n} queue${n === 1 ? '' : 's'}`;

/** The outcome of a hint: how many queues it reached, a failure if some could not be. */
export function hintOutcome(r: HintResult): string {
  if (r.failed > 0) return `failed: hinted ${r.hinted} of ${queues(r.hinted + r.failed)}`;
  return `hinted ${queues(r.hinted)}${r.truncated ? ' (listing truncated)' : ''}`;
}

export function createDeliveryActions(deps: DeliveryActionDeps): DeliveryActions {
  async function installationRepositories(payload: unknown): Promise<string> {
    const p = InstallationRepositories.safeParse(payload);
    if (!p.success) return 'failed: payload lacks the installation_repositories fields';
    const id = p.data.installation.id;
    if (!(await deps.installations.find(id))) return 'installation not linked';
    if (p.data.action === 'added')
      await deps.installations.addRepositories(id, covered(p.data.repositories_added));
    else await deps.installations.removeRepositories(id, covered(p.data.repositories_removed));
    return 'applied';
  }

  async function installation(payload: unknown): Promise<string> {
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

  /**
   * The organisation holding the repository through the installation, with the spellings its queues
   * may use; or the outcome saying why there is none.
   */
  async function holding(
    installationId: number,
    repository: PayloadRepository,
  ): Promise<{ organisationId: string; spellings: RepositoryKey[] } | string> {
    const holder = await deps.owners.holderOf(installationId, repository);
    if (holder === null)
      return (await deps.installations.find(installationId))
        ? 'repository not covered by the installation'
        : 'installation not linked';
    const named = { ...holder.repository, ...repository };
    return {
      organisationId: holder.organisationId,
      spellings: [
        named,
        holder.repository,
        { host: named.host, owner: named.owner.toLowerCase(), name: named.name.toLowerCase() },
      ],
    };
  }

  async function hint(event: string, payload: unknown): Promise<string> {
    const routing = routeDelivery(event, payload);
    switch (routing.kind) {
      case 'not_routed':
        return 'not acted on';
      case 'invalid':
        return `failed: ${routing.reason}`;
      case 'hint': {
        const held = await holding(routing.installationId, routing.repository);
        if (typeof held === 'string') return held;
        return hintOutcome(await deps.hinter.hintRepository(held, routing.hint));
      }
      case 'command': {
        const held = await holding(routing.installationId, routing.repository);
        if (typeof held === 'string') return held;
        if (!deps.commands) return 'failed: PR commands are not available here';
        return deps.commands.run(
          { ...held, installationId: routing.installationId, repository: routing.repository },
          routing.comment,
        );
      }
    }
  }

  async function act(event: string, payload: unknown): Promise<string> {
    if (event === 'installation_repositories') return installationRepositories(payload);
    if (event === 'installation') return installation(payload);
    return hint(event, payload);
  }

  return {
    act,
    async handle(deliveryId, event, payload) {
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
      return outcome;
    },
  };
}
