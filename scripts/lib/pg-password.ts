/**
 * Password authentication of the private PostgreSQL clusters of `npm start` and `npm test` (issue 17).
 * Test commands run in a sandbox that may share the host's network, so a cluster listening on
 * 127.0.0.1 must not trust whoever connects: its superuser has a random password, and pg_hba.conf
 * allows loopback host connections with scram-sha-256 only.
 *
 * Rule: the password lives in `<data dir>.password` — next to the data folder, not in it (the data
 * folder belongs to the PostgreSQL user when we are root), mode 0600, owned by whoever runs npm start
 * or npm test. The sandbox never sees either folder.
 *
 * Invariants:
 *  - the server never runs with trust: a new cluster (initdb leaves trust) and a cluster created with
 *    trust before this rule (a developer's existing .data) are both secured in single-user mode
 *    (`postgres --single`, no socket at all) before the server starts;
 *  - the password never leaves this process in clear: PostgreSQL receives its SCRAM-SHA-256 verifier,
 *    so neither a server log nor an error quoting the statement can show it;
 *  - `<file>.new` holds a password until the role has it, then is renamed: a crash in between leaves a
 *    retry with the same password, never a password file the role does not match.
 */
import { spawnSync } from 'node:child_process';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Loopback only, and only with the password. */
export const PG_HBA = 'host all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\n';

export function passwordFile(dataDir: string): string {
  return path.join(path.dirname(dataDir), `${path.basename(dataDir)}.password`);
}

/**
 * The verifier PostgreSQL stores for `password` (RFC 5802/7677 as PostgreSQL spells it); given as the
 * password of ALTER ROLE it is stored as is. Our passwords are base64url, which SASLprep leaves alone.
 */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const hmac = (text: string) => createHmac('sha256', salted).update(text).digest();
  const storedKey = createHash('sha256').update(hmac('Client Key')).digest();
  const serverKey = hmac('Server Key');
  const b64 = (b: Buffer) => b.toString('base64');
  return `SCRAM-SHA-256$${iterations}:${b64(salt)}$${b64(storedKey)}:${b64(serverKey)}`;
}

export interface SecureOptions {
  dataDir: string;
  /** The superuser whose password is set. */
  role: string;
  /** `postgres --single` as the cluster's user: [command, args] for the given postgres arguments. */
  singleUser: (args: string[]) => [string, string[]];
  /** Where the cluster's user must be able to write pg_hba.conf: chown it to them (root only). */
  chownTo?: { uid: number; gid: number };
}

/**
 * The cluster's password, setting one first when it has none (see the invariants above). The server
 * must not be running. pg_hba.conf is rewritten every time, so a cluster never stays on trust.
 */
export function secureCluster(opts: SecureOptions): string {
  const file = passwordFile(opts.dataDir);
  const saved = readPassword(file);
  if (saved !== undefined) {
    writeHba(opts);
    return saved;
  }
  const pending = `${file}.new`;
  let password = readPassword(pending);
  if (password === undefined) {
    password = randomBytes(32).toString('base64url');
    fs.writeFileSync(pending, `${password}\n`, { mode: 0o600 });
  }
  setRolePassword(opts, scramVerifier(password));
  writeHba(opts);
  fs.renameSync(pending, file);
  return password;
}

function readPassword(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // Mode 0600 whatever the umask was when an older version or a person wrote it.
  fs.chmodSync(file, 0o600);
  if (!/^[A-Za-z0-9_-]{16,200}$/.test(text))
    throw new Error(`${file} does not hold a railyard PostgreSQL password; remove it to set a new one.`);
  return text;
}

function writeHba(opts: SecureOptions): void {
  const hba = path.join(opts.dataDir, 'pg_hba.conf');
  fs.writeFileSync(hba, PG_HBA, { mode: 0o600 });
  if (opts.chownTo) fs.chownSync(hba, opts.chownTo.uid, opts.chownTo.gid);
}

function setRolePassword(opts: SecureOptions, verifier: string): void {
  const role = opts.role.replace(/"/g, '');
  const [cmd, args] = opts.singleUser([
    '--single',
    '-D',
    opts.dataDir,
    '-c',
    'listen_addresses=',
    '-c',
    'unix_socket_directories=',
    'postgres',
  ]);
  // Single-user mode exits 0 after a failed statement: its ERROR line on stderr is the only sign.
  const done = spawnSync(cmd, args, {
    input: `ALTER ROLE "${role}" PASSWORD '${verifier}';\n`,
    stdio: ['pipe', 'ignore', 'pipe'],
    cwd: '/',
    encoding: 'utf8',
    timeout: 60_000,
  });
  const stderr = done.stderr ?? '';
  if (done.error || done.status !== 0 || /^(ERROR|FATAL|PANIC):/m.test(stderr))
    throw new Error(
      `Could not set the PostgreSQL password of ${opts.dataDir}: ${firstProblem(done.error ? String(done.error) : stderr)}.`,
    );
}

/** The first line naming an error, without the statement (which holds the verifier). */
function firstProblem(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => !l.includes('SCRAM-SHA-256$'));
  return (
    lines.find((l) => /ERROR|FATAL|PANIC/.test(l)) ??
    lines.find((l) => l.trim()) ??
    'no output'
  ).trim();
}
