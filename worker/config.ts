/** The worker process's configuration, parsed once at start (see README for the table). */
import { z } from 'zod';
import { sharedConfigShape } from '../activities/platform/config';
import { envInt, parseEnv } from '../activities/platform/env';

const WorkerConfig = z.object({
  ...sharedConfigShape,
  RAILYARD_WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  RAILYARD_WORKER_METRICS_PORT: envInt(0, 65535).default(9464),
  RAILYARD_SHUTDOWN_GRACE_SECONDS: envInt(0, 3600).default(30),
  RAILYARD_WORK_ROOT: z.string().min(1).default('.data/work'),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;

export const loadWorkerConfig = (env: NodeJS.ProcessEnv = process.env): WorkerConfig =>
  parseEnv(WorkerConfig, env);
