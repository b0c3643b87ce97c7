/**
 * Executor credentials (issue 24, ADR 0014): `npm run executors -- add <name>` prints a new credential
 * once (give it to the executor as RAILYARD_EXECUTOR_TOKEN); `list` shows every executor, what it last
 * announced and when it was last seen; `revoke <name>` stops its credential from the next request on;
 * `rotate <name>` gives it a new credential (the old one stops working).
 * Uses DATABASE_URL, or the database `npm start` runs (.data/database-url).
 */
import { parseArgs } from 'node:util';
import type { Pool } from 'pg';
import { createExecutorCredentials, EXECUTOR_NAME } from '../test-runs/store/executor-credentials';
import { runOperatorCommand, UsageError } from './lib/operator-command';

const USAGE = 'usage: npm run executors -- add <name> | list | revoke <name> | rotate <name>';

function nameOf(arg: string | undefined): string {
  if (!arg) throw new UsageError(USAGE);
  if (!EXECUTOR_NAME.test(arg))
    throw new UsageError(`An executor name is 1-64 letters, digits, ".", "_" or "-"; "${arg}" is not.`);
  return arg;
}

function printCredential(name: string, token: string): void {
  console.log(`Executor "${name}": its credential is shown only this once; give it to the executor as`);
  console.log('RAILYARD_EXECUTOR_TOKEN (with RAILYARD_EXECUTOR_API_URL, the API as it reaches it):');
  console.log(token);
}

async function run(pool: Pool, command: string | undefined, arg: string | undefined): Promise<number> {
  const credentials = createExecutorCredentials(pool);
  switch (command) {
    case 'add': {
      const name = nameOf(arg);
      const added = await credentials.add(name);
      if (added.kind === 'name_taken') {
        console.error(`An executor named "${name}" exists; \`rotate ${name}\` gives it a new credential.`);
        return 1;
      }
      printCredential(name, added.token);
      return 0;
    }
    case 'rotate': {
      const name = nameOf(arg);
      const exists = (await credentials.list()).some((e) => e.name === name);
      if (!exists) {
        console.error(`No executor is named "${name}"; \`add ${name}\` makes one.`);
        return 1;
      }
      printCredential(name, (await credentials.reissue(name)).token);
      return 0;
    }
    case 'list': {
      const rows = await credentials.list();
      for (const e of rows)
        console.log(
          [
            e.name,
            `created ${e.createdAt.toISOString()}`,
            `last seen ${e.lastSeenAt?.toISOString() ?? 'never'}`,
            e.announced ? JSON.stringify(e.announced) : 'not announced',
            e.revokedAt ? `REVOKED ${e.revokedAt.toISOString()}` : 'active',
          ].join('  '),
        );
      if (rows.length === 0) console.log('No executors.');
      return 0;
    }
    case 'revoke': {
      const name = nameOf(arg);
      const revoked = await credentials.revoke(name);
      console.log(revoked ? `Revoked executor "${name}".` : `No active executor is named "${name}".`);
      return revoked ? 0 : 1;
    }
    default:
      throw new UsageError(USAGE);
  }
}

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
runOperatorCommand('executors', (pool) => run(pool, positionals[0], positionals[1]));
