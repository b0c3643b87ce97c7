/**
 * A managed PostgreSQL over TLS (issue 27): with `sslmode=verify-full` and the CA in `sslrootcert` (the
 * libpq parameters, as managed services document them) railyard's pool and its migrations connect
 * encrypted and check the server's certificate and name; trusting another CA is refused. The run's own
 * cluster is given a certificate from a self-made CA (ALTER SYSTEM + reload; plaintext connections of the
 * other tests keep working, since TLS is only offered, not required).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { createPool } from '../../../stores/db';
import { runMigrations } from '../../../stores/migrate';
import { runAsUser } from '../../../scripts/lib/postgres';
import { requireTestEnv } from '../../support/env';
import { makeTestCerts, type TestCerts } from '../../support/tls-certs';

let certs: TestCerts;

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: requireTestEnv('TEST_PG_ADMIN_URL') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  certs = makeTestCerts(fs.mkdtempSync(path.join(requireTestEnv('TEST_TMP'), 'pg-tls-')));
  // The server reads its key as the cluster's user, and refuses a key others can read.
  const owner = runAsUser();
  fs.chmodSync(certs.dir, 0o755);
  for (const f of [certs.serverCert, certs.serverKey, certs.ca]) {
    if (owner) fs.chownSync(f, owner.uid, owner.gid);
  }
  fs.chmodSync(certs.serverKey, 0o600);
  fs.chmodSync(certs.serverCert, 0o644);
  await admin(async (c) => {
    await c.query(`ALTER SYSTEM SET ssl_cert_file = '${certs.serverCert}'`);
    await c.query(`ALTER SYSTEM SET ssl_key_file = '${certs.serverKey}'`);
    await c.query('ALTER SYSTEM SET ssl = on');
    await c.query('SELECT pg_reload_conf()');
  });
  // The reload is asynchronous: wait until the server offers TLS.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const on = await admin((c) => c.query<{ ssl: string }>('SHOW ssl')).then((r) => r.rows[0]!.ssl);
    if (on === 'on') break;
    if (Date.now() > deadline) throw new Error('PostgreSQL did not turn TLS on after the reload');
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterAll(async () => {
  await admin(async (c) => {
    await c.query('ALTER SYSTEM RESET ssl');
    await c.query('ALTER SYSTEM RESET ssl_cert_file');
    await c.query('ALTER SYSTEM RESET ssl_key_file');
    await c.query('SELECT pg_reload_conf()');
  });
});

function withTls(url: string, ca: string): string {
  const u = new URL(url);
  u.searchParams.set('sslmode', 'verify-full');
  u.searchParams.set('sslrootcert', ca);
  return u.toString();
}

test('the pool and the migrations connect over verified TLS', async () => {
  const url = withTls(requireTestEnv('TEST_DATABASE_URL'), certs.ca);
  const pool = createPool(url, { max: 1 });
  try {
    const { rows } = await pool.query<{ ssl: boolean; version: string }>(
      'SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
    );
    expect(rows[0]).toEqual({ ssl: true, version: expect.stringMatching(/^TLSv1\.[23]$/) as string });
  } finally {
    await pool.end();
  }
  await expect(runMigrations(url)).resolves.not.toThrow();
});

test('a server certificate from another CA is refused', async () => {
  const pool = createPool(withTls(requireTestEnv('TEST_DATABASE_URL'), certs.otherCa), { max: 1 });
  try {
    await expect(pool.query('SELECT 1')).rejects.toThrow(/certificate/i);
  } finally {
    await pool.end();
  }
});

test('the certificate check needs openssl to have made a real chain', () => {
  // Guards the fixture: the server certificate verifies against its CA and not against the other.
  const verify = (ca: string) =>
    execFileSync('openssl', ['verify', '-CAfile', ca, certs.serverCert], { encoding: 'utf8', stdio: 'pipe' });
  expect(verify(certs.ca)).toContain('OK');
  expect(() => verify(certs.otherCa)).toThrow();
});
