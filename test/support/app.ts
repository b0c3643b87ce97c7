/** Builds the real app for inject tests, with a captured log and overridable dependencies. */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Pool } from 'pg';
import { buildApp, type AppDeps } from '../../api/app';
import { createApiKeyStore } from '../../activities/stores/api-keys';

export interface CapturedLog {
  lines: string[];
  text(): string;
}

export function captureLogger(): { logger: pino.Logger; log: CapturedLog } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  return { logger: pino({ level: 'info' }, stream), log: { lines, text: () => lines.join('\n') } };
}

export async function buildTestApp(pool: Pool, overrides: Partial<AppDeps> = {}) {
  const { logger, log } = captureLogger();
  const app = await buildApp({
    logger,
    publicUrl: 'http://127.0.0.1:8080',
    keys: createApiKeyStore(pool),
    probes: { postgres: async () => void (await pool.query('SELECT 1')), temporal: () => Promise.resolve() },
    mergeQueue: { getQueue: () => Promise.resolve(null) },
    ...overrides,
  });
  return { app, log };
}
