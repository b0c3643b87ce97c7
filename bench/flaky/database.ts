/**
 * The benchmark's database: a fresh database on DATABASE_URL's server when that is set, else a
 * private PostgreSQL cluster in a temp dir (scripts/lib/postgres.ts, durable settings: fsync and
 * synchronous commit on). Either way it is migrated with the real migrations. max_wal_size is raised
 * on a private cluster so a 10M-row load is not dominated by forced checkpoints (a production
 * database would be configured the same way); DATABASE_URL's server is used as configured.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '../../stores/migrate';
import { freePort } from '../../scripts/lib/ports';
import { startCluster } from '../../scripts/lib/postgres';
import { type Supervisor } from '../../scripts/lib/supervisor';

export interface BenchDatabase {
  readonly url: string;
  readonly description: string;
  /** The private cluster's postmaster, for CPU accounting; undefined on DATABASE_URL's server. */
  readonly postmasterPid?: number;
}

export async function openDatabase(supervisor: Supervisor, tmp: string): Promise<BenchDatabase> {
  const given = process.env.DATABASE_URL;
  if (given) {
    const name = `railyard_flaky_bench_${Date.now().toString(36)}`;
    const admin = new Client({ connectionString: given });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    const url = new URL(given);
    url.pathname = `/${name}`;
    await runMigrations(url.toString());
    return { url: url.toString(), description: `database ${name} on DATABASE_URL's server` };
  }
  const port = await freePort();
  const { url, managed } = await startCluster(
    supervisor,
    { dataDir: join(tmp, 'pg'), port, logFile: join(tmp, 'postgres.log') },
    'railyard_bench',
  );
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`ALTER SYSTEM SET max_wal_size = '8GB'`);
    await client.query(`ALTER SYSTEM SET checkpoint_timeout = '15min'`);
    await client.query('SELECT pg_reload_conf()');
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    await runMigrations(url);
    return {
      url,
      ...(managed.child.pid === undefined ? {} : { postmasterPid: managed.child.pid }),
      description: `private PostgreSQL ${rows[0]!.server_version} (shared_buffers 256MB, fsync on, max_wal_size 8GB)`,
    };
  } finally {
    await client.end();
  }
}
