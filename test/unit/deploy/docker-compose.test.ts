/**
 * No Docker engine runs here, so the deployment is checked statically: the services of Temporal's
 * current compose pattern exist with the right start order, the deprecated auto-setup image is not
 * used, the search attributes match the ones the code defines, and the api and worker environments
 * pass the same config schemas the processes parse at start. Exposure, credentials and the image are
 * checked by the other files in this folder.
 */
import { loadApiConfig } from '../../../api/config';
import { loadWorkerConfig } from '../../../worker/config';
import { loadExecutorConfig } from '../../../worker/executor-config';
import { SEARCH_ATTRIBUTE_FLAGS } from '../../../contract';
import { loadCompose } from './deploy-files';

const services = loadCompose().services;

/**
 * Compose's interpolation, as `docker compose config` would resolve it: `${VAR:-default}` takes the
 * default, `${VAR:?message}` the value an operator must provide (a stand-in here).
 */
const OPERATOR_VALUE = 'operator-provided-secret-value';
const interpolate = (env: Record<string, string> = {}) =>
  Object.fromEntries(
    Object.entries(env).map(([k, v]) => [
      k,
      String(v)
        .replace(/\$\{\w+:-([^}]*)\}/g, '$1')
        .replace(/\$\{\w+:\?[^}]*\}/g, OPERATOR_VALUE),
    ]),
  );

test('has the services of the current Temporal compose pattern plus api and worker', () => {
  expect(Object.keys(services).sort()).toEqual(
    [
      'api',
      'caddy',
      'postgresql',
      'postgresql-roles',
      'temporal',
      'temporal-admin-tools',
      'temporal-create-namespace',
      'temporal-ui',
      'worker',
      'executor',
    ].sort(),
  );
  for (const s of Object.values(services)) expect(s.image ?? '').not.toMatch(/auto-setup/);
  expect(services.api?.build).toBe('.');
  expect(services.worker?.build).toBe('.');
  expect(services.executor?.build).toBe('.');
  // railyard's own processes come back after a crash (the chaos run's faults, in production).
  const restart = Object.fromEntries(['api', 'worker', 'executor'].map((n) => [n, services[n]?.restart]));
  expect(restart).toEqual({ api: 'unless-stopped', worker: 'unless-stopped', executor: 'unless-stopped' });
});

test('the executor holds only the API URL and its credential, and reaches neither Temporal nor PostgreSQL (issue 24)', () => {
  const executor = services.executor!;
  const env = interpolate(executor.environment);
  // The credential comes from the operator's .env (docs/deployment.md), required like every secret.
  expect(executor.environment?.RAILYARD_EXECUTOR_TOKEN).toMatch(/^\$\{RAILYARD_EXECUTOR_TOKEN:\?/);
  expect(loadExecutorConfig({ ...env, RAILYARD_EXECUTOR_TOKEN: `rye_${'A'.repeat(43)}` })).toMatchObject({
    RAILYARD_EXECUTOR_API_URL: 'http://api:8080',
  });
  for (const name of Object.keys(env))
    expect(name).not.toMatch(/DATABASE|SECRET|PRIVATE_KEY|PASSWORD|TEMPORAL|TASK_QUEUE/);
  // Its own network, shared with the API alone: Temporal and PostgreSQL are on no network it joins.
  expect(executor.networks).toEqual(['executors']);
  const onExecutors = Object.entries(services)
    .filter(([, s]) => ([] as string[]).concat(s.networks ?? []).includes('executors'))
    .map(([name]) => name)
    .sort();
  expect(onExecutors).toEqual(['api', 'executor']);
  for (const name of ['temporal', 'postgresql'])
    expect(([] as string[]).concat(services[name]?.networks ?? ['default'])).not.toContain('executors');
  expect(executor.depends_on).toMatchObject({ api: { condition: 'service_healthy' } });
});

test('start order: roles, then schema job, server, namespace, api, worker', () => {
  expect(services['postgresql-roles']?.depends_on).toEqual({
    postgresql: { condition: 'service_healthy' },
  });
  expect(services['temporal-admin-tools']?.depends_on).toEqual({
    'postgresql-roles': { condition: 'service_completed_successfully' },
  });
  expect(services.temporal?.depends_on).toEqual({
    'temporal-admin-tools': { condition: 'service_completed_successfully' },
  });
  expect(services.api?.depends_on).toMatchObject({
    'postgresql-roles': { condition: 'service_completed_successfully' },
    'temporal-create-namespace': { condition: 'service_completed_successfully' },
  });
  expect(services.worker?.depends_on).toMatchObject({ api: { condition: 'service_healthy' } });
});

test('the setup job registers exactly the search attributes the code uses', () => {
  const script = ([] as string[]).concat(services['temporal-create-namespace']?.command ?? []).join('\n');
  for (const sa of SEARCH_ATTRIBUTE_FLAGS) expect(script).toContain(sa);
});

test('api and worker environments pass the process config schemas', () => {
  const api = interpolate(services.api?.environment);
  const worker = interpolate(services.worker?.environment);
  expect(loadApiConfig(api)).toMatchObject({
    TEMPORAL_ADDRESS: 'temporal:7233',
    RAILYARD_API_HOST: '0.0.0.0',
  });
  expect(loadWorkerConfig(worker)).toMatchObject({
    TEMPORAL_ADDRESS: 'temporal:7233',
    RAILYARD_WORKER_METRICS_HOST: '0.0.0.0',
  });
  expect(api.TEMPORAL_NAMESPACE).toBe(worker.TEMPORAL_NAMESPACE);
  expect(api.DATABASE_URL).toContain('@postgresql:5432/');
  // Webhook payloads are built by the worker: their links must use the same public URL as the API.
  expect(worker.RAILYARD_PUBLIC_URL).toBe(api.RAILYARD_PUBLIC_URL);
});
