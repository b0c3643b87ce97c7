/**
 * The real stack a queue benchmark runs on: a Temporal dev server, the bundled workflow code, a
 * migrated PostgreSQL cluster with a pool, and a repository with `main` whose config runs `true`, all in
 * a temporary folder that `stop()` removes with everything it started. Shared by `bench:queue` and
 * `bench:reads`, so both measure the same stack.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import type { Pool } from 'pg';
import { createPool } from '../../stores/db';
import { runMigrations } from '../../stores/migrate';
import { freePort } from '../../scripts/lib/ports';
import { startCluster } from '../../scripts/lib/postgres';
import { Supervisor } from '../../scripts/lib/supervisor';
import { startDevServer } from '../../scripts/lib/temporal';
import { createRepoWithMain, type GitFixture } from '../../test/support/git-fixture';

export interface BenchStack {
  /** The temporary folder (removed by `stop`). */
  tmp: string;
  /** Temporal's address. */
  address: string;
  /** The bundled workflow code, for `workflowBundle: { code }`. */
  code: string;
  pool: Pool;
  fx: GitFixture;
  /** Stops every process it started and removes the folder. */
  stop(): Promise<void>;
}

export async function startBenchStack(opts: {
  /** Names the temporary folder and the repository. */
  name: string;
  log: (message: string) => void;
  poolMax: number;
}): Promise<BenchStack> {
  const sup = new Supervisor(opts.log);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `railyard-${opts.name}-`));
  const stop = async () => {
    await sup.stopAll();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    // As root the cluster runs as an unprivileged user (scripts/lib/postgres.ts), which must enter here.
    fs.chmodSync(tmp, 0o755);
    const port = await freePort();
    opts.log('starting the Temporal dev server...');
    await startDevServer(sup, { port, namespace: 'default', logFile: path.join(tmp, 'temporal.log') });
    Runtime.install({ logger: new DefaultLogger('WARN') });
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../workflows'),
      logger: new DefaultLogger('WARN'),
    });
    opts.log('starting PostgreSQL...');
    const pg = await startCluster(
      sup,
      { dataDir: path.join(tmp, 'pg'), port: await freePort(), ephemeral: true },
      'railyard',
    );
    await runMigrations(pg.url);
    const pool = createPool(pg.url, { max: opts.poolMax });
    const fx = await createRepoWithMain({
      host: 'github.com',
      owner: 'acme',
      name: `${opts.name}-${randomUUID().slice(0, 8)}`,
    });
    fx.commit('config', { '.railyard/merge-queue.json': JSON.stringify({ version: 1, command: 'true' }) });
    fx.pushBranch('main', fx.git('rev-parse', 'HEAD'));
    return { tmp, address: `127.0.0.1:${port}`, code, pool, fx, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
