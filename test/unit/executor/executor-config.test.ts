/**
 * The executor's configuration (worker/executor-config.ts) and sandbox choice (worker/sandbox-settings.ts):
 * it refuses the control plane's credentials and Temporal's address, needs its own credential, sends it
 * in clear only to loopback or a private single-label host, and refuses to run unsandboxed unless told.
 */
import { ConfigError } from '../../../platform/env';
import { FORBIDDEN, loadExecutorConfig } from '../../../worker/executor-config';
import { sandboxOf } from '../../../worker/sandbox-settings';

const TOKEN = `rye_${'A'.repeat(43)}`;
const withToken = (env: Record<string, string> = {}) =>
  loadExecutorConfig({ RAILYARD_EXECUTOR_TOKEN: TOKEN, ...env });

test.each(FORBIDDEN)('an executor given %s refuses to start, naming it', (name) => {
  expect(() => withToken({ [name]: 'x' })).toThrow(ConfigError);
  expect(() => withToken({ [name]: 'x' })).toThrow(new RegExp(`${name} is set`));
});

test('TEMPORAL_ADDRESS and the GitHub key file are among the refused', () => {
  expect(FORBIDDEN).toEqual(
    expect.arrayContaining([
      'TEMPORAL_ADDRESS',
      'RAILYARD_GITHUB_PRIVATE_KEY_FILE',
      'RAILYARD_GITHUB_CLIENT_SECRET',
    ]),
  );
});

test('the executor credential is required and must look like one; its value is never echoed', () => {
  expect(() => loadExecutorConfig({})).toThrow(/RAILYARD_EXECUTOR_TOKEN is required/);
  expect(() => loadExecutorConfig({ RAILYARD_EXECUTOR_TOKEN: 'ry_someapikey' })).toThrow(
    /RAILYARD_EXECUTOR_TOKEN is invalid: must be an executor credential/,
  );
  expect(() => loadExecutorConfig({ RAILYARD_EXECUTOR_TOKEN: 'ry_someapikey' })).not.toThrow(/ry_someapikey/);
});

test('the API URL is https, or http to loopback or a single-label private host only', () => {
  for (const ok of [
    'https://railyard.example.com',
    'http://127.0.0.1:8080',
    'http://localhost:8080',
    'http://api:8080',
    'http://[::1]:8080',
  ])
    expect(withToken({ RAILYARD_EXECUTOR_API_URL: ok }).RAILYARD_EXECUTOR_API_URL).toBe(ok);
  for (const clear of ['http://railyard.example.com', 'http://10.0.0.5:8080'])
    expect(() => withToken({ RAILYARD_EXECUTOR_API_URL: clear })).toThrow(/must be https unless/);
});

test('defaults: 4 slots, the API on loopback', () => {
  const config = withToken();
  expect(config.RAILYARD_EXECUTOR_SLOTS).toBe(4);
  expect(config.RAILYARD_EXECUTOR_API_URL).toBe('http://127.0.0.1:8080');
  expect(config.RAILYARD_SANDBOX_READ_ONLY_PATHS).toBeUndefined();
});

test('read-only paths are absolute, without .., at most 32', () => {
  expect(
    withToken({ RAILYARD_SANDBOX_READ_ONLY_PATHS: '/opt/jdk, /opt/go' }).RAILYARD_SANDBOX_READ_ONLY_PATHS,
  ).toEqual(['/opt/jdk', '/opt/go']);
  expect(() => withToken({ RAILYARD_SANDBOX_READ_ONLY_PATHS: 'opt/jdk' })).toThrow(
    /RAILYARD_SANDBOX_READ_ONLY_PATHS/,
  );
  expect(() => withToken({ RAILYARD_SANDBOX_READ_ONLY_PATHS: '/opt/../etc' })).toThrow(/without \.\./);
});

const unavailable = () => ({ kind: 'unavailable' as const, reason: 'no user namespaces' });

test('without bwrap the executor refuses to start unless RAILYARD_EXECUTOR_UNSANDBOXED says so', () => {
  const config = withToken();
  expect(() => sandboxOf(config, unavailable)).toThrow(/cannot be sandboxed here: no user namespaces/);
  const warnings: string[] = [];
  const unsafe = withToken({ RAILYARD_EXECUTOR_UNSANDBOXED: '1' });
  expect(sandboxOf(unsafe, unavailable, (m) => warnings.push(m))).toBeNull();
  expect(warnings.join()).toMatch(/UNSANDBOXED/);
});

test('with bwrap, the settings become the sandbox', () => {
  const config = withToken({
    RAILYARD_SANDBOX_NETWORK: 'off',
    RAILYARD_SANDBOX_READ_ONLY_PATHS: '/opt/jdk',
  });
  const warnings: string[] = [];
  const sandbox = sandboxOf(
    config,
    () => ({
      kind: 'available',
      version: 'bubblewrap 0.8.0',
      isolatedNetwork: { kind: 'unavailable', reason: 'pasta is not installed' },
    }),
    (m) => warnings.push(m),
  );
  expect(sandbox).toMatchObject({ bwrap: 'bwrap', network: false, readOnlyPaths: ['/opt/jdk'] });
});
