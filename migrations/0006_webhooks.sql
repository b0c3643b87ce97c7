-- Up Migration
-- Webhooks (activities/webhooks): an organisation's subscriptions, one delivery per (subscription,
-- event), and every attempt of every delivery.
--
-- Invariants:
-- - A delivery's id is the `svix-id` header: derived from (subscription, event key), so the same event
--   recorded twice is one delivery (UNIQUE (subscription_id, event_key)) and every retry carries the
--   same id, which is what lets a receiver drop duplicates.
-- - payload holds the exact bytes that are signed and sent; they never change after the insert.
-- - A delivery leaves `pending` once: `succeeded` on a 2xx answer, `failed` when its retries ran out
--   or its URL was refused, `cancelled` when its subscription was disabled before it went out.
-- - The signing secret is stored as issued (HMAC needs it); the API shows it once, at creation.

CREATE TABLE webhook_subscriptions (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  url              text NOT NULL,
  description      text NOT NULL DEFAULT '',
  -- Empty means every event type.
  event_types      text[] NOT NULL DEFAULT '{}',
  enabled          boolean NOT NULL DEFAULT true,
  secret           text NOT NULL CHECK (secret LIKE 'whsec\_%'),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX webhook_subscriptions_organisation_idx ON webhook_subscriptions (organisation_id, created_at);

CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY,
  subscription_id  uuid NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  event_key        text NOT NULL,
  event_type       text NOT NULL,
  payload          text NOT NULL,
  status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
  attempts         integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz,
  UNIQUE (subscription_id, event_key)
);

-- A subscription's deliveries, newest first (the API's keyset pages).
CREATE INDEX webhook_deliveries_subscription_idx
  ON webhook_deliveries (subscription_id, created_at DESC, id DESC);

CREATE TABLE webhook_attempts (
  delivery_id    text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt        integer NOT NULL CHECK (attempt >= 1),
  started_at     timestamptz NOT NULL,
  duration_ms    integer NOT NULL,
  -- NULL when no HTTP answer came back (refused URL, connection error, timeout).
  status_code    integer,
  error          text,
  -- The first KiB of the answer, for the operator reading why a receiver refused.
  response_body  text,
  PRIMARY KEY (delivery_id, attempt)
);

-- Down Migration
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_subscriptions;
