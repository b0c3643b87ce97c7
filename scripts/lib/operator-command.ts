/**
 * The frame every operator command shares (`npm run keys`, `npm run repos`, `npm run github`): the
 * database from DATABASE_URL or the one `npm start` runs, migrations applied first, a two-connection
 * pool closed at the end, and the exit code: 0 done, 1 refused or failed, 2 wrong usage. A usage
 * error or an error the command expects prints its one sentence; anything else prints
 * `<name>: <message>` and exits 1.
 */
import type { Pool } from 'pg';
import { createPool } from '../../stores/db';
import { runMigrations } from '../../stores/migrate';
import { readState } from './data-dir';

/** Wrong arguments: the sentence is printed and the command exits 2. */
export class UsageError extends Error {}

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function slugOf(org: string | undefined): string {
  if (!org || !SLUG.test(org))
    throw new UsageError(
      '--org must be a slug of lower-case letters, digits and dashes (at most 63 characters).',
    );
  return org;
}

/** The organisation's id, creating the organisation when it does not exist yet. */
export async function organisationIdOf(pool: Pool, slug: string): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO organisations (slug) VALUES ($1) ON CONFLICT (slug) DO UPDATE SET slug = EXCLUDED.slug
     RETURNING id`,
    [slug],
  );
  return rows[0]!.id;
}

export function runOperatorCommand(
  name: string,
  body: (pool: Pool) => Promise<number>,
  opts: { expected?: (err: unknown) => err is Error } = {},
): void {
  const main = async (): Promise<number> => {
    const databaseUrl = process.env.DATABASE_URL ?? readState('database-url');
    if (!databaseUrl) {
      console.error('No database: set DATABASE_URL, or run `npm start` first so the local database exists.');
      return 2;
    }
    const pool = createPool(databaseUrl, { max: 2, applicationName: `railyard-${name}` });
    try {
      await runMigrations(databaseUrl);
      return await body(pool);
    } catch (err) {
      if (err instanceof UsageError) {
        console.error(err.message);
        return 2;
      }
      if (opts.expected?.(err)) {
        console.error(err.message);
        return 1;
      }
      throw err;
    } finally {
      await pool.end();
    }
  };
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
