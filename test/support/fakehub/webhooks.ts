/**
 * fakehub's webhook deliveries: every HubEvent of the state becomes a delivery of the GitHub App's
 * webhook, built (webhook-payloads.ts), checked against GitHub's webhook description, signed, and POSTed
 * to the target URL the test sets; each attempt is recorded for tests and for `GET /app/hook/deliveries`.
 *
 * Invariants:
 * - Deliveries go out one at a time in the order the events happened (unless the hold knob reorders
 *   them); `idle()` resolves once every delivery that is not held has been attempted.
 * - The body is serialised once; X-Hub-Signature-256 is `sha256=` + HMAC-SHA256 of exactly those bytes
 *   under the App's webhook secret, and a redelivery or duplicate sends the same bytes with the same
 *   X-GitHub-Delivery guid (a new delivery id, as GitHub lists them). The secret is never recorded.
 * - Every payload is validated before it is sent; a mismatch is a violation (assertNoViolations).
 * - Outcomes: `delivered` (target answered 2xx), `failed` (non-2xx, unreachable, timed out after 10 s),
 *   `dropped` (the drop knob: recorded as GitHub records a delivery that never reached you, status
 *   code 0), `unsent` (no target set: recorded, not sent, not listed by the API), `held` (hold knob).
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { FakeApp } from './app-auth';
import { createWebhookValidator } from './contract/webhook-validator';
import type { HubEvent } from './events';
import { buildPayload, type WebhookPayloadContext } from './webhook-payloads';

export type DeliveryOutcome = 'pending' | 'held' | 'unsent' | 'delivered' | 'failed' | 'dropped';

export interface WebhookDelivery {
  /** Delivery id (one per attempt, as `GET /app/hook/deliveries` lists them). */
  id: number;
  /** X-GitHub-Delivery: shared by the first attempt, its redeliveries and duplicates. */
  guid: string;
  event: string;
  action: string | null;
  installationId: number | null;
  repositoryId: number | null;
  /** Sent again through `POST /app/hook/deliveries/{id}/attempts`. */
  redelivery: boolean;
  /** A second copy sent by the duplicate knob. */
  duplicate: boolean;
  outcome: DeliveryOutcome;
  /** The target's status code; 0 when unreachable, timed out or dropped; null until attempted. */
  statusCode: number | null;
  /** GitHub's text for the outcome: "OK", "Invalid HTTP Response: 503", "timed out", … */
  status: string;
  deliveredAt: Date | null;
  durationMs: number;
  /** The headers sent (lower-case names); no secret is among them. */
  headers: Record<string, string>;
  /** The exact body sent. */
  body: string;
  payload: Record<string, unknown>;
}

export interface FakeHubWebhooks {
  /** Every delivery taken from the queue so far (attempted, held or unsent), oldest first. */
  readonly deliveries: readonly WebhookDelivery[];
  /** X-GitHub-Hook-ID of the App's webhook. */
  readonly hookId: number;
  /** Where deliveries are POSTed; null (the default): recorded as `unsent`, not sent. */
  setTarget(url: string | null): void;
  /** Resolves once every queued delivery that is not held has been attempted. */
  idle(): Promise<void>;
  /**
   * Drops deliveries (recorded as failed, status code 0, so redelivery finds them): a number drops the
   * next n attempts; a predicate drops every attempt it returns true for until `drop(0)`.
   */
  drop(which: number | ((delivery: WebhookDelivery) => boolean)): void;
  /** The next n deliveries are sent twice (same guid and body). */
  duplicate(count: number): void;
  /** Deliveries wait (outcome `held`) until release(). */
  hold(): void;
  /** Sends the held deliveries, in order or reversed; then they go out before anything queued later. */
  release(options?: { reverse?: boolean }): void;
  /** Every delivery waits `ms` before it is sent (0: no delay). */
  delay(ms: number): void;
  /**
   * The payload of the next event goes through `mutate` before it is checked, signed and sent (tests of
   * the contract check and of receivers facing unexpected payloads).
   */
  corruptNext(mutate: (payload: Record<string, unknown>) => unknown): void;
}

/** What the REST side needs: the listing and redelivery of `/app/hook/deliveries`. */
export interface WebhookLog {
  /** Attempted deliveries (delivered, failed, dropped), newest first. */
  attempted(): WebhookDelivery[];
  /** Queues a redelivery of delivery `id`; null when no attempted delivery has that id. */
  redeliver(id: number): WebhookDelivery | null;
}

export interface WebhookDispatcher {
  readonly api: FakeHubWebhooks;
  readonly log: WebhookLog;
  /** Queues the delivery of one event (called by the state for every change). */
  enqueue(event: HubEvent): void;
  /** Stops sending: in-flight requests are aborted, the queue is discarded. */
  close(): Promise<void>;
}

const TIMEOUT_MS = 10_000;
const USER_AGENT = 'GitHub-Hookshot/0fa4e00';

interface Job {
  ready: Promise<WebhookDelivery | null>;
  recorded: boolean;
  released: boolean;
}

export function createWebhookDispatcher(deps: {
  context: () => WebhookPayloadContext;
  app: FakeApp;
  onViolation(text: string): void;
}): WebhookDispatcher {
  const validator = createWebhookValidator();
  const deliveries: WebhookDelivery[] = [];
  const hookId = deps.app.id * 10 + 1;
  const queue: Job[] = [];
  const held: Job[] = [];
  const idleWaiters: (() => void)[] = [];
  const aborts = new Set<AbortController>();
  /** Wakers of the delay knob's sleeps, so close() does not wait them out. */
  const sleepers = new Set<() => void>();
  let nextId = 1;
  let target: string | null = null;
  let running = false;
  let closed = false;
  let holding = false;
  let dropCount = 0;
  let dropWhen: ((delivery: WebhookDelivery) => boolean) | null = null;
  let duplicates = 0;
  let delayMs = 0;
  let corrupt: ((payload: Record<string, unknown>) => unknown) | null = null;

  const headersFor = (event: string, guid: string, body: string): Record<string, string> => ({
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-github-event': event,
    'x-github-delivery': guid,
    'x-github-hook-id': String(hookId),
    'x-github-hook-installation-target-id': String(deps.app.id),
    'x-github-hook-installation-target-type': 'integration',
    'x-hub-signature': `sha1=${createHmac('sha1', deps.app.webhookSecret).update(body).digest('hex')}`,
    'x-hub-signature-256': `sha256=${createHmac('sha256', deps.app.webhookSecret).update(body).digest('hex')}`,
  });

  const build = async (
    event: HubEvent,
    mutate: ((payload: Record<string, unknown>) => unknown) | null,
  ): Promise<WebhookDelivery | null> => {
    try {
      const built = await buildPayload(deps.context(), event);
      const payload = (mutate ? (mutate(built.payload) ?? built.payload) : built.payload) as Record<
        string,
        unknown
      >;
      const body = JSON.stringify(payload);
      const guid = randomUUID();
      const headers = headersFor(built.event, guid, body);
      for (const violation of validator.validate(built.event, built.action, headers, body))
        deps.onViolation(violation);
      return {
        id: 0,
        guid,
        event: built.event,
        action: built.action,
        installationId: built.installationId,
        repositoryId: built.repositoryId,
        redelivery: false,
        duplicate: false,
        outcome: 'pending',
        statusCode: null,
        status: '',
        deliveredAt: null,
        durationMs: 0,
        headers,
        body,
        payload,
      };
    } catch (error) {
      if (!closed)
        deps.onViolation(
          `fakehub could not build the ${event.kind} webhook: ${error instanceof Error ? error.message : String(error)}`,
        );
      return null;
    }
  };

  const copyOf = (delivery: WebhookDelivery, flags: { redelivery: boolean; duplicate: boolean }) => ({
    ...delivery,
    ...flags,
    id: nextId++,
    outcome: 'pending' as const,
    statusCode: null,
    status: '',
    deliveredAt: null,
    durationMs: 0,
  });

  const send = async (delivery: WebhookDelivery, url: string): Promise<void> => {
    const abort = new AbortController();
    aborts.add(abort);
    const timer = setTimeout(() => abort.abort(new Error('timed out')), TIMEOUT_MS);
    const started = performance.now();
    delivery.deliveredAt = new Date();
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
        signal: abort.signal,
      });
      await response.arrayBuffer().catch(() => undefined);
      delivery.statusCode = response.status;
      const ok = response.status >= 200 && response.status < 300;
      delivery.outcome = ok ? 'delivered' : 'failed';
      delivery.status = ok ? 'OK' : `Invalid HTTP Response: ${response.status}`;
    } catch {
      delivery.statusCode = 0;
      delivery.outcome = 'failed';
      delivery.status = abort.signal.aborted ? 'timed out' : 'failed to connect to host';
    } finally {
      clearTimeout(timer);
      aborts.delete(abort);
      delivery.durationMs = performance.now() - started;
    }
  };

  const attempt = async (delivery: WebhookDelivery): Promise<void> => {
    const url = target;
    if (url === null) {
      delivery.outcome = 'unsent';
      delivery.status = 'no target URL set';
      return;
    }
    if (delayMs > 0)
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          sleepers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, delayMs);
        sleepers.add(wake);
      });
    if (closed) return;
    const dropped = dropCount > 0 ? (dropCount--, true) : (dropWhen?.(delivery) ?? false);
    if (dropped) {
      delivery.deliveredAt = new Date();
      delivery.statusCode = 0;
      delivery.outcome = 'dropped';
      delivery.status = 'timed out';
      return;
    }
    await send(delivery, url);
    if (duplicates > 0 && !closed) {
      duplicates -= 1;
      const copy = copyOf(delivery, { redelivery: delivery.redelivery, duplicate: true });
      deliveries.push(copy);
      await send(copy, url);
    }
  };

  const settle = () => {
    if (running || queue.length > 0) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  };

  const pump = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      while (queue.length > 0 && !closed) {
        const job = queue.shift()!;
        const delivery = await job.ready;
        if (!delivery) continue;
        if (!job.recorded) {
          job.recorded = true;
          if (delivery.id === 0) delivery.id = nextId++;
          deliveries.push(delivery);
        }
        if (holding && !job.released) {
          delivery.outcome = 'held';
          held.push(job);
          continue;
        }
        await attempt(delivery);
      }
    } finally {
      running = false;
      if (closed) queue.length = 0;
      settle();
    }
  };

  /** Queues jobs (at the back, or all at the front in the given order), then starts the sender. */
  const push = (jobs: Job[], front = false) => {
    if (closed) return;
    if (front) queue.unshift(...jobs);
    else queue.push(...jobs);
    void pump();
  };

  const api: FakeHubWebhooks = {
    deliveries,
    hookId,
    setTarget(url) {
      target = url;
    },
    idle() {
      if (!running && queue.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    drop(which) {
      if (typeof which === 'number') {
        dropCount = which;
        if (which === 0) dropWhen = null;
      } else dropWhen = which;
    },
    duplicate(count) {
      duplicates = count;
    },
    hold() {
      holding = true;
    },
    release(options = {}) {
      holding = false;
      const jobs = held.splice(0);
      if (options.reverse) jobs.reverse();
      for (const job of jobs) job.released = true;
      push(jobs, true);
    },
    delay(ms) {
      delayMs = Math.max(0, ms);
    },
    corruptNext(mutate) {
      corrupt = mutate;
    },
  };

  const log: WebhookLog = {
    attempted: () =>
      deliveries
        .filter((d) => d.outcome === 'delivered' || d.outcome === 'failed' || d.outcome === 'dropped')
        .sort((a, b) => b.id - a.id),
    redeliver(id) {
      const original = log.attempted().find((d) => d.id === id);
      if (!original) return null;
      const copy = copyOf(original, { redelivery: true, duplicate: false });
      push([{ ready: Promise.resolve(copy), recorded: false, released: false }]);
      return copy;
    },
  };

  return {
    api,
    log,
    enqueue(event) {
      const mutate = corrupt;
      corrupt = null;
      push([{ ready: build(event, mutate), recorded: false, released: false }]);
    },
    async close() {
      closed = true;
      queue.length = 0;
      for (const abort of aborts) abort.abort(new Error('fakehub closed'));
      for (const wake of [...sleepers]) wake();
      if (running) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}
