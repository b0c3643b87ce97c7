/**
 * `npm run keys -- create --org <slug> [--name <label>]` prints a new key once;
 * `npm run keys -- list [--org <slug>]`; `npm run keys -- revoke <key id or prefix>`.
 * Uses DATABASE_URL, or the database `npm start` runs (.data/database-url).
 */
import { parseArgs } from 'node:util';
import { createPool } from '../activities/platform/db';
import { runMigrations } from '../activities/platform/migrate';
import { createApiKeyStore } from '../activities/stores/api-keys';
import { readState } from './lib/data-dir';

const USAGE =
  'usage: npm run keys -- create --org <slug> [--name <label>] | list [--org <slug>] | revoke <key id or prefix>';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { org: { type: 'string' }, name: { type: 'string' } },
  });
  const [command, arg] = positionals;
  const databaseUrl = process.env.DATABASE_URL ?? readState('database-url');
  if (!databaseUrl) {
    console.error('No database: set DATABASE_URL, or run `npm start` first so the local database exists.');
    return 2;
  }
  const pool = createPool(databaseUrl, { max: 2, applicationName: 'railyard-keys' });
  try {
    await runMigrations(databaseUrl);
    const keys = createApiKeyStore(pool);
    switch (command) {
      case 'create': {
        if (!values.org || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(values.org)) {
          console.error(
            '--org must be a slug of lower-case letters, digits and dashes (at most 63 characters).',
          );
          return 2;
        }
        const { key, summary } = await keys.create(values.org, values.name ?? '');
        console.log(`Created key ${summary.prefix}… (id ${summary.id}) for organisation "${values.org}".`);
        console.log('It is shown only this once; store it now:');
        console.log(key);
        return 0;
      }
      case 'list': {
        const rows = await keys.list(values.org);
        for (const k of rows) {
          console.log(
            [
              k.organisationSlug,
              k.id,
              `${k.prefix}…`,
              k.name || '-',
              `created ${k.createdAt.toISOString()}`,
              `last used ${k.lastUsedAt?.toISOString() ?? 'never'}`,
              k.revokedAt ? `REVOKED ${k.revokedAt.toISOString()}` : 'active',
            ].join('  '),
          );
        }
        if (rows.length === 0) console.log('No keys.');
        return 0;
      }
      case 'revoke': {
        if (!arg) {
          console.error(USAGE);
          return 2;
        }
        const n = await keys.revoke(arg);
        console.log(n === 0 ? `No active key matches "${arg}".` : `Revoked ${n} key${n > 1 ? 's' : ''}.`);
        return n === 0 ? 1 : 0;
      }
      default:
        console.error(USAGE);
        return 2;
    }
  } finally {
    await pool.end();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`keys: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
