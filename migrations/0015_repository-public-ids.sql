-- Up Migration
-- Public repository ids (README "Fork pull requests"): every owned repository gets a random id that
-- Trunk's clients send as `x-trunk-public-repo-id` from fork PRs, which have no API key. The id
-- authorises only the upload calls of that one repository (api/plugins/fork-auth.ts); it is shown by
-- `GET /v1/repositories` and `npm run repos -- list`.
--
-- Invariants:
-- - The id lives on the ownership row, so a repository nobody owns has none, and removing the claim
--   (or unlinking the installation that conferred it) makes the id useless at once.
-- - Ids are unique and drawn from the server's strong random source (gen_random_uuid: 122 random bits),
--   so they cannot be guessed or enumerated.
-- - A repository that moves to another organisation (an operator's transfer, an installation taking it
--   over) gets a new id: the old owner's CI configuration never uploads into the new owner's data.

ALTER TABLE repository_owners ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid();

CREATE UNIQUE INDEX repository_owners_public_id_idx ON repository_owners (public_id);

CREATE FUNCTION repository_owners_renew_public_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.organisation_id IS DISTINCT FROM OLD.organisation_id THEN
    NEW.public_id := gen_random_uuid();
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER repository_owners_renew_public_id
  BEFORE UPDATE OF organisation_id ON repository_owners
  FOR EACH ROW EXECUTE FUNCTION repository_owners_renew_public_id();

-- Down Migration
DROP TRIGGER repository_owners_renew_public_id ON repository_owners;
DROP FUNCTION repository_owners_renew_public_id();
ALTER TABLE repository_owners DROP COLUMN public_id;
