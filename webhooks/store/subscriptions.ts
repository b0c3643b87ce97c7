/**
 * Webhook subscriptions of an organisation: create, list, read, update, delete.
 *
 * Invariants:
 * - Every read and write is scoped by organisation id: another organisation's subscription is the
 *   same as no subscription (the API answers 404).
 * - The secret is generated here and returned only by `create`; no other method returns it.
 * - URLs are stored as given; the caller checks them (url-policy.ts) before they get here.
 * - An organisation has at most `maxPerOrganisation` subscriptions (every event fans out to each of
 *   them on the shared worker); `create` counts and inserts under a per-organisation advisory lock in
 *   one transaction, so two creations racing at the limit cannot both pass it.
 */
import type { Pool } from 'pg';
import { inTransaction } from '../../stores/transaction';
import type { WebhookEventType } from '../event-types';
import { generateSecret } from '../signing';

export interface Subscription {
  id: string;
  url: string;
  description: string;
  /** Empty means every event type. */
  eventTypes: WebhookEventType[];
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface SubscriptionInput {
  url: string;
  description: string;
  eventTypes: WebhookEventType[];
  enabled: boolean;
}

export const DEFAULT_MAX_SUBSCRIPTIONS_PER_ORGANISATION = 100;

/** Thrown by `create` when the organisation already has its limit of subscriptions. */
export class SubscriptionLimitError extends Error {
  override readonly name = 'SubscriptionLimitError';
  constructor(readonly limit: number) {
    super(`the organisation already has ${limit} webhook subscriptions`);
  }
}

export interface SubscriptionStore {
  /** Throws SubscriptionLimitError at the organisation's limit. */
  create(
    organisationId: string,
    input: SubscriptionInput,
  ): Promise<{ subscription: Subscription; secret: string }>;
  list(organisationId: string): Promise<Subscription[]>;
  get(organisationId: string, id: string): Promise<Subscription | null>;
  /** Omitted fields are unchanged; null when the organisation has no such subscription. */
  update(organisationId: string, id: string, patch: Partial<SubscriptionInput>): Promise<Subscription | null>;
  remove(organisationId: string, id: string): Promise<boolean>;
}

interface Row {
  id: string;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, url, description, event_types, enabled, created_at, updated_at';

const toSubscription = (r: Row): Subscription => ({
  id: r.id,
  url: r.url,
  description: r.description,
  eventTypes: r.event_types as WebhookEventType[],
  enabled: r.enabled,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function createSubscriptionStore(
  pool: Pool,
  opts: { maxPerOrganisation?: number } = {},
): SubscriptionStore {
  const limit = opts.maxPerOrganisation ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_ORGANISATION;
  return {
    async create(organisationId, input) {
      return inTransaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
          `webhook-subscriptions/${organisationId}`,
        ]);
        const count = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhook_subscriptions WHERE organisation_id = $1',
          [organisationId],
        );
        if ((count.rows[0]?.n ?? 0) >= limit) throw new SubscriptionLimitError(limit);
        const secret = generateSecret();
        const { rows } = await client.query<Row>(
          `INSERT INTO webhook_subscriptions (organisation_id, url, description, event_types, enabled, secret)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
          [organisationId, input.url, input.description, input.eventTypes, input.enabled, secret],
        );
        return { subscription: toSubscription(rows[0]!), secret };
      });
    },

    async list(organisationId) {
      const { rows } = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE organisation_id = $1 ORDER BY created_at, id`,
        [organisationId],
      );
      return rows.map(toSubscription);
    },

    async get(organisationId, id) {
      const { rows } = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE organisation_id = $1 AND id = $2`,
        [organisationId, id],
      );
      return rows[0] ? toSubscription(rows[0]) : null;
    },

    async update(organisationId, id, patch) {
      const { rows } = await pool.query<Row>(
        `UPDATE webhook_subscriptions SET
           url = COALESCE($3, url),
           description = COALESCE($4, description),
           event_types = COALESCE($5, event_types),
           enabled = COALESCE($6, enabled),
           updated_at = now()
         WHERE organisation_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [
          organisationId,
          id,
          patch.url ?? null,
          patch.description ?? null,
          patch.eventTypes ?? null,
          patch.enabled ?? null,
        ],
      );
      return rows[0] ? toSubscription(rows[0]) : null;
    },

    async remove(organisationId, id) {
      const { rowCount } = await pool.query(
        'DELETE FROM webhook_subscriptions WHERE organisation_id = $1 AND id = $2',
        [organisationId, id],
      );
      return (rowCount ?? 0) > 0;
    },
  };
}
