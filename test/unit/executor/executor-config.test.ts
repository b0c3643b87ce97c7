/**
 * The executor's configuration (worker/executor-config.ts) and sandbox choice (worker/sandbox-settings.ts):
 * it refuses the control plane's credentials and refuses to run unsandboxed unless told.
 */
import { ConfigError } from '../../../platform/env';
import { FORBIDDEN, loadExecutorConfig } from '../../../worker/executor-config';
import { sandboxOf } from '../../../worker/sandbox-settings';

test.each(FORBIDDEN)('an executor given %s refuses to start, naming it', (name) => {
  expect(() => loadExecutorConfig({ [name]: 'x' })).toThrow(ConfigError);
  expect(() => loadExecutorConfig({ [name]: 'x' })).toThrow(new RegExp(`${name} is set`));
});

test('defaults: the task queue railyard (served as railyard-ci), 4 slots, the API on loopback', () => {
  const config = loadExecutorConfig({});
  expect(config.RAILYARD_TASK_QUEUE).toBe('railyard');
  expect(config.RAILYARD_EXECUTOR_SLOTS).toBe(4);
  expect(config.RAILYARD_EXECUTOR_API_URL).toBe('http://127.0.0.1:8080');
  expect(config.RAILYARD_SANDBOX_READ_ONLY_PATHS).toBeUndefined();
});

test('read-only paths are absolute, without .., at most 32', () => {
  expect(
    loadExecutorConfig({ RAILYARD_SANDBOX_READ_ONLY_PATHS: '/opt/jdk, /opt/go' })
      .RAILYARD_SANDBOX_READ_ONLY_PATHS,
  ).toEqual(['/opt/jdk', '/opt/go']);
  expect(() => loadExecutorConfig({ RAILYARD_SANDBOX_READ_ONLY_PATHS: 'opt/jdk' })).toThrow(
    /RAILYARD_SANDBOX_READ_ONLY_PATHS/,
  );
  expect(() => loadExecutorConfig({ RAILYARD_SANDBOX_READ_ONLY_PATHS: '/opt/../etc' })).toThrow(
    /without \.\./,
  );
});

const unavailable = () => ({ kind: 'unavailable' as const, reason: 'no user namespaces' });

test('without bwrap the executor refuses to start unless RAILYARD_EXECUTOR_UNSANDBOXED says so', () => {
  const config = loadExecutorConfig({});
  expect(() => sandboxOf(config, unavailable)).toThrow(/cannot be sandboxed here: no user namespaces/);
  const warnings: string[] = [];
  const unsafe = loadExecutorConfig({ RAILYARD_EXECUTOR_UNSANDBOXED: '1' });
  expect(sandboxOf(unsafe, unavailable, (m) => warnings.push(m))).toBeNull();
  expect(warnings.join()).toMatch(/UNSANDBOXED/);
});

test('with bwrap, the settings become the sandbox', () => {
  const config = loadExecutorConfig({
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
