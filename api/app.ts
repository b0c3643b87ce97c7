/**
 * buildApp(deps): the whole HTTP surface, with every dependency passed in and no environment access, so
 * tests build it with `app.inject` against real or fake stores. Routes live under /v1; JSON in, JSON out;
 * errors are plain-text sentences (plugins/error-handler.ts). Every response carries `x-request-id`.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { QueueQuota } from '../events/store/queue-quota';
import type { ApiKeyStore } from '../stores/api-keys';
import type { IdempotencyKeyStore } from '../stores/idempotency-keys';
import type { RepositoryOwnerStore } from '../stores/repository-owners';
import { registerAuth } from './plugins/auth';
import { createAuthFailureLimiter } from './plugins/auth-failures';
import { registerForkAuth, type ForkAuthDeps } from './plugins/fork-auth';
import { frameworkErrorHandler, registerErrorHandler } from './plugins/error-handler';
import { registerInFlightCaps, type InFlightCaps } from './plugins/in-flight';
import { preflightRoutes } from './routes/preflight';
import type { PreflightService } from './temporal/preflights';
import { registerOpenApi } from './plugins/openapi';
import { registerRateLimit, type RateLimitSettings } from './plugins/rate-limit';
import { DEFAULT_SERVER_TIMEOUTS, httpServerOptions, type ServerTimeouts } from './plugins/server-timeouts';
import { registerRepositoryAccess, type RepositoryAccess } from './plugins/repository-access';
import { repositoryRoutes } from './routes/repositories';
import { DEFAULT_WORKER_PROBE_CACHE_MS, healthRoutes, type ReadinessProbes } from './routes/health';
import { mergeQueueRoutes, type MergeQueueService } from './routes/merge-queue';
import type { RepositoryOnHost } from './routes/merge-queue/repository-on-host';
import { flakyTestRoutes, type FlakyDeps } from './routes/flaky-tests';
import { bundleUploadRoutes, type BundleUploadSettings } from './routes/bundle-uploads';
import { executorRoutes, type ExecutorRouteDeps } from './routes/executor';
import {
  createProcessMetrics,
  registerProcessMetrics,
  type ProcessMetrics,
  type ProcessMetricsRoute,
} from './plugins/process-metrics';
import { listingCreatedQueues, queueMetricsRoutes, type QueueMetricsDeps } from './routes/metrics';
import { limitingQueueCount } from './routes/merge-queue/queue-quota';
import { testingResultsRoutes } from './routes/merge-queue/testing-results';
import { webhookRoutes, type WebhookApiDeps } from './routes/webhooks';
import { gitHubInstallationRoutes, type GitHubInstallationApiDeps } from './routes/github/installations';
import { gitHubWebhookRoutes, type GitHubWebhookApiDeps } from './routes/github/webhooks';
import { uiRoutes, type UiDeps } from './dashboard/routes';
import { createDashboardReads } from './dashboard/store/reads';
import { namedPlugin } from './plugins/named-plugin';

export const BODY_LIMIT_BYTES = 20 * 1024 * 1024;

export interface AppDeps {
  logger: FastifyBaseLogger;
  keys: ApiKeyStore;
  /**
   * Who owns which repository, and the claim policy: every request naming a repository is checked
   * against it (plugins/repository-access.ts).
   */
  repositories: { owners: RepositoryOwnerStore; access: RepositoryAccess };
  probes: ReadinessProbes;
  mergeQueue: MergeQueueService;
  /** createQueue's check that a local-host repository exists (none: not checked). */
  repositoryOnHost?: RepositoryOnHost;
  /**
   * Fork PRs' credentials instead of an API key (x-trunk-public-repo-id, x-forked-workflow-run-id) on
   * the routes that opt in (plugins/fork-auth.ts); refused everywhere when absent.
   */
  forkAuth?: ForkAuthDeps;
  /** Idempotency-Key answers of the merge queue's change endpoints (routes/merge-queue/idempotency.ts). */
  idempotencyKeys: IdempotencyKeyStore;
  /** Base URL this service is reached at, for the OpenAPI `servers` entry and html_url links. */
  publicUrl: string;
  probeTimeoutMs?: number;
  /** How long /readyz?worker=1 reuses a ping workflow's result (default 5 s). */
  workerProbeCacheMs?: number;
  /** The flaky-test area (/v1/flaky-tests/*); left out when absent. */
  flaky?: FlakyDeps;
  /**
   * Trunk's bundle uploads (POST /v1/metrics/createBundleUpload and the signed PUT it answers); served
   * only with `flaky`, whose store and parser they use. Left out when absent.
   */
  bundleUploads?: BundleUploadSettings;
  /** The HTTPS executor protocol (/v1/executor/*, ADR 0014); left out when absent. */
  executors?: ExecutorRouteDeps;
  /** Epoch milliseconds; tests pass a fixed clock. */
  now?: () => number;
  /**
   * GET /v1/getMergeQueueMetrics, computed from the event log; left out when absent. With it,
   * createQueue also lists the new queue for the metrics (zeros until its first submission).
   */
  queueMetrics?: QueueMetricsDeps;
  /** How many queues each organisation may have (createQueue answers 409 past it); no limit when absent. */
  queueQuota?: QueueQuota;
  /** The preflight (/v1/queues/preflight*, issue 28); left out when absent. */
  preflights?: PreflightService;
  /** The webhook area (/v1/webhooks/*); left out when absent. */
  webhooks?: WebhookApiDeps;
  /** /v1/github/installations*, when a GitHub App is configured; left out when absent. */
  gitHubInstallations?: GitHubInstallationApiDeps;
  /** POST /v1/github/webhooks (public, signed), when a GitHub App is configured; left out when absent. */
  gitHubWebhooks?: GitHubWebhookApiDeps;
  /** The process's own metrics; created here when absent (server.ts passes them to count Temporal calls). */
  processMetrics?: ProcessMetrics;
  /** Where those are served: default GET /metrics without an API key; `false` serves none. */
  processMetricsRoute?: ProcessMetricsRoute | false;
  /**
   * Requests per window per organisation (per address without a key, and per address for requests
   * with a wrong key), 429 past it; no limit when absent. server.ts passes RAILYARD_ORG_REQUESTS_PER_SECOND.
   */
  rateLimit?: RateLimitSettings;
  /** Uploads and list queries one organisation may run at once, 429 past it; no cap when absent. */
  inFlight?: InFlightCaps;
  /** How long a client may take to send its request (plugins/server-timeouts.ts); defaults when absent. */
  timeouts?: ServerTimeouts;
  /**
   * Reverse proxies whose X-Forwarded-For names the client (RAILYARD_TRUST_PROXY, plugins/trust-proxy.ts):
   * every budget counted per address then counts the real client; none trusted when absent.
   */
  trustProxy?: readonly string[];
  /** The web dashboard at /ui (sessions, its reads, Temporal UI links); left out when absent. */
  ui?: UiDeps;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkErrorHandler,
    ...(deps.trustProxy && deps.trustProxy.length > 0 ? { trustProxy: [...deps.trustProxy] } : {}),
    ...httpServerOptions(deps.timeouts ?? DEFAULT_SERVER_TIMEOUTS),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // `curl -d '{...}'` sends form encoding by default; treat such a body as the JSON it is.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        org: request.organisation?.slug,
      },
      'request',
    );
  });

  registerErrorHandler(app);
  // Wrong keys are counted per address under the same limit: they have no organisation to count against.
  const authFailures = deps.rateLimit ? createAuthFailureLimiter(deps.rateLimit) : undefined;
  // Its preHandler must run before the ownership check below (hooks run in registration order).
  const forks = deps.forkAuth ? registerForkAuth(app, deps.forkAuth, authFailures) : undefined;
  registerAuth(app, deps.keys, authFailures, forks);
  // After auth (they key on its organisation), before every route (they hook each route as it is added).
  if (deps.rateLimit) await registerRateLimit(app, deps.rateLimit);
  if (deps.inFlight) registerInFlightCaps(app, deps.inFlight);
  registerRepositoryAccess(app, deps.repositories.access);
  await registerOpenApi(app, deps.publicUrl);
  registerProcessMetrics(app, deps.processMetrics ?? createProcessMetrics(), deps.processMetricsRoute);
  await app.register(
    namedPlugin(
      'healthRoutes',
      healthRoutes(deps.probes, {
        timeoutMs: deps.probeTimeoutMs ?? 3_000,
        workerCacheMs: deps.workerProbeCacheMs ?? DEFAULT_WORKER_PROBE_CACHE_MS,
        now: Date.now,
      }),
    ),
  );
  const listed = deps.queueMetrics
    ? listingCreatedQueues(deps.mergeQueue, deps.queueMetrics, deps.logger)
    : deps.mergeQueue;
  const mergeQueue = deps.queueQuota ? limitingQueueCount(listed, deps.queueQuota, deps.logger) : listed;
  const preflights = deps.preflights;
  await app.register(
    namedPlugin(
      'mergeQueueRoutes',
      mergeQueueRoutes(
        mergeQueue,
        deps.idempotencyKeys,
        deps.repositoryOnHost,
        preflights ? (org, report) => preflights.forwardStatus(org, report) : undefined,
      ),
    ),
    { prefix: '/v1' },
  );
  if (preflights)
    await app.register(namedPlugin('preflightRoutes', preflightRoutes(preflights, mergeQueue)), {
      prefix: '/v1',
    });
  await app.register(namedPlugin('repositoryRoutes', repositoryRoutes(deps.repositories.owners)), {
    prefix: '/v1',
  });
  if (deps.flaky)
    await app.register(namedPlugin('flakyTestRoutes', flakyTestRoutes(deps.flaky, deps.publicUrl)), {
      prefix: '/v1',
    });
  if (deps.flaky && deps.bundleUploads)
    await app.register(
      namedPlugin('bundleUploadRoutes', bundleUploadRoutes(deps.flaky, deps.bundleUploads, deps.publicUrl)),
      { prefix: '/v1' },
    );
  if (deps.executors)
    await app.register(namedPlugin('executorRoutes', executorRoutes(deps.executors)), { prefix: '/v1' });
  if (deps.queueMetrics)
    await app.register(namedPlugin('queueMetricsRoutes', queueMetricsRoutes(deps.queueMetrics)), {
      prefix: '/v1',
    });
  // listMergeQueueTestingResults reads the same event log.
  if (deps.queueMetrics)
    await app.register(
      namedPlugin(
        'testingResultsRoutes',
        testingResultsRoutes(deps.queueMetrics.pool, deps.queueMetrics.now),
      ),
      {
        prefix: '/v1',
      },
    );
  if (deps.webhooks)
    await app.register(namedPlugin('webhookRoutes', webhookRoutes(deps.webhooks)), { prefix: '/v1' });
  if (deps.gitHubInstallations)
    await app.register(
      namedPlugin('gitHubInstallationRoutes', gitHubInstallationRoutes(deps.gitHubInstallations)),
      { prefix: '/v1' },
    );
  if (deps.gitHubWebhooks)
    await app.register(namedPlugin('gitHubWebhookRoutes', gitHubWebhookRoutes(deps.gitHubWebhooks)), {
      prefix: '/v1',
    });
  if (deps.ui)
    await app.register(
      namedPlugin(
        'uiRoutes',
        uiRoutes({
          ...deps.ui,
          reads: createDashboardReads(deps.ui.pool),
          mergeQueue,
          ...(deps.flaky ? { flaky: deps.flaky.store } : {}),
          owners: deps.repositories.owners,
          access: deps.repositories.access,
          ...(authFailures ? { failures: authFailures } : {}),
          ...(deps.gitHubInstallations ? { gitHub: deps.gitHubInstallations } : {}),
          publicUrl: deps.publicUrl,
          now: deps.now ?? Date.now,
        }),
      ),
    );
  return app;
}
