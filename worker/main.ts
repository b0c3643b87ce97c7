/**
 * Worker composition root: config → Runtime (Prometheus telemetry, logs) → connection → activities →
 * Worker. SIGINT/SIGTERM start a graceful shutdown: polling stops, running activities get the grace time
 * to finish, then the process exits.
 */
import fs from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  makeTelemetryFilterString,
} from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { createRunLogStore } from '../test-runs/store/run-logs';
import { createActivities } from '../activities';
import { judgeTestsWith } from '../test-runs/judge';
import { createLocalGitHost } from '../git/local-git-host';
import { createProcessBroker } from '../platform/process-runner';
import { createRoutingGitHost } from '../git/routing-git-host';
import { createGitHubWorkerHost } from '../github/app/worker-host';
import { createTestCaseEvents } from '../flaky/events';
import { createFlakyStore } from '../flaky/service';
import { createPool } from '../stores/db';
import { createRunContentStore } from '../test-runs/store/run-content';
import { createRunBaseStore } from '../test-runs/store/run-bases';
import { createRunSlots } from '../test-runs/store/run-slots';
import { ConfigError } from '../platform/env';
import { publicUrlOf } from '../platform/public-url';
import { describeTemporalSecurity, temporalSecurity } from '../platform/temporal-security';
import { createReplicaCensus, GITHUB_WRITERS } from '../platform/replica-census';
import { createReplicaStore } from '../stores/replicas';
import { gitHubAppSettingsOf } from '../github/app/config';
import { loadWorkerConfig } from './config';
import { SDK_LOG_LEVEL } from './sdk-log-level';
import { ensureReevaluationSchedule } from './reevaluation-schedule';
import { ensureMaintenanceSchedule } from './maintenance-schedule';
import { ensureLandingCheckSchedule } from './landing-check-schedule';
import { retentionDefaultsOf } from '../flaky/retention-config';
import {
  ensureGitHubReconciliationSchedule,
  removeGitHubReconciliationSchedule,
} from './github-reconciliation-schedule';

const PREBUILT_BUNDLE = path.resolve(__dirname, '..', 'workflow-bundle.js');

/**
 * The workflow code: RAILYARD_WORKFLOW_BUNDLE's prebuilt bundle when set (it must exist), else the one
 * production images ship (see Dockerfile); development bundles the workflows at start.
 */
function workflowCode(
  bundle: string | undefined,
): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  if (bundle !== undefined) {
    const codePath = path.resolve(bundle);
    if (!fs.existsSync(codePath))
      throw new ConfigError(`RAILYARD_WORKFLOW_BUNDLE: no workflow bundle at ${codePath}`);
    return { workflowBundle: { codePath } };
  }
  return fs.existsSync(PREBUILT_BUNDLE)
    ? { workflowBundle: { codePath: PREBUILT_BUNDLE } }
    : { workflowsPath: require.resolve('../workflows') };
}

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  // Checked at start so a half-configured GitHub App stops the worker too (github/app/config.ts).
  const gitHub = gitHubAppSettingsOf(config);
  const workflows = workflowCode(config.RAILYARD_WORKFLOW_BUNDLE);
  Runtime.install({
    logger: new DefaultLogger(SDK_LOG_LEVEL[config.RAILYARD_LOG_LEVEL]),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} },
      ...(config.RAILYARD_WORKER_METRICS_PORT > 0
        ? {
            metrics: {
              prometheus: {
                bindAddress: `${config.RAILYARD_WORKER_METRICS_HOST}:${config.RAILYARD_WORKER_METRICS_PORT}`,
              },
            },
          }
        : {}),
    },
  });
  const security = temporalSecurity(config);
  Runtime.instance().logger.info(
    `Temporal at ${config.TEMPORAL_ADDRESS} (${describeTemporalSecurity(security)})`,
  );
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS, ...security });
  const clientConnection = await Connection.connect({ address: config.TEMPORAL_ADDRESS, ...security });
  const client = new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE });
  const identity = `railyard-worker@${os.hostname()}:${process.pid}`;
  const workRoot = path.resolve(config.RAILYARD_WORK_ROOT);
  const pool = createPool(config.DATABASE_URL, { applicationName: 'railyard-worker' });
  // git runs from a small broker process: a fork of this large one would cost milliseconds of CPU and
  // of a blocked event loop per call (platform/process-runner.ts).
  const broker = createProcessBroker();
  const localHost = createLocalGitHost({ root: path.resolve(config.RAILYARD_GIT_ROOT), runner: broker });
  // Repositories of the App's host live on GitHub; the worker keeps a mirror of each in its data folder.
  // Every process that writes to GitHub (workers and APIs) shares each installation's write pace.
  const gitHubWriters = gitHub
    ? createReplicaCensus({
        store: createReplicaStore(pool),
        kind: GITHUB_WRITERS,
        id: `${identity}:${randomBytes(4).toString('hex')}`,
        warn: (message) => {
          Runtime.instance().logger.warn(message);
        },
      })
    : null;
  await gitHubWriters?.start();
  const gitHubSide = gitHub
    ? await createGitHubWorkerHost({
        settings: gitHub,
        pool,
        clientOptions: { writers: () => gitHubWriters?.count() ?? 1 },
        mirrorRoot: path.join(workRoot, 'mirrors'),
        publicUrl: publicUrlOf(config.RAILYARD_PUBLIC_URL),
        runner: broker,
      })
    : null;
  const gitHost = createRoutingGitHost(
    localHost,
    gitHub && gitHubSide ? { host: gitHub.host, gitHost: gitHubSide.gitHost } : undefined,
  );
  // test_case.* webhooks: the judge's uploads and the hourly re-evaluation share one dispatch loop.
  const testCaseEvents = createTestCaseEvents({
    pool,
    client,
    taskQueue: config.RAILYARD_TASK_QUEUE,
    publicUrl: publicUrlOf(config.RAILYARD_PUBLIC_URL),
    onError: (err, message) =>
      console.error(`railyard worker: ${message}: ${err instanceof Error ? err.message : String(err)}`),
  });
  const flaky = createFlakyStore(pool, { events: testCaseEvents });
  // Thin run content's bases (ADR 0025), under the same limit as every bundle handed to an executor.
  const bases = createRunBaseStore(pool, { maxBytes: config.RAILYARD_RUN_CONTENT_MAX_MB * 1024 * 1024 });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.RAILYARD_TASK_QUEUE,
    identity,
    ...workflows,
    activities: createActivities({
      workerIdentity: identity,
      gitHost,
      client,
      // Test runs execute on executors (worker/executor.ts); the worker stages their content and caps
      // each organisation's share of them.
      scratchRoot: path.join(workRoot, 'bundles'),
      processes: broker,
      contents: createRunContentStore(pool, {
        maxBytes: config.RAILYARD_RUN_CONTENT_MAX_MB * 1024 * 1024,
        bases,
      }),
      bases,
      slots: createRunSlots(pool, config.RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION),
      taskQueue: config.RAILYARD_TASK_QUEUE,
      pool,
      runLogs: createRunLogStore(pool, {
        maxBytes: config.RAILYARD_RUN_LOG_MAX_BYTES,
        retentionDays: config.RAILYARD_RUN_LOG_RETENTION_DAYS,
      }),
      judgeTests: judgeTestsWith(flaky),
      uploadedFailures: {
        read: (...args) => flaky.failedTestsOfCommit(...args),
        uploadsEver: (...args) => flaky.hasUploads(...args),
        waitMs: config.RAILYARD_CI_UPLOAD_WAIT_SECONDS * 1000,
      },
      allowPrivateWebhookUrls: config.RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS,
      publicUrl: publicUrlOf(config.RAILYARD_PUBLIC_URL),
      testCaseEvents,
      flakyRetention: retentionDefaultsOf(config),
      ...(gitHub ? { gitHubHost: gitHub.host } : {}),
      ...(gitHubSide ? { presenter: gitHubSide.presenter } : {}),
      ...(gitHub && gitHubSide
        ? {
            gitHub: {
              settings: gitHub,
              auth: gitHubSide.auth,
              clients: gitHubSide.clients,
              namespace: config.TEMPORAL_NAMESPACE,
            },
          }
        : {}),
    }),
    shutdownGraceTime: `${config.RAILYARD_SHUTDOWN_GRACE_SECONDS} seconds`,
  });
  // Time-based recovery and staleness of flaky-test statuses happen on a Temporal Schedule.
  await ensureReevaluationSchedule(client, config.RAILYARD_TASK_QUEUE);
  // Day partitions of raw results made ahead, and retention applied (ADR 0019), on another.
  await ensureMaintenanceSchedule(client, config.RAILYARD_TASK_QUEUE);
  // Recent landings compared again on their host (docs/git-host.md, "Landing proof"), on a third.
  await ensureLandingCheckSchedule(client, config.RAILYARD_TASK_QUEUE);
  // GitHub: redelivery of failed webhooks, unhandled deliveries, a reconcile hint to every queue.
  if (gitHub)
    await ensureGitHubReconciliationSchedule(client, config.RAILYARD_TASK_QUEUE, gitHub.reconcileMinutes);
  else await removeGitHubReconciliationSchedule(client);
  console.error(
    `railyard worker polling task queue "${config.RAILYARD_TASK_QUEUE}" on ${config.TEMPORAL_ADDRESS}; ` +
      'test runs go to executors through the API (executeTestRun completes asynchronously)',
  );
  await worker.run();
  await gitHubWriters?.stop();
  await testCaseEvents.idle();
  await Promise.allSettled([connection.close(), clientConnection.close(), pool.end()]);
  broker.close();
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `railyard worker stopped: ${String(err)}`);
  process.exit(1);
});
