/**
 * createGitHubReconciliation(deps): the four steps of the periodic GitHub reconciliation. The worker
 * registers them as activities (activities/github-reconciliation.ts) that
 * workflows/github/reconciliation-workflow.ts runs on the Schedule of
 * worker/github-reconciliation-schedule.ts. Webhooks are hints; these steps make up for the ones that
 * never arrived or were never acted on. Each is bounded per run and idempotent, so a retried or
 * overlapping run only repeats work.
 *
 * (a) `redeliverFailed`: reads the app's delivery log newest first back to the last
 *     run's high-water mark (migration 0012; less `overlapMs`; `firstLookbackMs` on the first run), at
 *     most `deliveryPagesPerRun` pages, and asks GitHub to redeliver each delivery (guid) none of whose
 *     listed attempts succeeded (2xx) and that is not stored here, oldest first. The mark advances only
 *     over what was read: a listing stopped by the page bound resumes from its cursor next run; a run
 *     with more redeliveries to ask than `redeliveriesPerRun` asks for the oldest and keeps the mark, so
 *     the next run reads the same window again (the redelivered ones are stored by then). A resume
 *     cursor GitHub refuses (400/422) is dropped and the listing starts again from the newest.
 * (b) `actOnUnhandled`: stored deliveries never marked handled and received more than
 *     `unhandledAfterMs` ago (the api stopped between storing and acting) are acted on as the receiver
 *     would (delivery-actions.ts), oldest first, at most `unhandledPerRun`.
 * (c) `reconcileQueues`: `{kind:'reconcile'}` to every running queue workflow of the app's host
 *     whose organisation holds the repository through a linked installation (queue-hints.ts).
 * (d) `prune`: deletes stored deliveries received more than `retentionMs` (14 days)
 *     ago, in batches, at most `prunePerRun`.
 *
 * No token or JWT reaches a log, a result or an error (hook-deliveries-api.ts wraps every failure).
 */
import { createPrCommandHandler } from './pr-command-handler';
import { createProjectedQueues } from '../store/projected-queue';
import type { GitHubClients } from '../app/rest-client';
import type { Client } from '@temporalio/client';
import type { Pool } from '../../stores/db';
import { createGitHubInstallationStore } from '../store/installations';
import { createWebhookDeliveryStore, type DeliveryListing } from '../store/webhook-deliveries';
import { GitHubAuthError, type GitHubAppAuth } from '../app/app-auth';
import type { GitHubAppSettings } from '../app/config';
import { createDeliveryActions } from './delivery-actions';
import {
  createHookDeliveriesApi,
  type HookDeliveriesApi,
  type HookDelivery,
  type HookDeliveryPage,
} from '../app/hook-deliveries-api';
import { createGitHubOwnerLookup } from '../store/owner-lookup';
import { createQueueHinter, type HintResult, type QueueHinter } from './queue-hints';
import { createQueueClient, createTemporalCalls } from '../../queue-client';

/** Deadline of each Temporal call the reconciliation makes. */
const CALL_TIMEOUT_MS = 10_000;

export interface ReconciliationLimits {
  deliveryPagesPerRun: number;
  deliveriesPerPage: number;
  redeliveriesPerRun: number;
  firstLookbackMs: number;
  overlapMs: number;
  unhandledAfterMs: number;
  unhandledPerRun: number;
  retentionMs: number;
  prunePerRun: number;
  pruneBatch: number;
}

export const DEFAULT_RECONCILIATION_LIMITS: ReconciliationLimits = {
  deliveryPagesPerRun: 10,
  deliveriesPerPage: 100,
  redeliveriesPerRun: 100,
  firstLookbackMs: 60 * 60_000,
  overlapMs: 2 * 60_000,
  unhandledAfterMs: 60_000,
  unhandledPerRun: 200,
  retentionMs: 14 * 24 * 60 * 60_000,
  prunePerRun: 10_000,
  pruneBatch: 1_000,
};

export interface GitHubReconciliationDeps {
  pool: Pool;
  client: Client;
  namespace: string;
  settings: Pick<GitHubAppSettings, 'appId' | 'apiUrl' | 'host'>;
  auth: Pick<GitHubAppAuth, 'appAuthorization'>;
  limits?: Partial<ReconciliationLimits>;
  now?: () => Date;
  /** Told of each failure a step survives (a redelivery GitHub refused, a delivery not acted on). */
  onError: (err: unknown, message: string) => void;
  /** Tests: a delivery-log client or a hinter of their own. */
  deliveryLog?: HookDeliveriesApi;
  hinter?: QueueHinter;
  /** The installations' REST clients: with them, PR commands left unhandled are acted on too. */
  clients?: GitHubClients;
}

export interface RedeliverySummary {
  /** Delivery attempts read from GitHub's log in this run. */
  listed: number;
  /** Attempts GitHub listed that did not parse (skipped). */
  skipped: number;
  /** Deliveries whose listed attempts all failed and that are not stored here. */
  missing: number;
  redelivered: number;
  redeliveryFailed: number;
  /** True when the listing reached the previous high-water mark (or GitHub's oldest delivery). */
  complete: boolean;
}

export interface UnhandledSummary {
  acted: number;
  failed: number;
}

export interface PruneSummary {
  deleted: number;
}

const succeeded = (d: HookDelivery) => d.statusCode >= 200 && d.statusCode < 300;
const latest = (a: Date | null, b: Date | null) => (a === null ? b : b === null || a > b ? a : b);

export function createGitHubReconciliation(deps: GitHubReconciliationDeps) {
  const limits = { ...DEFAULT_RECONCILIATION_LIMITS, ...deps.limits };
  const now = deps.now ?? (() => new Date());
  const onError = deps.onError;
  const store = createWebhookDeliveryStore(deps.pool);
  const owners = createGitHubOwnerLookup(deps.pool, deps.settings.host);
  const queues = createQueueClient(
    createTemporalCalls(deps.client, { namespace: deps.namespace, callTimeoutMs: CALL_TIMEOUT_MS }),
  );
  const hinter = deps.hinter ?? createQueueHinter({ queues, onError });
  const actions = createDeliveryActions({
    deliveries: store,
    installations: createGitHubInstallationStore(deps.pool),
    owners,
    hinter,
    onError,
    // The activity has minutes, not the API's patience: wait less for an admission.
    ...(deps.clients
      ? {
          commands: createPrCommandHandler({
            queues,
            projected: createProjectedQueues(deps.pool),
            clients: deps.clients,
            admissionTimeoutMs: 5_000,
            onError,
          }),
        }
      : {}),
  });
  let deliveryLog: Promise<HookDeliveriesApi> | undefined;
  const logOf = () =>
    (deliveryLog ??= deps.deliveryLog
      ? Promise.resolve(deps.deliveryLog)
      : createHookDeliveriesApi(deps.settings, deps.auth, { perPage: limits.deliveriesPerPage }).catch(
          (err: unknown) => {
            deliveryLog = undefined;
            throw err;
          },
        ));

  async function firstPage(api: HookDeliveriesApi, resume: DeliveryListing['resume']) {
    if (resume === null) return { page: await api.page(null), resumed: false };
    try {
      return { page: await api.page(resume.cursor), resumed: true };
    } catch (err) {
      // A cursor GitHub no longer accepts: start again from the newest delivery.
      if (err instanceof GitHubAuthError && (err.status === 400 || err.status === 422))
        return { page: await api.page(null), resumed: false };
      throw err;
    }
  }

  return {
    async redeliverFailed(): Promise<RedeliverySummary> {
      const api = await logOf();
      const appId = deps.settings.appId;
      const state = await store.listing(appId);
      const started = now();
      const floor = new Date(
        state ? state.listedThrough.getTime() - limits.overlapMs : started.getTime() - limits.firstLookbackMs,
      );
      const summary: RedeliverySummary = {
        listed: 0,
        skipped: 0,
        missing: 0,
        redelivered: 0,
        redeliveryFailed: 0,
        complete: false,
      };
      const first = await firstPage(api, state?.resume ?? null);
      let newest = first.resumed ? (state?.resume?.through ?? null) : null;
      const ok = new Set<string>();
      const failed = new Map<string, HookDelivery>();
      let page: HookDeliveryPage = first.page;
      let cursor: string | null = null;
      for (let pages = 1; ; pages++) {
        summary.skipped += page.skipped;
        let reachedFloor = false;
        for (const item of page.items) {
          if (item.deliveredAt < floor) {
            reachedFloor = true;
            continue;
          }
          summary.listed++;
          newest = latest(newest, item.deliveredAt);
          if (succeeded(item)) ok.add(item.guid);
          else {
            const seen = failed.get(item.guid);
            // Keep the oldest failed attempt: redeliveries go oldest first.
            if (!seen || item.deliveredAt < seen.deliveredAt) failed.set(item.guid, item);
          }
        }
        cursor = page.next;
        if (reachedFloor || cursor === null) {
          summary.complete = true;
          break;
        }
        if (pages >= limits.deliveryPagesPerRun) break;
        page = await api.page(cursor);
      }

      const candidates = [...failed.values()].filter((d) => !ok.has(d.guid));
      const stored = await store.storedIds(candidates.map((d) => d.guid));
      const missing = candidates
        .filter((d) => !stored.has(d.guid))
        .sort((a, b) => a.deliveredAt.getTime() - b.deliveredAt.getTime());
      summary.missing = missing.length;
      for (const d of missing.slice(0, limits.redeliveriesPerRun)) {
        try {
          await api.redeliver(d.id);
          summary.redelivered++;
        } catch (err) {
          summary.redeliveryFailed++;
          onError(err, `could not redeliver GitHub webhook delivery ${d.guid} (${d.event})`);
        }
      }

      if (missing.length > limits.redeliveriesPerRun) return summary;
      const listedThrough = state?.listedThrough ?? new Date(floor.getTime());
      await store.saveListing(
        appId,
        summary.complete
          ? { listedThrough: latest(listedThrough, newest)!, resume: null }
          : { listedThrough, resume: { cursor: cursor!, through: newest ?? listedThrough } },
      );
      return summary;
    },

    async actOnUnhandled(): Promise<UnhandledSummary> {
      const before = new Date(now().getTime() - limits.unhandledAfterMs);
      const rows = await store.unhandled(before, limits.unhandledPerRun);
      const summary: UnhandledSummary = { acted: 0, failed: 0 };
      for (const row of rows) {
        const outcome = await actions.handle(row.deliveryId, row.event, row.payload);
        if (outcome.startsWith('failed')) summary.failed++;
        else summary.acted++;
      }
      return summary;
    },

    async reconcileQueues(): Promise<HintResult> {
      return hinter.reconcileHost(deps.settings.host, (queues) => owners.holdsQueues(queues));
    },

    async prune(): Promise<PruneSummary> {
      const before = new Date(now().getTime() - limits.retentionMs);
      let deleted = 0;
      while (deleted < limits.prunePerRun) {
        const n = await store.prune(before, Math.min(limits.pruneBatch, limits.prunePerRun - deleted));
        deleted += n;
        if (n < limits.pruneBatch) break;
      }
      return { deleted };
    },
  };
}

export type GitHubReconciliation = ReturnType<typeof createGitHubReconciliation>;
