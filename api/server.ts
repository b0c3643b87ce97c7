/**
 * API composition root: config → pino → pg pools → stores → Temporal gateway → queue client → JUnit
 * parser threads → buildApp → listen → the flaky-test fold loop. SIGINT/SIGTERM close the server
 * (in-flight requests finish), then the fold loop, the parser threads, the pool and the connection.
 */
import { createRunContentStore } from '../test-runs/store/run-content';
import { createExecutorCredentials } from '../test-runs/store/executor-credentials';
import { createExecutorJobs } from '../test-runs/store/executor-jobs';
import { createExecutorDispatch } from '../test-runs/executor-dispatch';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pino from 'pino';
import { createQueueQuota } from '../events/store/queue-quota';
import { createTestCaseEvents } from '../flaky/events';
import { createJunitParser, defaultParserThreads } from '../flaky/junit/pool';
import { createFlakyStore } from '../flaky/service';
import { createFoldLoop, createFoldMetrics } from '../flaky/fold';
import { registerLandingMetrics } from '../events/landing-metrics';
import { DEFAULT_BUNDLE_LIMITS } from '../flaky/bundle';
import { ConfigError } from '../platform/env';
import { publicUrlOf } from '../platform/public-url';
import { describeTemporalSecurity, temporalSecurity } from '../platform/temporal-security';
import { createReplicaCensus, GITHUB_WRITERS } from '../platform/replica-census';
import { createReplicaStore } from '../stores/replicas';
import { pingDatabase } from '../stores/db';
import { createApiKeyStore } from '../stores/api-keys';
import { createIdempotencyKeyStore } from '../stores/idempotency-keys';
import { createGitHubAppAuth } from '../github/app/app-auth';
import { gitHubAppSettingsOf } from '../github/app/config';
import { createInstallationsApi } from '../github/app/installations-api';
import { createCodeExchange, createUserProof } from '../github/app/user-proof';
import { createLinkStateStore } from '../github/store/link-states';
import { createGitHubInstallationStore } from '../github/store/installations';
import { createWebhookDeliveryStore } from '../github/store/webhook-deliveries';
import { createWebhookReceiver } from '../github/inbound/webhook-receiver';
import { createGitHubOwnerLookup } from '../github/store/owner-lookup';
import { createQueueHinter } from '../github/inbound/queue-hints';
import { createPrCommandHandler } from '../github/inbound/pr-command-handler';
import { createProjectedQueues } from '../github/store/projected-queue';
import { createGitHubClients } from '../github/app/rest-client';
import { createForkedRunVerifier } from '../github/inbound/forked-runs';
import { createRepositoryPublicIds } from '../stores/repository-public-ids';
import { repositoryAccessWithGitHub } from './plugins/github-repository-access';
import { createSubscriptionStore } from '../webhooks';
import { buildApp } from './app';
import { createProcessMetrics, instrumentTemporalGateway } from './plugins/process-metrics';
import { loadApiConfig } from './config';
import { localRepositoryCheck } from './routes/merge-queue/repository-on-host';
import { createApiPools } from './pools';
import { createMergeQueueService } from './temporal/merge-queue-service';
import { createPreflightService } from './temporal/preflights';
import { createTestDurations } from '../events/store/test-durations';
import { createRunLogStore } from '../test-runs/store/run-logs';
import { createQueueViewStore } from '../events/store/queue-views';
import { createPrRecordStore } from '../events/store/pr-records';
import { createQueueClient, createTemporalGateway } from '../queue-client';
import { createUiSessionStore } from './dashboard/store/sessions';

async function main(): Promise<void> {
  const config = loadApiConfig();
  const gitHub = gitHubAppSettingsOf(config);
  const logger = pino({
    level: config.RAILYARD_LOG_LEVEL,
    redact: {
      paths: ['req.headers["x-api-token"]', 'req.headers.authorization', '*.key', '*.secret'],
      censor: '[redacted]',
    },
  });
  // Key lookups get connections of their own, so heavy routes on `pool` never delay authentication.
  const pools = createApiPools(config);
  const pool = pools.main;
  const pageTokenSecret = config.RAILYARD_PAGE_TOKEN_SECRET ?? randomBytes(32).toString('base64url');
  if (!config.RAILYARD_PAGE_TOKEN_SECRET) {
    logger.warn(
      'RAILYARD_PAGE_TOKEN_SECRET is not set: page tokens and bundle upload URLs are signed with a per-process key and fail after a restart or on another API process.',
    );
  }
  const processMetrics = createProcessMetrics();
  const temporalSec = temporalSecurity(config);
  logger.info(
    { temporal: config.TEMPORAL_ADDRESS, security: describeTemporalSecurity(temporalSec) },
    'Temporal connection',
  );
  const temporal = instrumentTemporalGateway(
    createTemporalGateway({
      address: config.TEMPORAL_ADDRESS,
      security: temporalSec,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.RAILYARD_TASK_QUEUE,
      callTimeoutMs: config.RAILYARD_TEMPORAL_CALL_TIMEOUT_MS,
    }),
    processMetrics,
  );
  // The one queue client of this process: the merge-queue routes and the GitHub handlers share its
  // deadlines, per-workflow slots and admission poller.
  const queues = createQueueClient(temporal);
  const publicUrl = publicUrlOf(config.RAILYARD_PUBLIC_URL, {
    host: config.RAILYARD_API_HOST,
    port: config.RAILYARD_API_PORT,
  });
  // test_case.* webhooks of uploads and override changes, dispatched after each commit.
  const testCaseEvents = createTestCaseEvents({
    pool,
    client: temporal.client,
    taskQueue: temporal.taskQueue,
    publicUrl,
    onError: (err, message) => logger.warn({ err }, message),
  });
  // Uploads are acknowledged once their raw rows are stored; this loop folds them into rollups and
  // classification, in every API process (ADR 0018: the per-repository lock makes replicas safe).
  const foldLoop = createFoldLoop(pool, {
    concurrency: config.RAILYARD_FOLD_CONCURRENCY,
    events: testCaseEvents.published,
    metrics: createFoldMetrics(processMetrics.registry, pool),
    onError: (err, repositoryPk) =>
      logger.warn({ err, repositoryPk }, 'flaky-test fold failed; its uploads stay pending and are retried'),
  });
  // Landings the landing check found changed outside the queue (docs/operations.md, LandingChanged).
  registerLandingMetrics(processMetrics.registry, pool);
  const parser = await createJunitParser({
    threads: config.RAILYARD_PARSER_THREADS ?? defaultParserThreads(),
    warn: (err, message) => logger.warn({ err }, message),
  });
  const installations = gitHub ? createGitHubInstallationStore(pool) : null;
  // One App authentication and one throttled REST client per installation for this process (commands
  // in PR comments react and reply through them).
  const gitHubAuth = gitHub ? await createGitHubAppAuth(gitHub) : null;
  // Every process that writes to GitHub (APIs and workers) shares each installation's write pace.
  const gitHubWriters = gitHub
    ? createReplicaCensus({
        store: createReplicaStore(pools.main),
        kind: GITHUB_WRITERS,
        id: `${os.hostname()}:${process.pid}:api:${randomBytes(4).toString('hex')}`,
        warn: (message) => logger.warn(message),
      })
    : null;
  await gitHubWriters?.start();
  const gitHubClients =
    gitHub && gitHubAuth
      ? await createGitHubClients(gitHub, gitHubAuth, { writers: () => gitHubWriters?.count() ?? 1 })
      : null;
  // Deliveries are acted on after they are answered; shutdown waits for that work.
  // Pull request, push and check deliveries become hints to the owning organisation's queues, and
  // commands in PR comments act on them (github/inbound/pr-command-handler.ts).
  const gitHubWebhooks =
    gitHub && installations && gitHubClients
      ? createWebhookReceiver({
          deliveries: createWebhookDeliveryStore(pool),
          installations,
          owners: createGitHubOwnerLookup(pool, gitHub.host),
          hinter: createQueueHinter({
            queues,
            onError: (err, message) => logger.warn({ err }, message),
          }),
          commands: createPrCommandHandler({
            queues,
            projected: createProjectedQueues(pool),
            clients: gitHubClients,
            onError: (err, message) => logger.warn({ err }, message),
          }),
          onError: (err, message) => logger.warn({ err }, message),
        })
      : null;
  // The API processes alive: per-organisation request rates are split over them (issue 27).
  const census = createReplicaCensus({
    store: createReplicaStore(pools.main),
    kind: 'api',
    id: `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    warn: (message) => logger.warn(message),
  });
  await census.start();
  const app = await buildApp({
    logger,
    publicUrl,
    keys: createApiKeyStore(pools.keys, {
      onTouchError: (err) => logger.warn({ err }, 'could not record API key use'),
    }),
    repositoryOnHost: localRepositoryCheck({
      gitRoot: config.RAILYARD_GIT_ROOT,
      ...(gitHub ? { gitHubHost: gitHub.host } : {}),
    }),
    // Executors take test runs, fetch their content, heartbeat and report here (issue 24, ADR 0014):
    // the API completes the worker's asynchronous executeTestRun activities for them.
    executors: {
      credentials: createExecutorCredentials(pool),
      dispatch: createExecutorDispatch({
        jobs: createExecutorJobs(pool),
        activities: temporal.client.activity,
        taskQueue: config.RAILYARD_TASK_QUEUE,
      }),
      contents: createRunContentStore(pool),
      onKeepAliveError: (err) =>
        logger.warn({ err }, 'queued test runs were not kept alive; next pass in 5 s'),
    },
    repositories: repositoryAccessWithGitHub(pool, {
      claims: config.RAILYARD_REPOSITORY_CLAIMS,
      maxPerOrganisation: config.RAILYARD_MAX_REPOSITORIES_PER_ORGANISATION,
      gitHubHost: gitHub?.host,
    }),
    ...(gitHub && installations && gitHubWebhooks && gitHubAuth
      ? {
          gitHubInstallations: {
            store: installations,
            github: await createInstallationsApi(gitHub, gitHubAuth),
            host: gitHub.host,
            // Organisations link only with proof (ADR 0015): a user token of the app, got on the dashboard
            // through GitHub's OAuth page when the app's client id and secret are configured.
            proof: await createUserProof(gitHub),
            ...(gitHub.oauth
              ? { oauth: { exchange: createCodeExchange(gitHub.oauth), states: createLinkStateStore(pool) } }
              : {}),
          },
          gitHubWebhooks: { secret: gitHub.webhookSecret, receiver: gitHubWebhooks },
        }
      : {}),
    // Records link their runs' logs and estimate time to merge from the event log (ADR 0011).
    // The preflight (issue 28): one workflow per queue, read back by the queue's address.
    preflights: createPreflightService({ client: temporal.client, taskQueue: temporal.taskQueue }),
    mergeQueue: createMergeQueueService(queues, {
      publicUrl,
      testDurations: createTestDurations(pool),
      runLogs: createRunLogStore(pool),
      // getQueue and listPullRequests read PostgreSQL, not the workflows (ADR 0016).
      projection: { views: createQueueViewStore(pool), records: createPrRecordStore(pool) },
    }),
    // Fork PRs: uploads with the repository's public id, setImpactedTargets with a run GitHub vouches for.
    forkAuth: {
      publicIds: createRepositoryPublicIds(pool),
      runChecks: {
        perAddressPerMinute: config.RAILYARD_FORK_RUN_CHECKS_PER_MINUTE,
        perRepositoryPerHour: config.RAILYARD_FORK_RUN_CHECKS_PER_REPO_PER_HOUR,
      },
      replicas: () => census.count(),
      ...(gitHub && gitHubClients
        ? { forkedRuns: { host: gitHub.host, verifier: createForkedRunVerifier(gitHubClients) } }
        : {}),
    },
    idempotencyKeys: createIdempotencyKeyStore(pool, {
      ttlMs: config.RAILYARD_IDEMPOTENCY_KEY_TTL_HOURS * 3_600_000,
    }),
    flaky: {
      store: createFlakyStore(pool, {
        events: testCaseEvents,
        fold: { kind: 'async', wake: () => foldLoop.wake() },
      }),
      pageTokenSecret,
      parser,
    },
    bundleUploads: {
      pool,
      secret: pageTokenSecret,
      maxBundleBytes: config.RAILYARD_BUNDLE_MAX_BYTES,
      limits: { ...DEFAULT_BUNDLE_LIMITS, maxUnpackedBytes: config.RAILYARD_BUNDLE_MAX_UNPACKED_BYTES },
      urlTtlSeconds: config.RAILYARD_BUNDLE_URL_TTL_SECONDS,
      maxLivePublicIdUploads: config.RAILYARD_PUBLIC_ID_UPLOAD_URLS,
    },
    processMetrics,
    rateLimit:
      config.RAILYARD_ORG_REQUESTS_PER_SECOND > 0
        ? { max: config.RAILYARD_ORG_REQUESTS_PER_SECOND, windowMs: 1_000, replicas: () => census.count() }
        : undefined,
    inFlight: {
      uploads: config.RAILYARD_ORG_UPLOADS_IN_FLIGHT,
      lists: config.RAILYARD_ORG_LIST_QUERIES_IN_FLIGHT,
      publicIdUploads: config.RAILYARD_PUBLIC_ID_UPLOADS_IN_FLIGHT,
    },
    ...(config.RAILYARD_TRUST_PROXY ? { trustProxy: config.RAILYARD_TRUST_PROXY } : {}),
    timeouts: {
      headersMs: config.RAILYARD_API_HEADERS_TIMEOUT_MS,
      requestMs: config.RAILYARD_API_REQUEST_TIMEOUT_MS,
      idleMs: config.RAILYARD_API_IDLE_TIMEOUT_MS,
    },
    queueMetrics: { pool },
    queueQuota: createQueueQuota(pool, { maxPerOrganisation: config.RAILYARD_MAX_QUEUES_PER_ORGANISATION }),
    webhooks: {
      pool,
      subscriptions: createSubscriptionStore(pool, {
        maxPerOrganisation: config.RAILYARD_MAX_WEBHOOKS_PER_ORGANISATION,
      }),
      allowPrivateUrls: config.RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS,
    },
    ui: {
      sessions: createUiSessionStore(pool, { ttlMs: config.RAILYARD_UI_SESSION_HOURS * 3_600_000 }),
      pool,
      ...(config.RAILYARD_TEMPORAL_UI_URL === 'off'
        ? {}
        : { temporalUi: { url: config.RAILYARD_TEMPORAL_UI_URL, namespace: config.TEMPORAL_NAMESPACE } }),
    },
    probes: {
      postgres: () => pingDatabase(pool),
      temporal: () => temporal.ping(),
      worker: () => temporal.pingWorker(),
    },
  });
  await app.listen({ host: config.RAILYARD_API_HOST, port: config.RAILYARD_API_PORT });
  foldLoop.start();

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    void (async () => {
      await app.close();
      await census.stop();
      await gitHubWriters?.stop();
      // A batch under way commits or rolls back; whatever is left pending is folded after the restart.
      await foldLoop.stop();
      await gitHubWebhooks?.idle();
      await parser.close();
      await testCaseEvents.idle();
      await Promise.allSettled([pools.end(), temporal.close()]);
      process.exit(0);
    })();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `railyard api stopped: ${String(err)}`);
  process.exit(1);
});
