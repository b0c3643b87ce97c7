/**
 * GitHub App authentication (docs/github.md): the App JWT and installation access tokens, minted with
 * `@octokit/auth-app` against the configured API (github.com or GitHub Enterprise Server).
 *
 * Invariants:
 * - A token is minted on demand, cached per installation and used until `refreshMarginMs` (default
 *   5 minutes) before its `expires_at`; after that the next caller mints a new one.
 * - At most one mint per installation is in flight: concurrent callers share it (single-flight). A
 *   failed mint is not cached; the next call tries again.
 * - Neither a token nor the JWT is ever written to a log, a URL, a file or an error message: a failed
 *   mint becomes a GitHubAuthError whose sentence names the installation and GitHub's status only, and
 *   a token is handed out as an `InstallationToken` whose JSON and inspection show no secret.
 * - Nothing is created at module load; `@octokit/*` (ESM-only) is loaded inside the factory.
 */
import { inspect } from 'node:util';
import type { GitHubAppSettings } from './config';

export const DEFAULT_REFRESH_MARGIN_MS = 5 * 60_000;

/** A failure to authenticate as the app or an installation; the message holds no credential. */
export class GitHubAuthError extends Error {
  override readonly name = 'GitHubAuthError';
  constructor(
    message: string,
    /** GitHub's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** An installation access token. Its secret is reachable only through `value()` / `authorization()`. */
export class InstallationToken {
  readonly #token: string;
  constructor(
    token: string,
    readonly installationId: number,
    readonly expiresAt: Date,
  ) {
    this.#token = token;
  }
  /** The raw token, for the one place that sends it. */
  value(): string {
    return this.#token;
  }
  /** `Authorization` header value for the REST API. */
  authorization(): string {
    return `token ${this.#token}`;
  }
  toJSON() {
    return { installationId: this.installationId, expiresAt: this.expiresAt.toISOString() };
  }
  toString() {
    return `[installation token of ${this.installationId}]`;
  }
  [inspect.custom]() {
    return this.toString();
  }
}

export interface GitHubAppAuth {
  /** A token of the installation valid for at least the refresh margin. */
  installationToken(installationId: number): Promise<InstallationToken>;
  /** A fresh App JWT (`Authorization: Bearer …`) for the app-level endpoints. */
  appAuthorization(): Promise<string>;
  /** Drops the cached token (after GitHub answered 401 with it). */
  forget(installationId: number): void;
}

export interface GitHubAppAuthOptions {
  refreshMarginMs?: number;
  /** Epoch milliseconds; tests pass a clock. */
  now?: () => number;
  /** Tokens kept at most (one per installation); past it the cache starts over. */
  maxCached?: number;
}

type AppSettings = Pick<GitHubAppSettings, 'appId' | 'privateKey' | 'apiUrl'>;

export async function createGitHubAppAuth(
  settings: AppSettings,
  opts: GitHubAppAuthOptions = {},
): Promise<GitHubAppAuth> {
  const [{ createAppAuth }, { request }] = await Promise.all([
    import('@octokit/auth-app'),
    import('@octokit/request'),
  ]);
  const margin = opts.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  const now = opts.now ?? Date.now;
  const maxCached = opts.maxCached ?? 10_000;
  const auth = createAppAuth({
    appId: settings.appId,
    privateKey: settings.privateKey,
    request: request.defaults({ baseUrl: settings.apiUrl, headers: { 'user-agent': 'railyard' } }),
    // The expiry-aware cache below is the only one, so no token is held twice.
    cache: { get: () => '', set: () => undefined },
  });
  const cached = new Map<number, InstallationToken>();
  const minting = new Map<number, Promise<InstallationToken>>();

  async function mint(installationId: number): Promise<InstallationToken> {
    let result: { token: string; expiresAt: string };
    try {
      result = await auth({ type: 'installation', installationId, refresh: true });
    } catch (err) {
      throw wrap(err, `Could not get an access token for GitHub App installation ${installationId}`);
    }
    const expiresAt = new Date(result.expiresAt);
    const token = new InstallationToken(result.token, installationId, expiresAt);
    if (cached.size >= maxCached) cached.clear();
    cached.set(installationId, token);
    return token;
  }

  return {
    installationToken(installationId) {
      if (!Number.isSafeInteger(installationId) || installationId < 1)
        return Promise.reject(new GitHubAuthError(`${String(installationId)} is not an installation id.`));
      const held = cached.get(installationId);
      if (held && held.expiresAt.getTime() - now() > margin) return Promise.resolve(held);
      const pending = minting.get(installationId);
      if (pending) return pending;
      const started = mint(installationId).finally(() => minting.delete(installationId));
      minting.set(installationId, started);
      return started;
    },
    async appAuthorization() {
      try {
        const { token } = await auth({ type: 'app' });
        return `Bearer ${token}`;
      } catch (err) {
        throw wrap(err, `Could not sign a JWT for GitHub App ${settings.appId}`);
      }
    },
    forget(installationId) {
      cached.delete(installationId);
    },
  };
}

/**
 * One sentence for a failed call: GitHub's status and its short reason, never the request (whose
 * headers carry the credential) and never the original error as a cause.
 */
export function wrap(err: unknown, what: string): GitHubAuthError {
  const status = (err as { status?: unknown }).status;
  const response = (err as { response?: { data?: unknown } }).response;
  // Octokit reports a request that got no answer as a 500 without a response.
  if (typeof status === 'number' && status > 0 && response !== undefined) {
    const data = response.data;
    const reason = (data as { message?: unknown } | undefined)?.message;
    const said = typeof reason === 'string' ? `: ${scrub(withDetails(reason, data))}` : '';
    return new GitHubAuthError(`${what}: GitHub answered ${status}${said}.`, status);
  }
  const cause = (err as { cause?: { code?: unknown; cause?: { code?: unknown } } }).cause;
  const code = cause?.code ?? cause?.cause?.code;
  return new GitHubAuthError(
    `${what}: GitHub could not be reached${typeof code === 'string' ? ` (${code})` : ''}.`,
  );
}

/**
 * A 422's "Validation Failed" says nothing by itself: GitHub puts why in `errors[].message` ("No commits
 * between main and x", "Draft pull requests are not supported in this repository."); the first few are
 * kept beside it (scrub bounds the whole).
 */
function withDetails(reason: string, data: unknown): string {
  const errors = (data as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) return reason;
  const details = errors
    .map((e) => (e as { message?: unknown } | null)?.message)
    .filter((m): m is string => typeof m === 'string' && m !== '')
    .slice(0, 3);
  return details.length > 0 ? `${reason} (${details.join('; ')})` : reason;
}

/** GitHub's reason, shortened, with anything shaped like a credential removed. */
function scrub(reason: string): string {
  return reason
    .replace(/\b(gh[a-z]_[A-Za-z0-9_]+|github_pat_[A-Za-z0-9_]+|eyJ[A-Za-z0-9_.-]+)/g, '[redacted]')
    .replace(/[\r\n]+/g, ' ')
    .slice(0, 200)
    .replace(/[.\s]+$/, '');
}
