-- Up Migration
-- GitHub webhook deliveries received at POST /v1/github/webhooks (docs/github.md "Webhooks"). Each
-- delivery is stored once, keyed by GitHub's X-GitHub-Delivery id, before it is answered and acted on.
--
-- Invariants:
-- - A delivery id is stored at most once: GitHub's redelivery of the same id changes nothing.
-- - Only deliveries whose X-Hub-Signature-256 verified are stored.
-- - The whole payload is kept (bounded by the API's body limit) so that later consumers (merge-queue
--   signalling, reconciliation) can read what GitHub said without asking again.
-- - handled_at is null until the receiver has acted on the delivery (or decided not to); a row left
--   null by a crash between storing and acting is for reconciliation to pick up.
-- - installation_id carries no foreign key: deliveries of unlinked installations are stored too.

CREATE TABLE github_webhook_deliveries (
  delivery_id      text PRIMARY KEY CHECK (length(delivery_id) BETWEEN 1 AND 100),
  event            text NOT NULL CHECK (length(event) BETWEEN 1 AND 100),
  action           text,
  installation_id  bigint,
  -- owner/name of payload.repository, when the event names one.
  repository       text,
  received_at      timestamptz NOT NULL DEFAULT now(),
  payload          jsonb NOT NULL,
  handled_at       timestamptz,
  -- What acting on it did: 'applied', 'installation not linked', 'not acted on', or 'failed: <reason>'.
  outcome          text
);

CREATE INDEX github_webhook_deliveries_received_idx ON github_webhook_deliveries (received_at);
CREATE INDEX github_webhook_deliveries_unhandled_idx ON github_webhook_deliveries (received_at)
  WHERE handled_at IS NULL;

-- Down Migration
DROP TABLE github_webhook_deliveries;
