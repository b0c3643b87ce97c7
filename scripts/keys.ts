/**
 * `npm run keys -- create --org <slug> [--name <label>]` prints a new key once;
 * `npm run keys -- list [--org <slug>]`; `npm run keys -- revoke <key id or prefix>`.
 * Uses DATABASE_URL, or the database `npm start` runs (.data/database-url).
 */
import { parseArgs } from 'node:util';
import type { Pool } from 'pg';
import { createApiKeyStore } from '../stores/api-keys';
import { runOperatorCommand, slugOf, UsageError } from './lib/operator-command';

const USAGE =
  'usage: npm run keys -- create --org <slug> [--name <label>] | list [--org <slug>] | revoke <key id or prefix>';

async function run(
  pool: Pool,
  command: string | undefined,
  arg: string | undefined,
  values: { org?: string; name?: string },
): Promise<number> {
  const keys = createApiKeyStore(pool);
  switch (command) {
    case 'create': {
      const org = slugOf(values.org);
      const { key, summary } = await keys.create(org, values.name ?? '');
      console.log(`Created key ${summary.prefix}… (id ${summary.id}) for organisation "${org}".`);
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
        throw new UsageError(USAGE);
      }
      const n = await keys.revoke(arg);
      console.log(n === 0 ? `No active key matches "${arg}".` : `Revoked ${n} key${n > 1 ? 's' : ''}.`);
      return n === 0 ? 1 : 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { org: { type: 'string' }, name: { type: 'string' } },
});
runOperatorCommand('keys', (pool) => run(pool, positionals[0], positionals[1], values));
