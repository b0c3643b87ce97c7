-- Database roles for a compose deployment: one login role per service, each owning only its own
-- databases, neither a superuser. Run by the `postgresql-roles` job on every `docker compose up`, so it
-- is idempotent and also applies a changed password.
--
-- psql variables (all required):
--   railyard_role, railyard_db, railyard_password    railyard's role and its database
--   temporal_role, temporal_db, temporal_password    Temporal's role, its database and
--                                                    <temporal_db>_visibility
-- and optionally railyard_connection_limit, temporal_connection_limit: each role's share of
-- max_connections (docker-compose.yml, "Connection budget"), so that neither service's pools can take
-- the connections the other one needs; -1 (no limit) when not given.
--
-- Invariants: every database is owned by its service's role and no one else may connect to it (CONNECT
-- is revoked from PUBLIC); the roles cannot create databases or roles. Temporal's visibility schema runs
-- CREATE EXTENSION btree_gin, which PostgreSQL 13+ lets a database owner do (a trusted extension).
\set ON_ERROR_STOP on
\set temporal_visibility_db :temporal_db '_visibility'
\if :{?railyard_connection_limit}
\else
  \set railyard_connection_limit -1
\endif
\if :{?temporal_connection_limit}
\else
  \set temporal_connection_limit -1
\endif

-- Passwords end up in railyard's DATABASE_URL: refuse what would need URL-escaping or is easy to guess.
SELECT NOT (:'railyard_password' ~ '^[A-Za-z0-9._~-]{16,}$' AND :'temporal_password' ~ '^[A-Za-z0-9._~-]{16,}$')
  AS weak_password,
  :'railyard_password' = :'temporal_password' AS shared_password,
  :'railyard_role' = :'temporal_role' AS shared_role,
  NOT (:'railyard_connection_limit' ~ '^(-1|[0-9]{1,5})$' AND :'temporal_connection_limit' ~ '^(-1|[0-9]{1,5})$')
  AS bad_limit
\gset
\if :weak_password
  DO $$ BEGIN RAISE EXCEPTION 'RAILYARD_DB_PASSWORD and TEMPORAL_DB_PASSWORD must be 16 or more characters of A-Z a-z 0-9 . _ ~ - (openssl rand -hex 24 makes one).'; END $$;
\endif
\if :shared_password
  DO $$ BEGIN RAISE EXCEPTION 'RAILYARD_DB_PASSWORD and TEMPORAL_DB_PASSWORD must differ.'; END $$;
\endif
\if :shared_role
  DO $$ BEGIN RAISE EXCEPTION 'railyard and Temporal need separate database roles.'; END $$;
\endif
\if :bad_limit
  DO $$ BEGIN RAISE EXCEPTION 'railyard_connection_limit and temporal_connection_limit must be -1 or a number of connections.'; END $$;
\endif

-- Roles: created once, their attributes and passwords (re)applied every time.
SELECT format('CREATE ROLE %I', r) FROM unnest(ARRAY[:'railyard_role', :'temporal_role']) AS r
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r)
\gexec
ALTER ROLE :"railyard_role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  PASSWORD :'railyard_password';
ALTER ROLE :"temporal_role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  PASSWORD :'temporal_password';
ALTER ROLE :"railyard_role" CONNECTION LIMIT :railyard_connection_limit;
ALTER ROLE :"temporal_role" CONNECTION LIMIT :temporal_connection_limit;

-- Databases: CREATE DATABASE cannot run inside a DO block or transaction, hence \gexec.
SELECT format('CREATE DATABASE %I OWNER %I', d.name, d.owner)
  FROM (VALUES (:'railyard_db', :'railyard_role'),
               (:'temporal_db', :'temporal_role'),
               (:'temporal_visibility_db', :'temporal_role')) AS d(name, owner)
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = d.name)
\gexec
ALTER DATABASE :"railyard_db" OWNER TO :"railyard_role";
ALTER DATABASE :"temporal_db" OWNER TO :"temporal_role";
ALTER DATABASE :"temporal_visibility_db" OWNER TO :"temporal_role";
REVOKE ALL ON DATABASE :"railyard_db" FROM PUBLIC;
REVOKE ALL ON DATABASE :"temporal_db" FROM PUBLIC;
REVOKE ALL ON DATABASE :"temporal_visibility_db" FROM PUBLIC;
