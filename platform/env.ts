/**
 * Environment parsing shared by every process. Each process parses its own zod schema once at start;
 * a value that fails its schema, or a RAILYARD_* variable nobody knows (a typo that would otherwise be
 * ignored silently), stops the process with one message listing every problem.
 */
import { z } from 'zod';

/**
 * Every variable any railyard process or script reads; unknown RAILYARD_* names are rejected. The README's
 * configuration table documents each (test/unit/platform/config-table.test.ts checks both against the code).
 */
export const KNOWN_VARIABLES = [
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_NAME',
  'TEMPORAL_API_KEY',
  'RAILYARD_TASK_QUEUE',
  'RAILYARD_API_HOST',
  'RAILYARD_API_PORT',
  'RAILYARD_PUBLIC_URL',
  'RAILYARD_LOG_LEVEL',
  'RAILYARD_TEMPORAL_CALL_TIMEOUT_MS',
  'RAILYARD_WORKER_METRICS_HOST',
  'RAILYARD_WORKER_METRICS_PORT',
  'RAILYARD_SHUTDOWN_GRACE_SECONDS',
  'RAILYARD_GIT_ROOT',
  'RAILYARD_WORK_ROOT',
  'RAILYARD_WORKFLOW_BUNDLE',
  'RAILYARD_RUN_LOG_MAX_BYTES',
  'RAILYARD_RUN_LOG_RETENTION_DAYS',
  'RAILYARD_CI_UPLOAD_WAIT_SECONDS',
  'RAILYARD_FLAKY_RAW_RETENTION_DAYS',
  'RAILYARD_FLAKY_ROLLUP_RETENTION_DAYS',
  'RAILYARD_EXECUTOR_UNSANDBOXED',
  'RAILYARD_SANDBOX_NETWORK',
  'RAILYARD_SANDBOX_MEMORY_MB',
  'RAILYARD_SANDBOX_MAX_PROCESSES',
  'RAILYARD_SANDBOX_MAX_FILE_MB',
  'RAILYARD_SANDBOX_TMP_MB',
  'RAILYARD_SANDBOX_READ_ONLY_PATHS',
  'RAILYARD_SANDBOX_WRITABLE_PATHS',
  'RAILYARD_SANDBOX_NETWORK_ALLOW',
  'RAILYARD_SANDBOX_NETWORK_UNISOLATED',
  'RAILYARD_SANDBOX_DISK_MB',
  'RAILYARD_SANDBOX_DISK_FILES',
  'RAILYARD_EXECUTOR_MAX_RUN_MINUTES',
  'RAILYARD_EXECUTOR_API_URL',
  'RAILYARD_EXECUTOR_TOKEN',
  'RAILYARD_EXECUTOR_WORK_ROOT',
  'RAILYARD_EXECUTOR_CACHE_MB',
  'RAILYARD_EXECUTOR_SLOTS',
  'RAILYARD_EXECUTOR_HEALTH_HOST',
  'RAILYARD_EXECUTOR_HEALTH_PORT',
  'RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION',
  'RAILYARD_RUN_CONTENT_MAX_MB',
  'RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS',
  'RAILYARD_PAGE_TOKEN_SECRET',
  'RAILYARD_BUNDLE_MAX_BYTES',
  'RAILYARD_BUNDLE_MAX_UNPACKED_BYTES',
  'RAILYARD_BUNDLE_URL_TTL_SECONDS',
  'RAILYARD_PARSER_THREADS',
  'RAILYARD_FOLD_CONCURRENCY',
  'RAILYARD_ORG_REQUESTS_PER_SECOND',
  'RAILYARD_ORG_UPLOADS_IN_FLIGHT',
  'RAILYARD_ORG_LIST_QUERIES_IN_FLIGHT',
  'RAILYARD_PUBLIC_ID_UPLOAD_URLS',
  'RAILYARD_PUBLIC_ID_UPLOADS_IN_FLIGHT',
  'RAILYARD_FORK_RUN_CHECKS_PER_MINUTE',
  'RAILYARD_FORK_RUN_CHECKS_PER_REPO_PER_HOUR',
  'RAILYARD_TRUST_PROXY',
  'RAILYARD_API_POOL_SIZE',
  'RAILYARD_API_KEY_POOL_SIZE',
  'RAILYARD_API_STATEMENT_TIMEOUT_MS',
  'RAILYARD_API_HEADERS_TIMEOUT_MS',
  'RAILYARD_API_REQUEST_TIMEOUT_MS',
  'RAILYARD_API_IDLE_TIMEOUT_MS',
  'RAILYARD_REPOSITORY_CLAIMS',
  'RAILYARD_MAX_REPOSITORIES_PER_ORGANISATION',
  'RAILYARD_MAX_QUEUES_PER_ORGANISATION',
  'RAILYARD_MAX_WEBHOOKS_PER_ORGANISATION',
  'RAILYARD_IDEMPOTENCY_KEY_TTL_HOURS',
  'RAILYARD_UI_SESSION_HOURS',
  'RAILYARD_TEMPORAL_UI_URL',
  'RAILYARD_DATA_DIR',
  'RAILYARD_DEV_TEMPORAL_PORT',
  'RAILYARD_DEV_TEMPORAL_UI_PORT',
  // Read by the scripts only (npm run demo, npm test, setup); known so that exporting one does not stop
  // `npm start` or the processes it starts.
  'RAILYARD_DEMO_API',
  'RAILYARD_DEMO_KEY',
  'RAILYARD_API_URL',
  'RAILYARD_API_KEY',
  'RAILYARD_SKIP_CHECK',
  'RAILYARD_TEST_WORKERS',
  'RAILYARD_TEST_REPORT',
  'RAILYARD_FORCE_LOCAL_PG',
  'RAILYARD_GITHUB_APP_ID',
  'RAILYARD_GITHUB_PRIVATE_KEY',
  'RAILYARD_GITHUB_PRIVATE_KEY_FILE',
  'RAILYARD_GITHUB_WEBHOOK_SECRET',
  'RAILYARD_GITHUB_API_URL',
  'RAILYARD_GITHUB_HOST',
  'RAILYARD_GITHUB_GIT_URL',
  'RAILYARD_GITHUB_TEST_BRANCH_PREFIX',
  'RAILYARD_GITHUB_RECONCILE_MINUTES',
  'RAILYARD_GITHUB_PRESENTATION_WRITES_PER_MINUTE',
  'RAILYARD_GITHUB_CLIENT_ID',
  'RAILYARD_GITHUB_CLIENT_SECRET',
  'RAILYARD_GITHUB_WEB_URL',
] as const;

export type KnownVariable = (typeof KNOWN_VARIABLES)[number];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Settings whose value may carry a credential (a URL with a password, a key): never echoed. */
const SECRET_NAME = /(DATABASE_URL|SECRET|PASSWORD|PRIVATE_KEY|TOKEN)/;

/** Schema helpers whose messages read well in a startup error. */
export const envInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
export const envBool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export function parseEnv<S extends z.ZodObject>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
): z.infer<S> {
  const problems: string[] = [];
  const known = new Set<string>(KNOWN_VARIABLES);
  const unknown = Object.keys(env).filter((name) => name.startsWith('RAILYARD_') && !known.has(name));
  if (unknown.length > 0) {
    problems.push(
      `${unknown.join(', ')} ${unknown.length > 1 ? 'are not railyard settings' : 'is not a railyard setting'} (known: ${KNOWN_VARIABLES.join(', ')})`,
    );
  }
  const present: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') present[key] = value;
  }
  const result = schema.safeParse(present);
  if (!result.success) {
    for (const issue of result.error.issues) {
      // A list's element fails at `NAME.0`: the variable is the path's first part.
      const name = String(issue.path[0] ?? '');
      const value = present[name];
      problems.push(
        value === undefined
          ? `${name} is required`
          : SECRET_NAME.test(name)
            ? `${name} is invalid: ${issue.message} (its value is not shown: it may hold a secret)`
            : `${name}=${JSON.stringify(value)} is invalid: ${issue.message}`,
      );
    }
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}.`);
  }
  return (result as { data: z.infer<S> }).data;
}
