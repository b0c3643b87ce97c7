/** The worker process's configuration, parsed once at start (see README for the table). */
import { z } from 'zod';
import { retentionConfigShape } from '../flaky/retention-config';
import { gitHubConfigShape } from '../github/app/config';
import { sharedConfigShape } from '../platform/config';
import { envInt, parseEnv } from '../platform/env';
import { DEFAULT_RUN_CONTENT_MAX_BYTES } from '../test-runs/store/run-content';
import { DEFAULT_RUNS_PER_ORGANISATION } from '../test-runs/store/run-slots';
import { DEFAULT_RUN_LOG_MAX_BYTES, DEFAULT_RUN_LOG_RETENTION_DAYS } from '../test-runs/store/run-logs';

const MIB = 1024 * 1024;

const WorkerConfig = z.object({
  ...sharedConfigShape,
  /** The GitHub App; all optional, GitHub is off without an app id. */
  ...gitHubConfigShape,
  RAILYARD_WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  RAILYARD_WORKER_METRICS_PORT: envInt(0, 65535).default(9464),
  RAILYARD_SHUTDOWN_GRACE_SECONDS: envInt(0, 3600).default(30),
  RAILYARD_WORK_ROOT: z.string().min(1).default('.data/work'),
  // A workflow bundle built beforehand (bundleWorkflowCode's output in a file), loaded instead of
  // bundling the workflows at start; `npm test` hands its one bundle to every worker it starts.
  RAILYARD_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  // Test-run logs kept in PostgreSQL for the API (test-runs/store/run-logs.ts, ADR 0011).
  RAILYARD_RUN_LOG_MAX_BYTES: envInt(4096, 64 * 1024 * 1024).default(DEFAULT_RUN_LOG_MAX_BYTES),
  RAILYARD_RUN_LOG_RETENTION_DAYS: envInt(1, 3650).default(DEFAULT_RUN_LOG_RETENTION_DAYS),
  // Test runs on executors (issue 17): the per-organisation cap and the largest content handed over.
  RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION: envInt(1, 10_000).default(DEFAULT_RUNS_PER_ORGANISATION),
  RAILYARD_RUN_CONTENT_MAX_MB: envInt(1, 64 * 1024).default(DEFAULT_RUN_CONTENT_MAX_BYTES / MIB),
  // How long a failed CI-judged run waits for CI's test upload of its commit (issue 28).
  RAILYARD_CI_UPLOAD_WAIT_SECONDS: envInt(0, 600).default(60),
  // Days of flaky-test raw results and rollups kept unless an organisation says otherwise (ADR 0019).
  ...retentionConfigShape,
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;

export const loadWorkerConfig = (env: NodeJS.ProcessEnv = process.env): WorkerConfig =>
  parseEnv(WorkerConfig, env);
