/** Builds the real app for inject tests, with a captured log and overridable dependencies. */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Pool } from 'pg';
import { buildApp, type AppDeps } from '../../api/app';
import { createApiKeyStore } from '../../stores/api-keys';
import { createIdempotencyKeyStore } from '../../stores/idempotency-keys';
import { repositoryAccessOver } from '../../api/plugins/repository-access';
import { createFlakyStore } from '../../flaky/service';
import { createSubscriptionStore } from '../../webhooks';
import { queueNotFound, type MergeQueueService } from '../../api/routes/merge-queue/service';

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

/** A merge queue service with no queues: reads find nothing, changes answer the queue 404. */
export const noQueues: MergeQueueService = {
  createQueue: () => Promise.resolve(),
  getQueue: () => Promise.resolve(null),
  updateQueue: (_c, key) => Promise.reject(queueNotFound(key)),
  deleteQueue: (_c, key) => Promise.reject(queueNotFound(key)),
  submitPullRequest: (_c, key) => Promise.reject(queueNotFound(key)),
  cancelPullRequest: (_c, key) => Promise.reject(queueNotFound(key)),
  restartTestsOnPullRequest: (_c, key) => Promise.reject(queueNotFound(key)),
  setImpactedTargets: (_c, key) => Promise.reject(queueNotFound(key)),
  getSubmittedPullRequest: () => Promise.resolve(null),
  listPullRequests: (_o, key) => Promise.reject(queueNotFound(key)),
  getTestingDetails: (_o, key) => Promise.reject(queueNotFound(key)),
  getTestRunsInProgress: (_o, key) => Promise.reject(queueNotFound(key)),
  reportTestStatus: (_o, key) => Promise.reject(queueNotFound(key)),
};

/** The page-token key the test app signs with (tests that forge tokens need it). */
export const TEST_PAGE_TOKEN_SECRET = 'test-page-token-secret-0123456789';

/** App dependencies for tests; a partial merge queue service is completed with `noQueues`. */
export type TestAppDeps = Partial<Omit<AppDeps, 'mergeQueue'>> & { mergeQueue?: Partial<MergeQueueService> };

export async function buildTestApp(pool: Pool, overrides: TestAppDeps = {}) {
  const { mergeQueue, ...rest } = overrides;
  const { logger, log } = captureLogger();
  const app = await buildApp({
    logger,
    publicUrl: 'http://127.0.0.1:8080',
    keys: createApiKeyStore(pool),
    repositories: repositoryAccessOver(pool),
    idempotencyKeys: createIdempotencyKeyStore(pool),
    probes: { postgres: async () => void (await pool.query('SELECT 1')), temporal: () => Promise.resolve() },
    flaky: { store: createFlakyStore(pool), pageTokenSecret: TEST_PAGE_TOKEN_SECRET },
    queueMetrics: { pool },
    // Tests receive webhooks on loopback servers, which only an operator's opt-in allows.
    webhooks: { pool, subscriptions: createSubscriptionStore(pool), allowPrivateUrls: true },
    // Trunk's bundle uploads, on as in api/server.ts (they need `flaky`).
    bundleUploads: { pool, secret: TEST_PAGE_TOKEN_SECRET },
    ...rest,
    mergeQueue: { ...noQueues, ...mergeQueue },
  });
  return { app, log };
}
