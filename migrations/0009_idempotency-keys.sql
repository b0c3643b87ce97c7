-- Up Migration
-- Idempotency keys of the merge queue's change endpoints (activities/stores/idempotency-keys.ts,
-- api/routes/merge-queue/idempotency.ts): the first answer to a request sent with an `Idempotency-Key`
-- header, replayed to every retry with the same key.
--
-- Invariants:
-- - One row per (organisation, key): keys of different organisations never meet.
-- - A row is inserted `pending` before its request is applied (insert-first), so of two concurrent
--   requests with one key only one applies it; it becomes `done` with the answer (status, content
--   type, body) exactly once.
-- - request_hash is SHA-256 of the endpoint and the request as parsed; the same key with another hash
--   is refused, never applied.
-- - update_id is minted with the row and carried by every attempt of the request, so a retry that
--   reaches Temporal again (after its first process died) is deduplicated there too.
-- - A pending row whose lease ran out belongs to no live request and may be taken over by a retry.
-- - Rows live until expires_at (24 h by default); an expired row counts as absent and is deleted.

CREATE TABLE idempotency_keys (
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  key              text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  request_hash     bytea NOT NULL CHECK (length(request_hash) = 32),
  update_id        text NOT NULL,
  state            text NOT NULL CHECK (state IN ('pending', 'done')),
  lease_until      timestamptz,
  status_code      integer CHECK (status_code BETWEEN 100 AND 599),
  content_type     text,
  body             text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (organisation_id, key),
  CHECK ((state = 'pending') = (lease_until IS NOT NULL)),
  CHECK ((state = 'done') = (status_code IS NOT NULL AND body IS NOT NULL))
);

-- The purge of expired rows.
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);

-- Down Migration
DROP TABLE idempotency_keys;
