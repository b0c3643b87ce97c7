/**
 * The private PostgreSQL clusters ask for a password (scripts/lib/pg-password.ts, issue 17): test
 * commands may share the host's network, so a connection to 127.0.0.1 without the password — or with a
 * wrong one — is refused, and one with the password kept next to the data folder (mode 0600) works.
 * A cluster created with trust before this rule (a developer's existing .data) is secured on its next
 * start and keeps its data; a start interrupted after the password was chosen resumes with the same one.
 * The password appears in no log. Real clusters under TEST_TMP, stopped and removed at the end.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { passwordFile } from '../../../scripts/lib/pg-password';
import { freePort } from '../../../scripts/lib/ports';
import {
  asUser,
  findPgBinDir,
  initCluster,
  runAsUser,
  startCluster,
  type ClusterOptions,
  type StartedCluster,
} from '../../../scripts/lib/postgres';
import { Supervisor } from '../../../scripts/lib/supervisor';
import { requireTestEnv } from '../../support/env';

jest.setTimeout(60_000);

let dir: string;
let sup: Supervisor;
let said: string[];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(requireTestEnv('TEST_TMP'), 'pg-password-'));
  fs.chmodSync(dir, 0o755); // the PostgreSQL user (when we are root) must reach its data dir
  said = [];
  sup = new Supervisor((m) => said.push(m));
});
afterEach(async () => {
  await sup.stopAll(5_000);
  fs.rmSync(dir, { recursive: true, force: true });
});

async function options(): Promise<ClusterOptions> {
  return {
    dataDir: path.join(dir, 'pg'),
    port: await freePort(),
    ephemeral: true,
    logFile: path.join(dir, 'postgres.log'),
  };
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** psql without any password, never prompting: what a test command without the file would try. */
function psqlWithoutPassword(port: number): { status: number | null; stderr: string } {
  const done = spawnSync(
    path.join(findPgBinDir(), 'psql'),
    ['-w', '-h', '127.0.0.1', '-p', String(port), '-U', 'railyard', '-d', 'postgres', '-c', 'SELECT 1'],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin' } },
  );
  return { status: done.status, stderr: done.stderr };
}

async function expectOnlyThePasswordLetsIn(pg: StartedCluster, port: number, password: string) {
  expect(await query(pg.adminUrl, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  const without = psqlWithoutPassword(port);
  expect(without.status).not.toBe(0);
  expect(without.stderr).toMatch(/no password supplied|password authentication failed/);
  const wrong = new URL(pg.adminUrl);
  wrong.password = `${password.slice(0, -1)}x`;
  await expect(query(wrong.toString(), 'SELECT 1')).rejects.toMatchObject({ code: '28P01' });
}

function expectNotLogged(password: string, opts: ClusterOptions) {
  expect(said.join('\n')).not.toContain(password);
  expect(fs.readFileSync(opts.logFile!, 'utf8')).not.toContain(password);
}

it('a new cluster has a random password in a mode-0600 file beside its data; only it lets in', async () => {
  const opts = await options();
  const pg = await startCluster(sup, opts, 'railyard');
  const file = passwordFile(opts.dataDir);
  expect(file).toBe(path.join(dir, 'pg.password'));
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  const password = fs.readFileSync(file, 'utf8').trim();
  expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(new URL(pg.url).password).toBe(password);
  expect(new URL(pg.url).pathname).toBe('/railyard');
  expect(fs.readFileSync(path.join(opts.dataDir, 'pg_hba.conf'), 'utf8')).not.toMatch(/trust/);
  await expectOnlyThePasswordLetsIn(pg, opts.port, password);
  expectNotLogged(password, opts);
});

it('the same password after a restart; a second cluster gets another one', async () => {
  const opts = await options();
  const first = await startCluster(sup, opts, 'railyard');
  await sup.stopAll(5_000);
  sup = new Supervisor((m) => said.push(m));
  const again = await startCluster(sup, opts, 'railyard');
  expect(again.url).toBe(first.url);
  expect(await query(again.url, 'SELECT current_database() AS db')).toEqual([{ db: 'railyard' }]);
  const other = await startCluster(
    sup,
    { dataDir: path.join(dir, 'pg2'), port: await freePort(), ephemeral: true },
    'railyard',
  );
  expect(new URL(other.url).password).not.toBe(new URL(first.url).password);
});

it('a cluster created with trust (an existing .data) is secured on its next start and keeps its data', async () => {
  const opts = await options();
  // The cluster as earlier versions made it: initdb with trust, pg_hba.conf trusting loopback.
  initCluster(opts);
  fs.writeFileSync(
    path.join(opts.dataDir, 'pg_hba.conf'),
    'host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n',
  );
  const [cmd, args] = asUser(runAsUser(), path.join(findPgBinDir(), 'postgres'), [
    '--single',
    '-D',
    opts.dataDir,
    'postgres',
  ]);
  const made = spawnSync(cmd, args, {
    input: 'CREATE TABLE kept (n int);\nINSERT INTO kept VALUES (42);\n',
    encoding: 'utf8',
    cwd: '/',
  });
  expect(made.stderr).not.toMatch(/ERROR|FATAL/);
  expect(fs.existsSync(passwordFile(opts.dataDir))).toBe(false);

  const pg = await startCluster(sup, opts, 'railyard');
  const password = fs.readFileSync(passwordFile(opts.dataDir), 'utf8').trim();
  expect(fs.statSync(passwordFile(opts.dataDir)).mode & 0o777).toBe(0o600);
  expect(await query(pg.adminUrl, 'SELECT n FROM kept')).toEqual([{ n: 42 }]);
  await expectOnlyThePasswordLetsIn(pg, opts.port, password);
  expectNotLogged(password, opts);
});

it('a start interrupted after choosing the password resumes with the same one', async () => {
  const opts = await options();
  initCluster(opts);
  const chosen = 'A'.repeat(20) + '_interrupted-start';
  fs.writeFileSync(`${passwordFile(opts.dataDir)}.new`, `${chosen}\n`, { mode: 0o600 });
  const pg = await startCluster(sup, opts, 'railyard');
  expect(new URL(pg.url).password).toBe(chosen);
  expect(fs.existsSync(`${passwordFile(opts.dataDir)}.new`)).toBe(false);
  expect(fs.readFileSync(passwordFile(opts.dataDir), 'utf8').trim()).toBe(chosen);
  await expectOnlyThePasswordLetsIn(pg, opts.port, chosen);
});

it('a password file that is not ours stops the start and says which file, without its content', async () => {
  const opts = await options();
  fs.writeFileSync(passwordFile(opts.dataDir), 'not a password: secret-looking text\n', { mode: 0o644 });
  const started = startCluster(sup, opts, 'railyard');
  await expect(started).rejects.toThrow(
    `${passwordFile(opts.dataDir)} does not hold a railyard PostgreSQL password`,
  );
  await expect(started).rejects.not.toThrow(/secret-looking/);
});
