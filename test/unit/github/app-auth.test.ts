/**
 * GitHub App authentication (github/app/app-auth.ts) against a loopback stand-in that checks
 * the App JWT like GitHub: tokens are cached, refreshed before they expire, minted once for concurrent
 * callers, and neither a token nor the JWT reaches a log line or an error message.
 */
import { inspect } from 'node:util';
import { createGitHubAppAuth, GitHubAuthError } from '../../../github/app/app-auth';
import { captureLogger } from '../../support/app';
import { startGitHubAppStub, type GitHubAppStub } from '../../support/github-app-stub';

let stub: GitHubAppStub;
beforeEach(async () => {
  stub = await startGitHubAppStub();
  stub.installations.set(7, { account: 'acme', repositories: ['acme/app'] });
  stub.installations.set(8, { account: 'globex', repositories: [] });
});
afterEach(() => stub.close());

const settings = () => ({ appId: stub.appId, privateKey: stub.privateKey, apiUrl: stub.apiUrl });

test('a token is minted on first use with a valid App JWT and reused while it is fresh', async () => {
  const auth = await createGitHubAppAuth(settings());
  const first = await auth.installationToken(7);
  expect(first.value()).toBe(stub.minted[0]!.token);
  expect(first.expiresAt).toEqual(stub.minted[0]!.expiresAt);
  expect(first.authorization()).toBe(`token ${first.value()}`);
  expect(await auth.installationToken(7)).toBe(first);
  expect(stub.minted).toHaveLength(1);
  // Another installation has its own token.
  expect((await auth.installationToken(8)).value()).not.toBe(first.value());
  expect(stub.minted.map((m) => m.installationId)).toEqual([7, 8]);
  expect(stub.requests.every((r) => r.path.startsWith('/app/installations/'))).toBe(true);
});

test('a token within the refresh margin of its expiry is replaced', async () => {
  let clock = Date.now();
  stub.tokenLifetimeMs = 10 * 60_000;
  const auth = await createGitHubAppAuth(settings(), { refreshMarginMs: 5 * 60_000, now: () => clock });
  const first = await auth.installationToken(7);
  clock += 4 * 60_000; // 6 minutes left: still fresh
  expect(await auth.installationToken(7)).toBe(first);
  clock += 2 * 60_000; // 4 minutes left: inside the margin
  const second = await auth.installationToken(7);
  expect(second.value()).not.toBe(first.value());
  expect(stub.minted).toHaveLength(2);
  // forget() drops a token GitHub refused.
  auth.forget(7);
  await auth.installationToken(7);
  expect(stub.minted).toHaveLength(3);
});

test('twenty concurrent callers share one mint', async () => {
  stub.mintDelayMs = 200;
  const auth = await createGitHubAppAuth(settings());
  const tokens = await Promise.all(Array.from({ length: 20 }, () => auth.installationToken(7)));
  expect(stub.minted).toHaveLength(1);
  expect(new Set(tokens.map((t) => t.value())).size).toBe(1);
});

test('a failed mint is a sentence without the JWT, is not cached, and the next call mints again', async () => {
  const { logger, log } = captureLogger();
  const auth = await createGitHubAppAuth(settings());
  stub.failMintsWith = 500; // the stand-in echoes the JWT in its error message
  const err = await auth.installationToken(7).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GitHubAuthError);
  expect((err as Error).message).toBe(
    'Could not get an access token for GitHub App installation 7: GitHub answered 500: Server Error [redacted].',
  );
  logger.error({ err }, 'mint failed');
  const missing = await auth.installationToken(99).catch((e: unknown) => e);
  expect((missing as Error).message).toBe(
    'Could not get an access token for GitHub App installation 99: GitHub answered 404: Not Found.',
  );
  logger.error({ err: missing }, 'mint failed');
  stub.failMintsWith = undefined;
  const token = await auth.installationToken(7);
  logger.info({ token }, 'minted');
  logger.info({ wrapped: { token } }, `token ${String(token)} ${inspect(token)} ${JSON.stringify(token)}`);
  expect(stub.jwts.length).toBeGreaterThanOrEqual(3);
  for (const secret of [...stub.jwts, ...stub.minted.map((m) => m.token)]) {
    expect(log.text()).not.toContain(secret);
    expect((err as Error).message + (missing as Error).message).not.toContain(secret);
    expect(inspect(err, { depth: 10 }) + inspect(missing, { depth: 10 })).not.toContain(secret);
  }
  expect(log.text()).toContain(`"installationId":7`);
});

test('GitHub out of reach is a sentence naming the installation', async () => {
  const auth = await createGitHubAppAuth({ ...settings(), apiUrl: 'http://127.0.0.1:1' });
  await expect(auth.installationToken(7)).rejects.toThrow(
    /^Could not get an access token for GitHub App installation 7: GitHub could not be reached( \(\w+\))?\.$/,
  );
  await expect(auth.installationToken(0)).rejects.toThrow('0 is not an installation id.');
});
