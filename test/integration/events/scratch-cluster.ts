/**
 * A PostgreSQL cluster of one test's own, which the test may stop and start again: the cluster of the
 * test run is shared by every test file and must stay up. Same binaries and settings as `npm test`'s
 * (scripts/lib/postgres.ts), data under TEST_TMP, a free port kept across restarts, migrated once (in
 * this process: a cluster of its own cannot copy the run's template database).
 *
 * `stop` is PostgreSQL's fast shutdown (SIGINT: open connections are closed, new ones refused), as the
 * chaos run's restart does; `start` brings the same data directory back on the same port.
 */
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../../scripts/lib/ports';
import { startCluster } from '../../../scripts/lib/postgres';
import { Supervisor, type Managed } from '../../../scripts/lib/supervisor';
import { runMigrations } from '../../../stores/migrate';
import { requireTestEnv } from '../../support/env';

export interface ScratchCluster {
  /** URL of its migrated `railyard` database. */
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  close(): Promise<void>;
}

async function stopManaged(m: Managed): Promise<void> {
  if (m.child.exitCode !== null || m.child.signalCode !== null) return;
  process.kill(-m.child.pid!, 'SIGINT');
  await m.exited;
}

export async function startScratchCluster(name: string): Promise<ScratchCluster> {
  const dir = fs.mkdtempSync(path.join(requireTestEnv('TEST_TMP'), `${name}-`));
  // PostgreSQL runs as an unprivileged user when we are root: it must reach its data dir.
  fs.chmodSync(dir, 0o755);
  const sup = new Supervisor(() => undefined);
  const options = {
    dataDir: path.join(dir, 'pg'),
    port: await freePort(),
    ephemeral: true,
    logFile: path.join(dir, 'postgres.log'),
  };
  const first = await startCluster(sup, options, 'railyard');
  let managed = first.managed;
  await runMigrations(first.url);
  return {
    url: first.url,
    stop: () => stopManaged(managed),
    async start() {
      managed = (await startCluster(sup, options, 'railyard')).managed;
    },
    async close() {
      await sup.stopAll(5_000);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
