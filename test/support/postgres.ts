/**
 * Scratch databases on the test cluster. Migrated ones are copies of the template database `npm test`
 * migrated once (TEST_PG_TEMPLATE, scripts/test.ts): a copy takes tens of milliseconds, a migration run
 * a process start. Tests of the migrations themselves start from an empty database and `migrate`, the
 * real migration entry point.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, type Pool } from 'pg';
import { createPool } from '../../stores/db';
import { requireTestEnv } from './env';
import { tsNode } from '../../scripts/lib/ts-node';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');

export async function migrate(databaseUrl: string): Promise<string[]> {
  const { stdout } = await run(...tsNode('scripts/migrate.ts'), {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return (JSON.parse(stdout.trim().split('\n').pop()!) as { applied: string[] }).applied;
}

/** Creates an empty database (or a copy of `template`) and returns its URL. */
export async function createScratchDatabase(prefix: string, template?: string): Promise<string> {
  const admin = new Client({ connectionString: requireTestEnv('TEST_PG_ADMIN_URL') });
  await admin.connect();
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`.replace(
    /[^a-z0-9_]/g,
    '_',
  );
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(requireTestEnv('TEST_PG_ADMIN_URL'));
  url.pathname = `/${name}`;
  return url.toString();
}

/** A migrated scratch database and a pool on it, for tests that need isolation from each other. */
export async function createMigratedDatabase(prefix: string): Promise<{ url: string; pool: Pool }> {
  const url = await createScratchDatabase(prefix, requireTestEnv('TEST_PG_TEMPLATE'));
  return { url, pool: createPool(url, { max: 5 }) };
}
