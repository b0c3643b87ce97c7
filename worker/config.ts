/** The worker process's configuration, parsed once at start (see README for the table). */
import { z } from 'zod';
import { sharedConfigShape } from '../activities/platform/config';
import { envBool, envInt, parseEnv } from '../activities/platform/env';
import { DEFAULT_RUN_LOG_MAX_BYTES, DEFAULT_RUN_LOG_RETENTION_DAYS } from '../activities/runners/run-logs';
import { DEFAULT_SANDBOX } from '../activities/runners/sandbox';

const MIB = 1024 * 1024;

const WorkerConfig = z.object({
  ...sharedConfigShape,
  RAILYARD_WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  RAILYARD_WORKER_METRICS_PORT: envInt(0, 65535).default(9464),
  RAILYARD_SHUTDOWN_GRACE_SECONDS: envInt(0, 3600).default(30),
  RAILYARD_WORK_ROOT: z.string().min(1).default('.data/work'),
  // Test-run logs kept in PostgreSQL for the API (activities/runners/run-logs.ts, ADR 0011).
  RAILYARD_RUN_LOG_MAX_BYTES: envInt(4096, 64 * 1024 * 1024).default(DEFAULT_RUN_LOG_MAX_BYTES),
  RAILYARD_RUN_LOG_RETENTION_DAYS: envInt(1, 3650).default(DEFAULT_RUN_LOG_RETENTION_DAYS),
  // The sandbox of every test run (activities/runners/sandbox.ts, issue 17).
  RAILYARD_EXECUTOR_UNSANDBOXED: envBool.default(false),
  RAILYARD_SANDBOX_NETWORK: z.enum(['on', 'off']).default('on'),
  RAILYARD_SANDBOX_MEMORY_MB: envInt(256, 1024 * 1024).default(DEFAULT_SANDBOX.memoryBytes / MIB),
  RAILYARD_SANDBOX_MAX_PROCESSES: envInt(16, 65536).default(DEFAULT_SANDBOX.maxProcesses),
  RAILYARD_SANDBOX_MAX_FILE_MB: envInt(1, 1024 * 1024).default(DEFAULT_SANDBOX.maxFileBytes / MIB),
  RAILYARD_SANDBOX_TMP_MB: envInt(1, 1024 * 1024).default(DEFAULT_SANDBOX.tmpBytes / MIB),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;

export const loadWorkerConfig = (env: NodeJS.ProcessEnv = process.env): WorkerConfig =>
  parseEnv(WorkerConfig, env);
