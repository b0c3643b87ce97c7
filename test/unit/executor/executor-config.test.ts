/**
 * The executor's configuration (worker/executor-config.ts) and sandbox choice (worker/sandbox-settings.ts):
 * it refuses the control plane's credentials and Temporal's address, needs its own credential, sends it
 * in clear only to loopback or a private single-label host, and refuses to run unsandboxed unless told,
 * or to run a network-on test run on its own network where that network cannot be isolated (issue 24).
 */
import { ConfigError } from '../../../platform/env';
import { FORBIDDEN, loadExecutorConfig } from '../../../worker/executor-config';
import { sandboxOf } from '../../../worker/sandbox-settings';
import { buildExecutorHealth, networkHealth } from '../../../worker/executor-health';
import { networkKind, networkRefusal } from '../../../executor/sandbox';
import { createJobRunner } from '../../../executor/run-job';
import type { ClaimedJob } from '../../../executor/protocol';

const TOKEN = `rye_${'A'.repeat(43)}`;
const withToken = (env: Record<string, string> = {}) =>
  loadExecutorConfig({ RAILYARD_EXECUTOR_TOKEN: TOKEN, ...env });

test.each(FORBIDDEN)('an executor given %s refuses to start, naming it', (name) => {
  expect(() => withToken({ [name]: 'x' })).toThrow(ConfigError);
  expect(() => withToken({ [name]: 'x' })).toThrow(new RegExp(`${name} is set`));
});

test("TEMPORAL_ADDRESS, Temporal's API key and client key, and the GitHub key file are among the refused", () => {
  expect(FORBIDDEN).toEqual(
    expect.arrayContaining([
      'TEMPORAL_ADDRESS',
      'TEMPORAL_API_KEY',
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
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

describe('a network-on run this executor cannot isolate (no pasta or ip, issue 24)', () => {
  const IP_MISSING =
    "ip is not installed (Debian package iproute2): the run's network cannot be limited to public addresses";
  const noIp = () => ({
    kind: 'available' as const,
    version: 'bubblewrap 0.8.0',
    isolatedNetwork: { kind: 'unavailable' as const, reason: IP_MISSING },
    limits: { kind: 'per-process' as const, reason: 'cgroup v1' },
  });
  const job = (network: boolean): ClaimedJob => ({
    id: '00000000-0000-4000-8000-000000000001',
    attempt: 1,
    run: {
      runId: 'refused-1',
      repo: { host: 'local', owner: 'acme', name: 'app' },
      branchName: 'main',
      headSha: 'a'.repeat(40),
      command: 'true',
      timeoutMs: 1_000,
      network,
    },
  });

  test('is refused by default: said at start, on /readyz, and in the run’s failure, naming the tool', async () => {
    const warnings: string[] = [];
    const sandbox = sandboxOf(withToken(), noIp, (m) => warnings.push(m));
    expect(sandbox).toMatchObject({
      network: true,
      unisolatedNetwork: { kind: 'refused', reason: IP_MISSING },
    });
    expect(sandbox?.pasta).toBeUndefined();
    expect(warnings.join('\n')).toContain(
      `test runs with the network on are REFUSED: their network cannot be isolated here: ${IP_MISSING}`,
    );
    expect(networkHealth(sandbox)).toEqual({ network: 'refused', networkReason: IP_MISSING });
    const app = buildExecutorHealth({
      api: 'https://railyard.example',
      name: 'e1',
      slots: 1,
      sandbox: 'bubblewrap 0.8.0',
      ...networkHealth(sandbox),
      limits: { kind: 'per-process', reason: 'cgroup v1' },
      running: () => true,
    });
    const body = (await app.inject({ url: '/readyz' })).json<Record<string, unknown>>();
    await app.close();
    expect(body).toMatchObject({ network: 'refused', networkReason: IP_MISSING });
    // Refused before its content is fetched: the API's address here answers nothing at all.
    const runJob = createJobRunner({
      apiUrl: 'http://127.0.0.1:9',
      credential: TOKEN,
      workRoot: '/nonexistent/railyard-work',
      logRoot: '/nonexistent/railyard-logs',
      sandbox,
      maxContentBytes: 1024,
    });
    const outcome = await runJob(job(true), new AbortController().signal);
    expect(outcome).toEqual({
      kind: 'failure',
      failure: { kind: 'sandbox_setup_failed', message: expect.stringContaining(IP_MISSING) as string },
    });
    expect(outcome.kind === 'failure' && outcome.failure.message).toMatch(
      /it is refused rather than run on the executor's network.*RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow/,
    );
  });

  test('RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow gives it this machine’s network, said at start and on /readyz', () => {
    const warnings: string[] = [];
    const sandbox = sandboxOf(withToken({ RAILYARD_SANDBOX_NETWORK_UNISOLATED: 'allow' }), noIp, (m) =>
      warnings.push(m),
    );
    expect(sandbox).toMatchObject({ network: true, unisolatedNetwork: { kind: 'host', reason: IP_MISSING } });
    expect(networkKind(sandbox!)).toBe('host');
    expect(networkRefusal(sandbox!)).toBeNull();
    expect(warnings.join('\n')).toContain(
      "test runs with the network on share this machine's network, its loopback services, private ranges and cloud metadata included (RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow)",
    );
    expect(networkHealth(sandbox)).toEqual({ network: 'shared', networkReason: IP_MISSING });
  });

  test('the setting is refuse or allow, its name in the error; the network off is never refused', () => {
    expect(withToken().RAILYARD_SANDBOX_NETWORK_UNISOLATED).toBe('refuse');
    expect(() => withToken({ RAILYARD_SANDBOX_NETWORK_UNISOLATED: '1' })).toThrow(
      /RAILYARD_SANDBOX_NETWORK_UNISOLATED="1" is invalid: .*"refuse"\|"allow"/,
    );
    const warnings: string[] = [];
    const off = sandboxOf(withToken({ RAILYARD_SANDBOX_NETWORK: 'off' }), noIp, (m) => warnings.push(m));
    expect(networkHealth(off)).toEqual({ network: 'off' });
    expect(warnings.join('\n')).not.toMatch(/REFUSED|share this machine's network/);
    expect(
      networkHealth(sandboxOf(withToken({ RAILYARD_EXECUTOR_UNSANDBOXED: '1' }), unavailable, () => {})),
    ).toEqual({ network: 'shared' });
  });
});
