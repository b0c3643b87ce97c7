/**
 * Git smart HTTP for fakehub: `git http-backend` (found through `git --exec-path`) run as a CGI program
 * per request, behind GitHub's authentication (Basic `x-access-token:<installation token>`), plus the
 * pre-receive and post-receive hooks that hand ref updates to the fake (protection, PR heads, merges).
 *
 * Invariants:
 * - No credential, no valid token, or a token of an installation that does not cover the repository:
 *   401 with `WWW-Authenticate`, before git runs. The token never reaches git (only `REMOTE_USER` =
 *   `x-access-token`) nor any log or message.
 * - The environment of http-backend is built from scratch: no user or system git config; the hooks
 *   learn who pushed from `FAKEHUB_ACTOR` and reach the fake through a loopback URL with a random secret.
 */
import { execFile } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { devNull } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BinaryBroker } from '../binary-broker';

export async function findHttpBackend(): Promise<string> {
  const { stdout } = await promisify(execFile)('git', ['--exec-path'], { encoding: 'utf8' });
  return join(stdout.trim(), 'git-http-backend');
}

export interface CgiRequest {
  method: string;
  /** `/<owner>/<name>.git/<service path>` relative to the project root. */
  pathInfo: string;
  query: string;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  gitProtocol: string | undefined;
  body: Buffer | undefined;
  /** Extra variables for the hooks (FAKEHUB_ACTOR). */
  env: Record<string, string>;
}

export interface CgiResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Runs http-backend once (started by `broker`, not by this process) and parses its CGI answer. */
export async function runHttpBackend(
  broker: BinaryBroker,
  backend: string,
  projectRoot: string,
  request: CgiRequest,
): Promise<CgiResponse> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: devNull,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    LC_ALL: 'C',
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    GATEWAY_INTERFACE: 'CGI/1.1',
    REQUEST_METHOD: request.method,
    PATH_INFO: request.pathInfo,
    QUERY_STRING: request.query,
    REMOTE_USER: 'x-access-token',
    REMOTE_ADDR: '127.0.0.1',
    ...request.env,
  };
  if (request.contentType) env.CONTENT_TYPE = request.contentType;
  if (request.contentEncoding) env.HTTP_CONTENT_ENCODING = request.contentEncoding;
  if (request.gitProtocol) env.GIT_PROTOCOL = request.gitProtocol;
  if (request.body) env.CONTENT_LENGTH = String(request.body.length);
  const {
    code,
    stdout: raw,
    stderr,
  } = await broker.run({
    file: backend,
    args: [],
    env,
    input: request.body ?? Buffer.alloc(0),
  });
  let split = raw.indexOf('\r\n\r\n');
  let gap = 4;
  if (split < 0) {
    split = raw.indexOf('\n\n');
    gap = 2;
  }
  if (split < 0)
    throw new Error(`git http-backend exited ${code} without headers: ${stderr.toString().trim()}`);
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of raw.subarray(0, split).toString('latin1').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'status') status = Number.parseInt(value, 10) || 500;
    else headers[name] = value;
  }
  return { status, headers, body: raw.subarray(split + gap) };
}

/**
 * Writes the hooks of one bare repository. They are small bash programs (a Node program each would cost
 * a Node start per hook, two per push, across every GitHub story): pre-receive computes whether each
 * update is a fast-forward (inside git's quarantine, where the new objects are) and asks the fake;
 * post-receive tells the fake what moved. Both speak HTTP/1.0 to the fake's loopback address through
 * bash's /dev/tcp, ask for the plain-text answer (`ok` or `refused`, then GitHub's lines), and print the
 * lines to the pusher (as `remote:`).
 */
export async function installHooks(
  bare: string,
  hookUrl: string,
  secret: string,
  repository: string,
): Promise<void> {
  const url = new URL(hookUrl);
  const body = await readFile(join(__dirname, 'hook.sh'), 'utf8');
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  for (const phase of ['pre-receive', 'post-receive'] as const) {
    const settings = { phase, host: url.hostname, port: url.port, path: url.pathname, secret, repository };
    const source = [
      '#!/usr/bin/env bash',
      ...Object.entries(settings).map(([name, value]) => `${name}=${quote(value)}`),
      body,
    ].join('\n');
    const path = join(bare, 'hooks', phase);
    await writeFile(path, source);
    await chmod(path, 0o755);
  }
}
