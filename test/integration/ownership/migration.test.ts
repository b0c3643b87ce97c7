/**
 * Migration 0008 on data written before repositories had owners: the organisation that created a
 * repository's first queue or upload owns it, whichever record shows that first use.
 */
import fs from 'node:fs';
import { Client } from 'pg';
import { MIGRATIONS_DIR, runMigrations } from '../../../stores/migrate';
import { createScratchDatabase } from '../../support/postgres';

async function migrateBefore(url: string, first: string): Promise<void> {
  const { runner } = await import('node-pg-migrate');
  const before = fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && f < first);
  await runner({
    databaseUrl: url,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    count: before.length,
    singleTransaction: true,
    log: () => undefined,
  });
}

test('the earliest queue, submission or upload decides the owner; every repository gets exactly one', async () => {
  const url = await createScratchDatabase('owners_migration');
  await migrateBefore(url, '0008');
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const org = async (slug: string) =>
      (await db.query<{ id: string }>('INSERT INTO organisations (slug) VALUES ($1) RETURNING id', [slug]))
        .rows[0]!.id;
    const [acme, globex] = [await org('acme'), await org('globex')];
    const queue = (o: string, name: string, at: string) =>
      db.query(
        `INSERT INTO event_log_queues (organisation_id, host, owner, name, target_branch, first_seen_at)
         VALUES ($1, 'local', 'acme', $2, 'main', $3)`,
        [o, name, at],
      );
    const flaky = (o: string, name: string, at: string) =>
      db.query(
        `INSERT INTO repositories (organisation_id, host, owner, name, created_at) VALUES ($1, 'local', 'acme', $2, $3)`,
        [o, name, at],
      );
    // app: acme's queue first, globex's queue later. api: globex uploaded before acme made a queue.
    // web: only a flaky-test repository, spelled two ways by two organisations.
    await queue(acme, 'app', '2026-01-01T00:00:00Z');
    await queue(globex, 'app', '2026-02-01T00:00:00Z');
    await flaky(globex, 'api', '2026-01-05T00:00:00Z');
    await queue(acme, 'api', '2026-01-06T00:00:00Z');
    await flaky(acme, 'web', '2026-03-01T00:00:00Z');
    await flaky(globex, 'WEB', '2026-03-02T00:00:00Z');

    expect(await runMigrations(url)).toContain('0008_repository-owners');
    const { rows } = await db.query<{ name: string; slug: string; claimed_by: string }>(
      `SELECT r.name, o.slug, r.claimed_by FROM repository_owners r JOIN organisations o ON o.id = r.organisation_id
       ORDER BY lower(r.name)`,
    );
    expect(rows).toEqual([
      { name: 'api', slug: 'globex', claimed_by: 'migration' },
      { name: 'app', slug: 'acme', claimed_by: 'migration' },
      { name: 'web', slug: 'acme', claimed_by: 'migration' },
    ]);
  } finally {
    await db.end();
  }
});
