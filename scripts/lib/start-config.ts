/**
 * The settings `npm start` itself reads (the API's and the worker's are parsed by those processes). Parsed
 * with the shared parseEnv, so a RAILYARD_* typo stops `npm start` before anything starts.
 */
import { z } from 'zod';
import { envInt, parseEnv } from '../../platform/env';
import { DEFAULT_API_PORT } from '../../platform/public-url';

const schema = z.object({
  RAILYARD_DATA_DIR: z.string().default('.data'),
  RAILYARD_API_PORT: envInt(1, 65535).default(DEFAULT_API_PORT),
  RAILYARD_DEV_TEMPORAL_PORT: envInt(1, 65535).default(7233),
  RAILYARD_DEV_TEMPORAL_UI_PORT: envInt(1, 65535).default(8233),
  // The worker's own setting (worker/config.ts, same default): the supervisor waits longer than it.
  RAILYARD_SHUTDOWN_GRACE_SECONDS: envInt(0, 3600).default(30),
});

export type StartConfig = z.infer<typeof schema>;

export const loadStartConfig = (env: NodeJS.ProcessEnv = process.env): StartConfig => parseEnv(schema, env);

/** How long a stop waits for the worker and the API: their grace and 10 s to close connections. */
export const appGraceMs = (c: StartConfig): number => (c.RAILYARD_SHUTDOWN_GRACE_SECONDS + 10) * 1000;

/** How long PostgreSQL and Temporal get, each, before they are killed. */
export const INFRA_GRACE_MS = 15_000;

/** Everything a stop may take: the app tier, then PostgreSQL and Temporal one after the other. */
export const stopWithinMs = (c: StartConfig): number => appGraceMs(c) + 2 * INFRA_GRACE_MS;
