/**
 * A process that folds one repository (flaky/fold/fold.ts) and stops dead before the fold's commit:
 * the fold-crash test SIGKILLs it there, between acknowledgement and fold. It prints
 * `before-commit <uploads>` once the batch's writes are done and then waits for its end.
 *
 * Environment: DATABASE_URL, FOLD_REPOSITORY_PK. Not a production entry point.
 */
import { foldRepository } from '../../flaky/fold';
import { createPool } from '../../stores/db';

async function main(): Promise<void> {
  const pool = createPool(process.env.DATABASE_URL!, { max: 1 });
  // Keeps the process alive while it waits to be killed, whatever the pool does.
  setInterval(() => undefined, 60_000);
  await foldRepository(pool, process.env.FOLD_REPOSITORY_PK!, {
    beforeCommit: async (batch) => {
      process.stdout.write(`before-commit ${batch.uploadPks.length}\n`);
      await new Promise<never>(() => undefined);
    },
  });
  process.stdout.write('committed\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`fold process failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
