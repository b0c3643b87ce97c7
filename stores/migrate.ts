/**
 * Applies the numbered SQL migrations in migrations/ with node-pg-migrate (a maintained library, not a
 * home-made runner). Idempotent: applied migrations are recorded in `pgmigrations` and skipped, and
 * node-pg-migrate takes an advisory lock so two processes starting together do not race.
 */
import path from 'node:path';

export const MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

export async function runMigrations(
  databaseUrl: string,
  log: (msg: string) => void = () => undefined,
): Promise<string[]> {
  // node-pg-migrate is an ES module; Node >= 20.19 can require it, tsx and jest handle the import.
  const { runner } = await import('node-pg-migrate');
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    count: Infinity,
    singleTransaction: true,
    checkOrder: true,
    log: () => undefined,
    logger: { debug: () => undefined, info: () => undefined, warn: log, error: log },
  });
  for (const m of applied) log(`applied migration ${m.name}`);
  return applied.map((m) => m.name);
}
