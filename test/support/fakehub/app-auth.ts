/**
 * GitHub App authentication as GitHub does it: the App signs a JWT (RS256, `iss` = the App id, at most
 * 10 minutes between `iat` and `exp`) and trades it for installation tokens (`ghs_…`, one hour), which
 * then authenticate REST calls (`Authorization: token|Bearer`) and git (`Basic x-access-token:<token>`).
 *
 * Invariants: a token (and the webhook secret) is stored only in memory and never appears in a
 * message, log or error text; an expired token is refused like an unknown one ("Bad credentials").
 */
import { createSign, createVerify, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';

export interface FakeApp {
  id: number;
  slug: string;
  /** PKCS#1 PEM, what GitHub hands out and `@octokit/auth-app` takes. */
  privateKey: string;
  publicKey: KeyObject;
  /** The App's webhook secret: deliveries carry `X-Hub-Signature-256` = HMAC-SHA256 of the body under it. */
  webhookSecret: string;
  /** The App's OAuth client id and secret (user access tokens, users.ts). */
  clientId: string;
  clientSecret: string;
}

export interface IssuedToken {
  installationId: number;
  appId: number;
  expiresAt: Date;
}

export function createFakeApp(id = 4242, slug = 'railyard-test'): FakeApp {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    id,
    slug,
    privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicKey,
    webhookSecret: randomBytes(20).toString('hex'),
    clientId: `Iv23li${randomBytes(7).toString('hex')}`,
    clientSecret: randomBytes(20).toString('hex'),
  };
}

/**
 * Signs an App JWT as `@octokit/auth-app` does (iat 30 s in the past, exp 10 minutes later), for tests
 * that talk to the fake without Octokit; `claims` overrides any claim (expired or too long JWTs).
 */
export function signAppJwt(
  app: Pick<FakeApp, 'id' | 'privateKey'>,
  claims: Record<string, unknown> = {},
): string {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({ iat: now - 30, exp: now + 570, iss: app.id, ...claims })}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(app.privateKey).toString('base64url');
  return `${unsigned}.${signature}`;
}

export type JwtCheck = { ok: true; appId: number } | { ok: false; message: string };

const MAX_JWT_LIFETIME_SECONDS = 600;
const CLOCK_DRIFT_SECONDS = 60;

/** Verifies an App JWT the way GitHub documents it; messages are GitHub's. */
export function verifyAppJwt(jwt: string, app: FakeApp, nowMs = Date.now()): JwtCheck {
  const parts = jwt.split('.');
  if (parts.length !== 3) return { ok: false, message: 'A JSON web token could not be decoded' };
  const [head, body, signature] = parts as [string, string, string];
  let header: { alg?: unknown };
  let claims: { iss?: unknown; iat?: unknown; exp?: unknown };
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as typeof header;
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return { ok: false, message: 'A JSON web token could not be decoded' };
  }
  if (header.alg !== 'RS256') return { ok: false, message: 'A JSON web token could not be decoded' };
  const valid = createVerify('RSA-SHA256')
    .update(`${head}.${body}`)
    .verify(app.publicKey, Buffer.from(signature, 'base64url'));
  if (!valid) return { ok: false, message: 'A JSON web token could not be decoded' };
  if (String(claims.iss) !== String(app.id))
    return { ok: false, message: "'Issuer' claim ('iss') must be an Integer" };
  const now = Math.floor(nowMs / 1000);
  if (typeof claims.iat !== 'number' || claims.iat > now + CLOCK_DRIFT_SECONDS)
    return {
      ok: false,
      message: "'Issued at' claim ('iat') must be an Integer representing a time in the past",
    };
  if (typeof claims.exp !== 'number' || claims.exp <= now)
    return {
      ok: false,
      message:
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
    };
  if (
    claims.exp - claims.iat > MAX_JWT_LIFETIME_SECONDS + CLOCK_DRIFT_SECONDS ||
    claims.exp > now + MAX_JWT_LIFETIME_SECONDS
  )
    return { ok: false, message: "'Expiration time' claim ('exp') is too far in the future" };
  return { ok: true, appId: app.id };
}

export interface TokenStore {
  mint(installationId: number, appId: number, lifetimeSeconds: number): { token: string; expiresAt: Date };
  /** The live token's record, or null (unknown or expired). */
  check(token: string, nowMs?: number): IssuedToken | null;
  /** Every token issued so far expires now (the "token expiry" fault). */
  expireAll(): void;
  /** Every token issued so far, for tests that scan output for leaks. */
  issued(): string[];
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function createTokenStore(): TokenStore {
  const tokens = new Map<string, IssuedToken>();
  return {
    mint(installationId, appId, lifetimeSeconds) {
      const token = `ghs_${Array.from(randomBytes(36), (b) => ALPHABET[b % ALPHABET.length]).join('')}`;
      const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + lifetimeSeconds * 1000);
      tokens.set(token, { installationId, appId, expiresAt });
      return { token, expiresAt };
    },
    check(token, nowMs = Date.now()) {
      const found = tokens.get(token);
      return found && found.expiresAt.getTime() > nowMs ? found : null;
    },
    expireAll() {
      const past = new Date(Date.now() - 1000);
      for (const record of tokens.values()) record.expiresAt = past;
    },
    issued: () => [...tokens.keys()],
  };
}

/** The credential of an `Authorization` header: `token x`, `Bearer x` or `Basic base64(user:x)`. */
export function credentialOf(
  header: string | undefined,
): { scheme: 'bearer' | 'basic'; secret: string; user?: string } | null {
  if (!header) return null;
  const [scheme = '', value = ''] = header.trim().split(/\s+/, 2);
  const kind = scheme.toLowerCase();
  if ((kind === 'token' || kind === 'bearer') && value) return { scheme: 'bearer', secret: value };
  if (kind === 'basic' && value) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    return { scheme: 'basic', user: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
  }
  return null;
}
