/** The API process's configuration, parsed once at start (see README for the table). */
import { z } from 'zod';
import { sharedConfigShape } from '../activities/platform/config';
import { envInt, parseEnv } from '../activities/platform/env';

const ApiConfig = z.object({
  ...sharedConfigShape,
  RAILYARD_API_HOST: z.string().min(1).default('127.0.0.1'),
  RAILYARD_API_PORT: envInt(0, 65535).default(8080),
  /** Signs flaky-test page tokens; the same on every API process, or tokens fail across them. */
  RAILYARD_PAGE_TOKEN_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Worker threads that parse uploaded JUnit files; 0 parses on the event loop. Default: cores - 1, 1..4. */
  RAILYARD_PARSER_THREADS: envInt(0, 64).optional(),
});
export type ApiConfig = z.infer<typeof ApiConfig>;

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig => parseEnv(ApiConfig, env);
