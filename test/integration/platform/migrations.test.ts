/** Migrations apply on the real PostgreSQL and are idempotent (a second run applies nothing). */
import { Client } from 'pg';
import { createScratchDatabase, migrate } from '../../support/postgres';

test('migrations apply once, then are a no-op', async () => {
  const url = await createScratchDatabase('migrations');
  const first = await migrate(url);
  expect(first[0]).toBe('0001_organisations-and-api-keys');
  expect(await migrate(url)).toEqual([]);

  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    );
    expect(rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['api_keys', 'organisations', 'pgmigrations']),
    );
    const { rows: cols } = await client.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'api_keys'`,
    );
    // Only a hash of the key is stored, never the key.
    expect(cols.map((c) => c.column_name).sort()).toEqual(
      [
        'created_at',
        'id',
        'key_hash',
        'last_used_at',
        'name',
        'organisation_id',
        'prefix',
        'revoked_at',
      ].sort(),
    );
  } finally {
    await client.end();
  }
});
