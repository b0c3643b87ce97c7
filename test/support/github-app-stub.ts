/**
 * A small stand-in for the GitHub App endpoints railyard's auth and linking use, on a real loopback
 * HTTP server: it checks the App JWT (RS256 over a key generated here, `iss`, `iat`/`exp` at most ten
 * minutes apart) and installation tokens the way GitHub does, and counts what it minted.
 *
 *   POST /app/installations/{id}/access_tokens  (JWT)   201 {token, expires_at}
 *   GET  /app/installations/{id}                (JWT)   200 {id, account, suspended_at} / 404
 *   GET  /installation/repositories             (token) 200 {total_count, repositories} (paginated)
 *
 * It is not the full fake GitHub (test/support/fakehub); it only covers installations.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';

export interface StubInstallation {
  account: string;
  repositories: string[];
  suspendedAt?: string;
}

export interface GitHubAppStub {
  appId: number;
  /** PKCS#1 PEM, as GitHub hands out. */
  privateKey: string;
  apiUrl: string;
  installations: Map<number, StubInstallation>;
  /** Every token minted, in order, with its installation. */
  minted: { installationId: number; token: string; expiresAt: Date }[];
  /** Every JWT seen. */
  jwts: string[];
  requests: { method: string; path: string }[];
  /** Lifetime of minted tokens (GitHub: one hour). */
  tokenLifetimeMs: number;
  /** Delay before answering a mint, to hold concurrent callers in flight. */
  mintDelayMs: number;
  /** Answer every mint with this status (e.g. 500) when set. */
  failMintsWith?: number;
  close(): Promise<void>;
}

export function testAppKey(): { privateKey: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), publicKey };
}

export async function startGitHubAppStub(
  opts: { appId?: number; now?: () => number } = {},
): Promise<GitHubAppStub> {
  const { privateKey, publicKey } = testAppKey();
  const now = opts.now ?? Date.now;
  const tokens = new Map<string, { installationId: number; expiresAt: Date }>();
  const stub: GitHubAppStub = {
    appId: opts.appId ?? 4242,
    privateKey,
    apiUrl: '',
    installations: new Map(),
    minted: [],
    jwts: [],
    requests: [],
    tokenLifetimeMs: 60 * 60_000,
    mintDelayMs: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };

  function jwtProblem(req: IncomingMessage): string | null {
    const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    if (!m) return 'A JSON web token could not be decoded';
    const jwt = m[1]!;
    stub.jwts.push(jwt);
    const [h, p, s] = jwt.split('.');
    if (!h || !p || !s) return 'A JSON web token could not be decoded';
    const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string };
    if (header.alg !== 'RS256') return "'alg' must be RS256";
    if (!verify('RSA-SHA256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64url')))
      return 'A JSON web token could not be decoded';
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as {
      iss?: unknown;
      iat?: number;
      exp?: number;
    };
    if (String(claims.iss) !== String(stub.appId)) return "'Issuer' claim ('iss') must be the app id";
    const t = now() / 1000;
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') return 'Missing iat or exp';
    if (claims.exp < t) return "'Expiration time' claim ('exp') is too far in the past";
    if (claims.exp - claims.iat > 600 + 60) return "'Expiration time' claim ('exp') is too far in the future";
    return null;
  }

  function tokenOf(req: IncomingMessage) {
    const m = /^(?:token|Bearer) (.+)$/i.exec(req.headers.authorization ?? '');
    const held = m ? tokens.get(m[1]!) : undefined;
    return held && held.expiresAt.getTime() > now() ? held : null;
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    stub.requests.push({ method: req.method ?? '', path: url.pathname });
    req.resume();
    req.on('end', () => {
      void (async () => {
        let m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname);
        if (m && req.method === 'POST') {
          const problem = jwtProblem(req);
          if (problem) return send(res, 401, { message: problem });
          const id = Number(m[1]);
          const installation = stub.installations.get(id);
          if (!installation) return send(res, 404, { message: 'Not Found' });
          if (stub.mintDelayMs > 0) await new Promise((r) => setTimeout(r, stub.mintDelayMs));
          if (stub.failMintsWith)
            return send(res, stub.failMintsWith, { message: `Server Error ${stub.jwts.at(-1) ?? ''}` });
          const token = `ghs_${stub.appId}_${randomBytes(24).toString('base64url')}`;
          const expiresAt = new Date(Math.floor((now() + stub.tokenLifetimeMs) / 1000) * 1000);
          tokens.set(token, { installationId: id, expiresAt });
          stub.minted.push({ installationId: id, token, expiresAt });
          return send(res, 201, {
            token,
            expires_at: expiresAt.toISOString().replace('.000', ''),
            permissions: { contents: 'write', pull_requests: 'write' },
            repository_selection: 'selected',
          });
        }
        m = /^\/app\/installations\/(\d+)$/.exec(url.pathname);
        if (m && req.method === 'GET') {
          const problem = jwtProblem(req);
          if (problem) return send(res, 401, { message: problem });
          const id = Number(m[1]);
          const installation = stub.installations.get(id);
          if (!installation) return send(res, 404, { message: 'Not Found' });
          return send(res, 200, {
            id,
            account: { login: installation.account, id: id * 10, type: 'Organization' },
            app_id: stub.appId,
            target_type: 'Organization',
            suspended_at: installation.suspendedAt ?? null,
          });
        }
        if (url.pathname === '/installation/repositories' && req.method === 'GET') {
          const held = tokenOf(req);
          if (!held) return send(res, 401, { message: 'Bad credentials' });
          const all = stub.installations.get(held.installationId)?.repositories ?? [];
          const perPage = Number(url.searchParams.get('per_page') ?? 30);
          const page = Number(url.searchParams.get('page') ?? 1);
          const slice = all.slice((page - 1) * perPage, page * perPage);
          return send(res, 200, {
            total_count: all.length,
            repositories: slice.map((full) => {
              const [owner, name] = full.split('/') as [string, string];
              return { name, full_name: full, owner: { login: owner } };
            }),
          });
        }
        send(res, 404, { message: 'Not Found' });
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}
