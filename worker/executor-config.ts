/**
 * The executor process's configuration (issue 17; README's table, docs/operations.md "Executors"),
 * parsed once at start. An executor runs pull requests' code, so it is refused the control plane's
 * secrets outright: a variable in FORBIDDEN stops it, because a sandbox escape — or an unsandboxed run —
 * could read its environment.
 */
import { z } from 'zod';
import { temporalConfigShape } from '../platform/config';
import { ConfigError, envBool, envInt, parseEnv } from '../platform/env';
import { DEFAULT_RUN_CONTENT_MAX_BYTES } from '../executor/content-fetch';
import { DEFAULT_SANDBOX } from '../executor/sandbox';
import { networkAllowSetting } from './sandbox-settings';
import {
  DEFAULT_MAX_DISK_BYTES,
  DEFAULT_MAX_DISK_ENTRIES,
  DEFAULT_MAX_RUN_MS,
} from '../executor/command-runner';

const MIB = 1024 * 1024;

/** The control plane's credentials: an executor starts only without them. */
export const FORBIDDEN = [
  'DATABASE_URL',
  'RAILYARD_PAGE_TOKEN_SECRET',
  'RAILYARD_GITHUB_PRIVATE_KEY',
  'RAILYARD_GITHUB_WEBHOOK_SECRET',
] as const;

/** A comma-separated list of absolute host paths (no `..`), at most 32. */
const absolutePaths = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^\/(?!.*(^|\/)\.\.(\/|$))/, 'must be absolute paths without ..')).max(32));

const ExecutorConfig = z.object({
  ...temporalConfigShape,
  /** The API as this executor reaches it: run content comes from GET /v1/executor/run-content. */
  RAILYARD_EXECUTOR_API_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .default('http://127.0.0.1:8080'),
  RAILYARD_EXECUTOR_WORK_ROOT: z.string().min(1).default('.data/executor'),
  RAILYARD_EXECUTOR_SLOTS: envInt(1, 256).default(4),
  RAILYARD_EXECUTOR_HEALTH_HOST: z.string().min(1).default('127.0.0.1'),
  RAILYARD_EXECUTOR_HEALTH_PORT: envInt(0, 65535).default(9465),
  RAILYARD_SHUTDOWN_GRACE_SECONDS: envInt(0, 3600).default(30),
  RAILYARD_RUN_CONTENT_MAX_MB: envInt(1, 64 * 1024).default(DEFAULT_RUN_CONTENT_MAX_BYTES / MIB),
  // The sandbox of every test run (executor/sandbox.ts).
  RAILYARD_EXECUTOR_UNSANDBOXED: envBool.default(false),
  RAILYARD_SANDBOX_NETWORK: z.enum(['on', 'off']).default('on'),
  RAILYARD_SANDBOX_MEMORY_MB: envInt(256, 1024 * 1024).default(DEFAULT_SANDBOX.memoryBytes / MIB),
  RAILYARD_SANDBOX_MAX_PROCESSES: envInt(16, 65536).default(DEFAULT_SANDBOX.maxProcesses),
  RAILYARD_SANDBOX_MAX_FILE_MB: envInt(1, 1024 * 1024).default(DEFAULT_SANDBOX.maxFileBytes / MIB),
  RAILYARD_SANDBOX_TMP_MB: envInt(1, 1024 * 1024).default(DEFAULT_SANDBOX.tmpBytes / MIB),
  /** Host folders test commands may read (toolchains outside /usr), comma-separated absolute paths. */
  RAILYARD_SANDBOX_READ_ONLY_PATHS: absolutePaths.optional(),
  /**
   * Host folders test commands may write, shared by every run of every organisation: for single-tenant
   * executors (a package cache) and test stacks (the chaos run's ledger), never for shared ones.
   */
  RAILYARD_SANDBOX_WRITABLE_PATHS: absolutePaths.optional(),
  /** Addresses, ranges or host names a network-on run may reach besides public ones (a registry mirror). */
  RAILYARD_SANDBOX_NETWORK_ALLOW: networkAllowSetting.optional(),
  RAILYARD_SANDBOX_DISK_MB: envInt(16, 1024 * 1024).default(DEFAULT_MAX_DISK_BYTES / MIB),
  RAILYARD_SANDBOX_DISK_FILES: envInt(1000, 100_000_000).default(DEFAULT_MAX_DISK_ENTRIES),
  RAILYARD_EXECUTOR_MAX_RUN_MINUTES: envInt(1, 35_791).default(DEFAULT_MAX_RUN_MS / 60_000),
});
export type ExecutorConfig = z.infer<typeof ExecutorConfig>;

export function loadExecutorConfig(env: NodeJS.ProcessEnv = process.env): ExecutorConfig {
  const given = FORBIDDEN.filter((name) => env[name] !== undefined && env[name] !== '');
  if (given.length > 0)
    throw new ConfigError(
      `railyard executor: ${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} set, and an executor ` +
        "runs pull requests' code: start it without the control plane's credentials (docs/operations.md, Executors).",
    );
  return parseEnv(ExecutorConfig, env);
}
