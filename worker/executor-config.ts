/**
 * The executor process's configuration (issue 17, issue 24; README's table, docs/operations.md
 * "Executors"), parsed once at start. An executor holds the API's URL and its executor credential,
 * nothing else of the control plane: it runs pull requests' code, so a variable in FORBIDDEN (a
 * control-plane secret, or Temporal's address, which it no longer talks to) stops it, because a sandbox
 * escape — or an unsandboxed run — could read its environment.
 *
 * The API's URL is https, or http only to a loopback address or a single-label host (a compose
 * service on a private network): the credential must not cross a network in clear.
 */
import { z } from 'zod';
import { ConfigError, envBool, envInt, logLevel, parseEnv } from '../platform/env';
import { DEFAULT_RUN_CONTENT_MAX_BYTES } from '../executor/content-fetch';
import { DEFAULT_OBJECT_CACHE_BYTES } from '../executor/object-cache';
import { DEFAULT_SANDBOX } from '../executor/sandbox';
import { networkAllowSetting } from './sandbox-network-allow';
import {
  DEFAULT_MAX_DISK_BYTES,
  DEFAULT_MAX_DISK_ENTRIES,
  DEFAULT_MAX_RUN_MS,
} from '../executor/command-runner';

const MIB = 1024 * 1024;

/** The control plane's credentials and Temporal's address: an executor starts only without them. */
export const FORBIDDEN = [
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'RAILYARD_PAGE_TOKEN_SECRET',
  'RAILYARD_GITHUB_PRIVATE_KEY',
  'RAILYARD_GITHUB_PRIVATE_KEY_FILE',
  'RAILYARD_GITHUB_WEBHOOK_SECRET',
  'RAILYARD_GITHUB_CLIENT_SECRET',
] as const;

/** http is accepted only where the credential cannot cross a network: loopback or a compose service. */
function clearTextAllowed(url: URL): boolean {
  if (url.protocol === 'https:') return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host) || /^[a-z0-9-]+$/i.test(host);
}

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
  RAILYARD_LOG_LEVEL: logLevel.default('info'),
  /** The API as this executor reaches it: every job, content, heartbeat and report goes through it. */
  RAILYARD_EXECUTOR_API_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .refine((v) => clearTextAllowed(new URL(v)), {
      error: 'must be https unless it is a loopback address or a single-label host on a private network',
    })
    .default('http://127.0.0.1:8080'),
  /** This executor's credential (`npm run executors -- add <name>`); required. */
  RAILYARD_EXECUTOR_TOKEN: z
    .string()
    .regex(/^rye_[A-Za-z0-9_-]{43}$/, 'must be an executor credential (rye_…)'),
  RAILYARD_EXECUTOR_WORK_ROOT: z.string().min(1).default('.data/executor'),
  RAILYARD_EXECUTOR_SLOTS: envInt(1, 256).default(4),
  RAILYARD_EXECUTOR_HEALTH_HOST: z.string().min(1).default('127.0.0.1'),
  RAILYARD_EXECUTOR_HEALTH_PORT: envInt(0, 65535).default(9465),
  RAILYARD_SHUTDOWN_GRACE_SECONDS: envInt(0, 3600).default(30),
  RAILYARD_RUN_CONTENT_MAX_MB: envInt(1, 64 * 1024).default(DEFAULT_RUN_CONTENT_MAX_BYTES / MIB),
  /** The object cache's bound (executor/object-cache.ts); 0 keeps nothing between runs. */
  RAILYARD_EXECUTOR_CACHE_MB: envInt(0, 1024 * 1024).default(DEFAULT_OBJECT_CACHE_BYTES / MIB),
  // The sandbox of every test run (executor/sandbox.ts).
  RAILYARD_EXECUTOR_UNSANDBOXED: envBool.default(false),
  RAILYARD_SANDBOX_NETWORK: z.enum(['on', 'off']).default('on'),
  /**
   * Where a network-on run's network cannot be isolated (no pasta or ip): `refuse` such runs (they fail
   * naming the missing tool), or `allow` them on this machine's network, loopback and neighbourhood
   * included (unsafe; said at start and on /readyz).
   */
  RAILYARD_SANDBOX_NETWORK_UNISOLATED: z.enum(['refuse', 'allow']).default('refuse'),
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
        "runs pull requests' code and talks only to the API: start it without the control plane's credentials or " +
        'addresses, with RAILYARD_EXECUTOR_API_URL and RAILYARD_EXECUTOR_TOKEN (docs/operations.md, Executors).',
    );
  return parseEnv(ExecutorConfig, env);
}
