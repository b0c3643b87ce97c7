import { loadApiConfig } from '../../../api/config';
import { loadWorkerConfig } from '../../../worker/config';

describe('configuration', () => {
  const base = { DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' };

  test('defaults', () => {
    const c = loadApiConfig(base);
    expect(c).toMatchObject({
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      TEMPORAL_NAMESPACE: 'default',
      RAILYARD_API_PORT: 8080,
      RAILYARD_TASK_QUEUE: 'railyard',
      // Temporal's UI is unauthenticated and shows every organisation: no dashboard link unless set (issue 24).
      RAILYARD_TEMPORAL_UI_URL: 'off',
    });
    expect(loadWorkerConfig(base)).toMatchObject({
      RAILYARD_SHUTDOWN_GRACE_SECONDS: 30,
      RAILYARD_WORKER_METRICS_PORT: 9464,
    });
    // One queue at concurrency 4 is not held back by its own organisation's cap (issue 25: it was 3).
    expect(loadWorkerConfig(base).RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION).toBeGreaterThanOrEqual(4);
  });

  test.each([
    ['missing database', {}, 'DATABASE_URL is required'],
    [
      'bad database url',
      { DATABASE_URL: 'mysql://x' },
      'DATABASE_URL is invalid: must be a postgres:// or postgresql:// URL (its value is not shown',
    ],
    ['bad port', { ...base, RAILYARD_API_PORT: 'eighty' }, 'RAILYARD_API_PORT="eighty" is invalid'],
    ['port out of range', { ...base, RAILYARD_API_PORT: '70000' }, 'RAILYARD_API_PORT="70000" is invalid'],
    [
      'bad temporal address',
      { ...base, TEMPORAL_ADDRESS: 'localhost' },
      'TEMPORAL_ADDRESS="localhost" is invalid: must be host:port',
    ],
    ['unknown setting', { ...base, RAILYARD_API_PROT: '1' }, 'RAILYARD_API_PROT is not a railyard setting'],
    ['bad log level', { ...base, RAILYARD_LOG_LEVEL: 'loud' }, 'RAILYARD_LOG_LEVEL="loud" is invalid'],
  ])('%s stops the process with a clear message', (_name, env, message) => {
    expect(() => loadApiConfig(env)).toThrow(message);
  });

  test('a setting that may hold a credential is never echoed in the error', () => {
    const leaky = 'mysql://railyard:hunter2-secret@db/railyard';
    expect(() => loadApiConfig({ DATABASE_URL: leaky })).toThrow(/DATABASE_URL is invalid/);
    expect(() => loadApiConfig({ DATABASE_URL: leaky })).not.toThrow(/hunter2/);
    expect(() => loadApiConfig({ ...base, RAILYARD_PAGE_TOKEN_SECRET: 'short-hunter2' })).not.toThrow(
      /hunter2/,
    );
  });

  test('empty values count as unset', () => {
    expect(loadApiConfig({ ...base, RAILYARD_API_PORT: '' }).RAILYARD_API_PORT).toBe(8080);
  });
});
