/**
 * Database credentials in the compose deployment: every password comes from a `${VAR:?message}` (so
 * compose refuses to start without it, and there is no default to forget), and railyard, Temporal and
 * the PostgreSQL superuser are three different roles with three different passwords. The roles job
 * creates the two service roles from deploy/postgres/roles.sql, which the integration test
 * test/integration/deploy/postgres-roles.test.ts runs against a real PostgreSQL.
 */
import { loadCompose, readText, requiredVariable, type Service } from './deploy-files';

const text = readText('docker-compose.yml');
const { services } = loadCompose(text);
const env = (name: string): Record<string, string> => services[name]?.environment ?? {};
const SECRET_NAME = /PASSWORD|PASSWD|PWD|SECRET|TOKEN/i;

/** user, password variable and database of a `postgres://user:${VAR:?…}@host:port/db` URL. */
function databaseUrl(url: string | undefined) {
  const m = /^postgres(?:ql)?:\/\/([^:@/]+):(.+)@[^@/]+\/(\w+)$/.exec(url ?? '');
  return m ? { user: m[1], passwordVar: requiredVariable(m[2]), db: m[3] } : undefined;
}

/** Services that `name` waits for, directly or through the services it waits for. */
function dependencies(name: string, seen = new Set<string>()): Set<string> {
  for (const dep of Object.keys(services[name]?.depends_on ?? {})) {
    if (!seen.has(dep)) {
      seen.add(dep);
      dependencies(dep, seen);
    }
  }
  return seen;
}

test('every password, secret or token in an environment is a required variable', () => {
  const offenders = Object.entries(services).flatMap(([name, s]: [string, Service]) =>
    Object.entries(s.environment ?? {})
      .filter(([k, v]) => SECRET_NAME.test(k) && requiredVariable(v) === undefined)
      .map(([k, v]) => `${name}.${k}=${v}`),
  );
  expect(offenders).toEqual([]);
});

test('no secret variable has a default anywhere in the file, and trust auth is not enabled', () => {
  const withDefault = [...text.matchAll(/\$\{(\w+):?[-=]/g)].map((m) => m[1]!);
  expect(withDefault.filter((v) => SECRET_NAME.test(v))).toEqual([]);
  expect(env('postgresql').POSTGRES_HOST_AUTH_METHOD).toBeUndefined();
});

test('railyard connects with its own role and a required password', () => {
  for (const s of ['api', 'worker']) {
    expect(databaseUrl(env(s).DATABASE_URL)).toEqual({
      user: 'railyard',
      passwordVar: 'RAILYARD_DB_PASSWORD',
      db: 'railyard',
    });
  }
});

test('Temporal, railyard and the superuser are separate roles with separate passwords', () => {
  const railyard = databaseUrl(env('api').DATABASE_URL);
  const temporal = {
    user: env('temporal').POSTGRES_USER,
    passwordVar: requiredVariable(env('temporal').POSTGRES_PWD),
  };
  // The schema job must act as the role the server uses, so the server owns what it reads.
  expect({
    user: env('temporal-admin-tools').SQL_USER,
    passwordVar: requiredVariable(env('temporal-admin-tools').SQL_PASSWORD),
  }).toEqual(temporal);
  const superuser = {
    user: env('postgresql').POSTGRES_USER ?? 'postgres',
    passwordVar: requiredVariable(env('postgresql').POSTGRES_PASSWORD),
  };
  const roles = [railyard?.user, temporal.user, superuser.user];
  const passwords = [railyard?.passwordVar, temporal.passwordVar, superuser.passwordVar];
  expect(new Set(roles).size).toBe(3);
  expect(new Set(passwords).size).toBe(3);
  for (const v of passwords) expect(v).toEqual(expect.any(String));
});

test('the roles job creates exactly these roles, with the same password variables', () => {
  const job = services['postgresql-roles'];
  const command = ([] as string[]).concat(job?.command ?? []).join(' ');
  expect(command).toContain('-f /deploy/roles.sql');
  expect(command).toMatch(/-v railyard_role=railyard\b/);
  expect(command).toMatch(/-v temporal_role=temporal\b/);
  expect(command).toContain('railyard_password="$$RAILYARD_DB_PASSWORD"');
  expect(command).toContain('temporal_password="$$TEMPORAL_DB_PASSWORD"');
  expect(requiredVariable(env('postgresql-roles').RAILYARD_DB_PASSWORD)).toBe('RAILYARD_DB_PASSWORD');
  expect(requiredVariable(env('postgresql-roles').TEMPORAL_DB_PASSWORD)).toBe('TEMPORAL_DB_PASSWORD');
  expect(requiredVariable(env('postgresql-roles').PGPASSWORD)).toBe('POSTGRES_PASSWORD');
  expect(job?.volumes).toContain('./deploy/postgres/roles.sql:/deploy/roles.sql:ro');

  const sql = readText('deploy/postgres/roles.sql');
  for (const role of ['railyard_role', 'temporal_role']) {
    expect(sql).toMatch(new RegExp(`ALTER ROLE :"${role}" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`));
  }
});

test('nothing that logs in as railyard or temporal starts before the roles exist', () => {
  for (const s of ['temporal-admin-tools', 'temporal', 'api', 'worker']) {
    expect(dependencies(s)).toContain('postgresql-roles');
  }
  expect(services['postgresql-roles']?.depends_on).toEqual({
    postgresql: { condition: 'service_healthy' },
  });
});
