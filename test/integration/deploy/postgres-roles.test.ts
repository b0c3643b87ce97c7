/**
 * deploy/postgres/roles.sql, the compose deployment's roles job, run with psql against the real test
 * PostgreSQL exactly as the job runs it (role and database names made unique per run, since roles are
 * global to the cluster). It must: create two non-superuser login roles that own only their own
 * databases, keep each role out of the other's databases, be safe to run on every start, set exactly
 * the passwords given (checked against the stored SCRAM verifier, and by logging in: the test cluster
 * asks every connection for its password), and refuse weak or shared passwords before creating anything.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { findPgBinDir } from '../../../scripts/lib/postgres';
import { requireTestEnv } from '../../support/env';
import { tsNode } from '../../../scripts/lib/ts-node';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..', '..');
const ROLES_SQL = path.join(ROOT, 'deploy', 'postgres', 'roles.sql');
const admin = requireTestEnv('TEST_PG_ADMIN_URL');
const suffix = `${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
const names = {
  railyard_role: `ry_${suffix}`,
  railyard_db: `ry_${suffix}_db`,
  temporal_role: `tm_${suffix}`,
  temporal_db: `tm_${suffix}_db`,
};
const visibilityDb = `${names.temporal_db}_visibility`;
const RAILYARD_PW = crypto.randomBytes(24).toString('hex');
const TEMPORAL_PW = crypto.randomBytes(24).toString('hex');

async function applyRoles(
  railyardPassword: string,
  temporalPassword: string,
  vars: Record<string, string> = names,
) {
  const args = ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', admin];
  for (const [k, v] of Object.entries(vars)) args.push('-v', `${k}=${v}`);
  args.push('-v', `railyard_password=${railyardPassword}`, '-v', `temporal_password=${temporalPassword}`);
  args.push('-f', ROLES_SQL);
  try {
    await run(path.join(findPgBinDir(), 'psql'), args);
    return { code: 0, stderr: '' };
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? '' };
  }
}

function urlFor(user: string, db: string): string {
  const url = new URL(admin);
  url.username = user;
  url.password = user === names.railyard_role ? RAILYARD_PW : TEMPORAL_PW;
  url.pathname = `/${db}`;
  return url.toString();
}

async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const asAdmin = <T>(fn: (c: Client) => Promise<T>) => withClient(admin, fn);

/** Whether `password` matches a stored `SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>`. */
function scramMatches(verifier: string, password: string): boolean {
  const m = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(verifier);
  if (!m) return false;
  const salted = crypto.pbkdf2Sync(password, Buffer.from(m[2]!, 'base64'), Number(m[1]), 32, 'sha256');
  const clientKey = crypto.createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = crypto.createHash('sha256').update(clientKey).digest('base64');
  return storedKey === m[3];
}

const connectError = (user: string, db: string, url = urlFor(user, db)) =>
  withClient(url, () => Promise.resolve('connected')).catch((e: { code?: string }) => e.code);

afterAll(async () => {
  await asAdmin(async (c) => {
    for (const db of [names.railyard_db, names.temporal_db, visibilityDb])
      await c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    for (const role of [names.railyard_role, names.temporal_role])
      await c.query(`DROP ROLE IF EXISTS "${role}"`);
  });
});

test('weak or shared passwords, or one role for both, are refused before anything is created', async () => {
  const refusals = [
    await applyRoles('short', TEMPORAL_PW),
    await applyRoles(`${RAILYARD_PW}@x`, TEMPORAL_PW),
    await applyRoles(RAILYARD_PW, RAILYARD_PW),
    await applyRoles(RAILYARD_PW, TEMPORAL_PW, { ...names, temporal_role: names.railyard_role }),
    await applyRoles(RAILYARD_PW, TEMPORAL_PW, { ...names, railyard_connection_limit: '10; DROP ROLE x' }),
  ];
  expect(refusals.map((r) => r.code)).toEqual([3, 3, 3, 3, 3]);
  expect(refusals[0]!.stderr).toMatch(/must be 16 or more characters/);
  expect(refusals[2]!.stderr).toMatch(/must differ/);
  expect(refusals[3]!.stderr).toMatch(/separate database roles/);
  expect(refusals[4]!.stderr).toMatch(/must be -1 or a number of connections/);
  const { rows } = await asAdmin((c) =>
    c.query('SELECT rolname FROM pg_roles WHERE rolname = ANY($1)', [
      [names.railyard_role, names.temporal_role],
    ]),
  );
  expect(rows).toEqual([]);
});

describe('after the job ran twice (as on every `docker compose up`)', () => {
  beforeAll(async () => {
    expect(await applyRoles(RAILYARD_PW, TEMPORAL_PW)).toEqual({ code: 0, stderr: '' });
    expect(await applyRoles(RAILYARD_PW, TEMPORAL_PW)).toEqual({ code: 0, stderr: '' });
  });

  test('two non-superuser roles, each owning only its own databases', async () => {
    const roles = await asAdmin((c) =>
      c.query(
        `SELECT rolname, rolsuper, rolcreatedb, rolcreaterole, rolcanlogin, rolreplication, rolbypassrls
         FROM pg_roles WHERE rolname = ANY($1) ORDER BY rolname`,
        [[names.railyard_role, names.temporal_role]],
      ),
    );
    expect(roles.rows).toEqual(
      [names.railyard_role, names.temporal_role].sort().map((rolname) => ({
        rolname,
        rolsuper: false,
        rolcreatedb: false,
        rolcreaterole: false,
        rolcanlogin: true,
        rolreplication: false,
        rolbypassrls: false,
      })),
    );
    const dbs = await asAdmin((c) =>
      c.query<{ datname: string; owner: string; public_connect: boolean }>(
        `SELECT datname, pg_get_userbyid(datdba) AS owner,
              has_database_privilege('public', oid, 'CONNECT') AS public_connect
         FROM pg_database WHERE datname = ANY($1) ORDER BY datname`,
        [[names.railyard_db, names.temporal_db, visibilityDb]],
      ),
    );
    expect(dbs.rows).toEqual([
      { datname: names.railyard_db, owner: names.railyard_role, public_connect: false },
      { datname: names.temporal_db, owner: names.temporal_role, public_connect: false },
      { datname: visibilityDb, owner: names.temporal_role, public_connect: false },
    ]);
  });

  test('each role is kept out of the other one’s databases', async () => {
    expect(await connectError(names.railyard_role, names.railyard_db)).toBe('connected');
    expect(await connectError(names.temporal_role, names.temporal_db)).toBe('connected');
    // 42501: insufficient_privilege (no CONNECT on the database).
    expect(await connectError(names.railyard_role, names.temporal_db)).toBe('42501');
    expect(await connectError(names.railyard_role, visibilityDb)).toBe('42501');
    expect(await connectError(names.temporal_role, names.railyard_db)).toBe('42501');
    // 28P01: invalid_password (the other role's password).
    const swapped = new URL(urlFor(names.railyard_role, names.railyard_db));
    swapped.password = TEMPORAL_PW;
    expect(await connectError(names.railyard_role, names.railyard_db, swapped.toString())).toBe('28P01');
  });

  test('each role can build its own schema without superuser rights', async () => {
    // railyard: the real migrations and the key CLI, as the compose deployment runs them.
    const railyardUrl = urlFor(names.railyard_role, names.railyard_db);
    await run(...tsNode('scripts/migrate.ts'), {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: railyardUrl },
    });
    const { stdout } = await run(...tsNode('scripts/keys.ts', 'create', '--org', 'acme', '--name', 'CI'), {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: railyardUrl },
    });
    expect(stdout).toMatch(/Created key .* for organisation "acme"/);
    // Temporal: its visibility schema starts with CREATE EXTENSION btree_gin (trusted since PostgreSQL 13)
    // and builds multi-column GIN indexes with it.
    await withClient(urlFor(names.temporal_role, visibilityDb), async (c) => {
      await c.query('CREATE EXTENSION IF NOT EXISTS btree_gin');
      await c.query('CREATE TABLE v (namespace_id CHAR(64) NOT NULL, attrs JSONB)');
      await c.query('CREATE INDEX v_attrs ON v USING GIN (namespace_id, attrs jsonb_path_ops)');
    });
  });

  test('the stored passwords are exactly the ones given, and a rerun rotates them', async () => {
    const verifiers = async () =>
      (
        await asAdmin((c) =>
          c.query<{ rolname: string; rolpassword: string }>(
            'SELECT rolname, rolpassword FROM pg_authid WHERE rolname = ANY($1)',
            [[names.railyard_role, names.temporal_role]],
          ),
        )
      ).rows.reduce<Record<string, string>>((acc, r) => ({ ...acc, [r.rolname]: r.rolpassword }), {});

    let v = await verifiers();
    expect(scramMatches(v[names.railyard_role]!, RAILYARD_PW)).toBe(true);
    expect(scramMatches(v[names.temporal_role]!, TEMPORAL_PW)).toBe(true);
    expect(scramMatches(v[names.railyard_role]!, TEMPORAL_PW)).toBe(false);

    const rotated = crypto.randomBytes(24).toString('hex');
    expect((await applyRoles(rotated, TEMPORAL_PW)).code).toBe(0);
    v = await verifiers();
    expect(scramMatches(v[names.railyard_role]!, rotated)).toBe(true);
    expect(scramMatches(v[names.railyard_role]!, RAILYARD_PW)).toBe(false);
  });

  test("each role's connection limit is the given share, and none when not given (compose's budget)", async () => {
    const limits = async () =>
      (
        await asAdmin((c) =>
          c.query<{ rolname: string; rolconnlimit: number }>(
            'SELECT rolname, rolconnlimit FROM pg_roles WHERE rolname = ANY($1)',
            [[names.railyard_role, names.temporal_role]],
          ),
        )
      ).rows.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.rolname]: r.rolconnlimit }), {});
    const withLimits = { ...names, railyard_connection_limit: '137', temporal_connection_limit: '60' };
    expect(await applyRoles(RAILYARD_PW, TEMPORAL_PW, withLimits)).toEqual({ code: 0, stderr: '' });
    expect(await limits()).toEqual({ [names.railyard_role]: 137, [names.temporal_role]: 60 });
    expect(await applyRoles(RAILYARD_PW, TEMPORAL_PW)).toEqual({ code: 0, stderr: '' });
    expect(await limits()).toEqual({ [names.railyard_role]: -1, [names.temporal_role]: -1 });
  });
});
