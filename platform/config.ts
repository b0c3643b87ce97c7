/**
 * The settings both processes share (database, Temporal). Each process extends this schema with its
 * own and parses it once at start (api/config.ts, worker/config.ts).
 */
import { z } from 'zod';
import { envBool, envInt, logLevel } from './env';
import { temporalSecurityConfigShape } from './temporal-security';

const postgresUrl = z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL');

/** Where Temporal is and which task queue is railyard's: every process, the executor included. */
export const temporalConfigShape = {
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d+$/, 'must be host:port')
    .default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** TLS, client certificates and API keys for a secured Temporal or Temporal Cloud (temporal-security.ts). */
  ...temporalSecurityConfigShape,
  /** The task queue of the workflows and activities (executors take their runs through the API). */
  RAILYARD_TASK_QUEUE: z.string().min(1).default('railyard'),
  RAILYARD_LOG_LEVEL: logLevel.default('info'),
};

/** The control plane's settings (api and worker; each adds the GitHub App's, github/app/config.ts). */
export const sharedConfigShape = {
  DATABASE_URL: postgresUrl,
  ...temporalConfigShape,
  RAILYARD_GIT_ROOT: z.string().min(1).default('.data/git'),
  RAILYARD_TEMPORAL_CALL_TIMEOUT_MS: envInt(100, 120_000).default(5_000),
  /** Webhook receivers on private or loopback addresses are refused unless this is true. */
  RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS: envBool.default(false),
  RAILYARD_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
};

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}
