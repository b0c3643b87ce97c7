-- Up Migration
-- Test ids become Trunk's (activities/flaky/identity.ts, docs/flaky-tests.md "Test ids"): a UUIDv5 in
-- the RFC 4122 URL namespace over
--   org slug # host/owner/name # file # classname # parent # name # JUNIT_TESTCASE [# variant]
-- hashed once more as `id # variant` when there is a variant. Every stored test case gets the id
-- computed from its own row (its organisation's slug, its repository, its stored fields), which is
-- exactly what ingest computes for that test from now on.
--
-- Only test_cases.id changes: every other table refers to a test by test_cases.pk (results, rollups,
-- fingerprints, PR failures, status and override history, the event outbox), and overrides and
-- tickets are columns of test_cases, so all of them stay attached. Webhook deliveries already recorded
-- keep the bytes they were signed with (old ids); events from now on carry the new ids.
--
-- PostgreSQL has no SHA-1 without an extension (pgcrypto, uuid-ossp), and railyard's role may not
-- create one, so SHA-1 is written here in PL/pgSQL, as session-local functions (pg_temp) that leave
-- nothing behind. A test compares it with Node's SHA-1 and the ids with identity.ts.
--
-- Collisions: Trunk joins fields with '#', so two stored tests whose fields differ only in where a
-- '#' falls get one Trunk id, as they would at Trunk. The first of them (lowest pk) takes the new id;
-- the others keep their old id and history (listed and readable as before; new results go to the
-- first). The migration runs in the migrator's transaction: all rows move, or none.

CREATE FUNCTION pg_temp.railyard_sha1(message bytea) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  mask CONSTANT bigint := 4294967295;
  h0 bigint := 1732584193;   -- 0x67452301
  h1 bigint := 4023233417;   -- 0xEFCDAB89
  h2 bigint := 2562383102;   -- 0x98BADCFE
  h3 bigint := 271733878;    -- 0x10325476
  h4 bigint := 3285377520;   -- 0xC3D2E1F0
  padded bytea;
  w bigint[];
  a bigint; b bigint; c bigint; d bigint; e bigint; f bigint; k bigint; t bigint; x bigint;
  chunk integer; i integer; o integer;
BEGIN
  padded := message || '\x80'::bytea
    || decode(repeat('00', ((55 - length(message)) % 64 + 64) % 64), 'hex')
    || int8send(length(message)::bigint * 8);
  FOR chunk IN 0 .. length(padded) / 64 - 1 LOOP
    w := '{}';
    FOR i IN 0 .. 15 LOOP
      o := chunk * 64 + i * 4;
      w[i] := (get_byte(padded, o)::bigint << 24) | (get_byte(padded, o + 1) << 16)
        | (get_byte(padded, o + 2) << 8) | get_byte(padded, o + 3);
    END LOOP;
    FOR i IN 16 .. 79 LOOP
      x := w[i - 3] # w[i - 8] # w[i - 14] # w[i - 16];
      w[i] := ((x << 1) | (x >> 31)) & mask;
    END LOOP;
    a := h0; b := h1; c := h2; d := h3; e := h4;
    FOR i IN 0 .. 79 LOOP
      IF i < 20 THEN
        f := (b & c) | ((b # mask) & d); k := 1518500249;    -- 0x5A827999
      ELSIF i < 40 THEN
        f := b # c # d; k := 1859775393;                     -- 0x6ED9EBA1
      ELSIF i < 60 THEN
        f := (b & c) | (b & d) | (c & d); k := 2400959708;   -- 0x8F1BBCDC
      ELSE
        f := b # c # d; k := 3395469782;                     -- 0xCA62C1D6
      END IF;
      t := ((((a << 5) | (a >> 27)) & mask) + f + e + k + w[i]) & mask;
      e := d; d := c; c := ((b << 30) | (b >> 2)) & mask; b := a; a := t;
    END LOOP;
    h0 := (h0 + a) & mask; h1 := (h1 + b) & mask; h2 := (h2 + c) & mask;
    h3 := (h3 + d) & mask; h4 := (h4 + e) & mask;
  END LOOP;
  RETURN substring(int8send(h0) FROM 5) || substring(int8send(h1) FROM 5) || substring(int8send(h2) FROM 5)
    || substring(int8send(h3) FROM 5) || substring(int8send(h4) FROM 5);
END
$$;

-- UUIDv5 (RFC 9562 §5.5) of a name in the URL namespace.
CREATE FUNCTION pg_temp.railyard_uuid5_url(name text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  digest bytea := pg_temp.railyard_sha1('\x6ba7b8119dad11d180b400c04fd430c8'::bytea || convert_to(name, 'UTF8'));
BEGIN
  digest := set_byte(digest, 6, (get_byte(digest, 6) & 15) | 80);
  digest := set_byte(digest, 8, (get_byte(digest, 8) & 63) | 128);
  RETURN encode(substring(digest FROM 1 FOR 16), 'hex')::uuid;
END
$$;

-- identity.ts testCaseId for a stored test (no id of its own: railyard never stored one before 0013).
CREATE FUNCTION pg_temp.railyard_trunk_test_id(
  slug text, host text, owner text, repo text, file text, classname text, parent text, name text, variant text
) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  first uuid := pg_temp.railyard_uuid5_url(concat_ws('#', slug, host || '/' || owner || '/' || repo,
    coalesce(file, ''), coalesce(classname, ''), coalesce(parent, ''), name, 'JUNIT_TESTCASE',
    nullif(variant, '')));
BEGIN
  IF coalesce(variant, '') = '' THEN
    RETURN first;
  END IF;
  RETURN pg_temp.railyard_uuid5_url(first::text || '#' || variant);
END
$$;

CREATE TEMPORARY TABLE railyard_trunk_test_ids ON COMMIT DROP AS
SELECT tc.pk, tc.organisation_id,
       pg_temp.railyard_trunk_test_id(o.slug, r.host, r.owner, r.name, tc.file, tc.classname, tc.parent,
                                      tc.name, tc.variant) AS new_id
  FROM test_cases tc
  JOIN repositories r ON r.pk = tc.repository_pk
  JOIN organisations o ON o.id = tc.organisation_id;

-- Of the rows that get one id, the first keeps it; the others keep their old id (see above).
DELETE FROM railyard_trunk_test_ids m
 WHERE EXISTS (SELECT 1 FROM railyard_trunk_test_ids f
                WHERE f.organisation_id = m.organisation_id AND f.new_id = m.new_id AND f.pk < m.pk);

-- Two passes so that no row ever holds an id another row still holds: first every moving row gets a
-- random placeholder id, then its Trunk id.
UPDATE test_cases tc SET id = gen_random_uuid()
  FROM railyard_trunk_test_ids m WHERE tc.pk = m.pk AND tc.id <> m.new_id;
UPDATE test_cases tc SET id = m.new_id
  FROM railyard_trunk_test_ids m WHERE tc.pk = m.pk AND tc.id <> m.new_id;

COMMENT ON COLUMN test_cases.id IS
  'Trunk''s test id (activities/flaky/identity.ts): UUIDv5 (URL namespace) of slug#host/owner/name#file#classname#parent#name#JUNIT_TESTCASE[#variant], rehashed as id#variant with a variant.';

-- Down Migration
-- The old ids (railyard's own scheme before 0013) are not kept, so this migration cannot be undone.
DO $$ BEGIN RAISE EXCEPTION 'migration 0013 (Trunk test ids) cannot be undone; restore a backup taken before it.'; END $$;
