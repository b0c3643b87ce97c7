/**
 * The credential of the executor a script starts itself (`npm start`, the test stacks of scripts/lib/
 * stack.ts; issue 24): issued anew at every start under a fixed name, so the previous start's
 * credential stops working and none is kept on disk. Remote executors get theirs from an operator
 * (`npm run executors -- add <name>`).
 */
import { createPool } from '../../stores/db';
import { createExecutorCredentials } from '../../test-runs/store/executor-credentials';

export async function issueOwnExecutorCredential(databaseUrl: string, name: string): Promise<string> {
  const pool = createPool(databaseUrl, { max: 1 });
  try {
    return (await createExecutorCredentials(pool).reissue(name)).token;
  } finally {
    await pool.end();
  }
}
