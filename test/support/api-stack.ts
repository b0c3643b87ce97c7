/**
 * The real API over the real merge queue, for route tests: one deployment per test file (a scratch
 * database, a worker running the bundled workflows and the real activities on a task queue of its own,
 * an executor; queue-harness.ts) and the app built on it with the Temporal-backed MergeQueueService,
 * which starts the queues it creates on that task queue. Every test gets a queue address of its own: a
 * new organisation with an API key, owning a new repository (`main` holding the test command); the test
 * creates the queue through the API. After the test every queue workflow it made ends.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { createApiKeyStore, type ApiKeyStore } from '../../stores/api-keys';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../queue-client';
import { createMergeQueueService } from '../../api/temporal/merge-queue-service';
import { createPreflightService } from '../../api/temporal/preflights';
import { createQueueViewStore } from '../../events/store/queue-views';
import { createPrRecordStore } from '../../events/store/pr-records';
import type { MergeQueueService, QueueAddress } from '../../api/routes/merge-queue/service';
import { queueWorkflowId, type QueueKey } from '../../contract';
import { buildTestApp, type CapturedLog, type TestAppDeps } from './app';
import { requireTestEnv } from './env';
import { createScratchDatabase } from './postgres';
import {
  startQueueDeployment,
  type DeploymentOptions,
  type QueueDeployment,
  type QueueHarness,
  type QueueOptions,
} from './queue-harness';
import { endQueueWorkflows } from './queue-teardown';

export interface ApiStack {
  app: FastifyInstance;
  log: CapturedLog;
  deployment: QueueDeployment;
  keys: ApiKeyStore;
  client: Client;
  /** A new organisation (no repository) and an API key of it. */
  newOrganisation(): Promise<{ id: string; slug: string; token: string }>;
  /** Ends the queue workflows of `key` after the test (queues a test made outside `newQueue`'s). */
  endAfterTest(key: QueueKey): void;
}

/** An update a queue workflow accepted: its name, its update id and its argument. */
export interface AcceptedUpdate {
  name: string;
  updateId: string;
  input: unknown;
}

/** One test's queue address on the stack, and the organisation (with a key) that owns its repository. */
export interface ApiQueue {
  /** The repository, its git working clone and PR helpers (`h.openPr`), the organisation's id. */
  h: QueueHarness;
  /** An API key of the organisation owning the repository. */
  token: string;
  /** `main` of the repository: the queue address the test creates through the API. */
  Q: QueueAddress;
  /** The repository as the queue's sentences name it: `github.com/acme/widgets-…`. */
  repoLabel: string;
  /**
   * The address of another branch of the repository (pushed at main's tip); its queue workflows end
   * with the test's.
   */
  branch(name: string): QueueAddress;
  /** The updates the queue workflow of `address` (default `Q`) accepted, oldest first, from its history. */
  acceptedUpdates(address?: QueueAddress): Promise<AcceptedUpdate[]>;
}

export interface ApiStackOptions extends DeploymentOptions {
  /** The scratch database's name prefix. */
  prefix: string;
  /** The service the routes call, made from the real one (a test's hooks in front of it). */
  mergeQueue?: (real: MergeQueueService) => MergeQueueService;
  /** More app dependencies, from the deployment (its git root, say). */
  app?: (deployment: QueueDeployment) => TestAppDeps;
}

export function useApiStack(options: ApiStackOptions): {
  stack(): ApiStack;
  newQueue(opts?: QueueOptions): Promise<ApiQueue>;
} {
  const { prefix, mergeQueue, app: appDeps, ...deploymentOptions } = options;
  let stack: ApiStack | undefined;
  let temporal: TemporalGateway | undefined;
  const harnesses: QueueHarness[] = [];
  const keysToEnd: QueueKey[] = [];

  beforeAll(async () => {
    const databaseUrl = await createScratchDatabase(prefix, requireTestEnv('TEST_PG_TEMPLATE'));
    const deployment = await startQueueDeployment({ ...deploymentOptions, databaseUrl });
    temporal = createTemporalGateway({
      address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
      namespace: 'default',
      taskQueue: deployment.taskQueue,
      callTimeoutMs: 30_000,
    });
    // As api/server.ts: reads from the projection (ADR 0016).
    const real = createMergeQueueService(createQueueClient(temporal), {
      projection: {
        views: createQueueViewStore(deployment.pool),
        records: createPrRecordStore(deployment.pool),
      },
    });
    const keys = createApiKeyStore(deployment.pool);
    const { app, log } = await buildTestApp(deployment.pool, {
      keys,
      // The preflight reads the host's checks every half second, not every 5 s.
      preflights: createPreflightService({
        client: temporal.client,
        taskQueue: deployment.taskQueue,
        pollMs: 500,
      }),
      ...appDeps?.(deployment),
      mergeQueue: mergeQueue ? mergeQueue(real) : real,
    });
    stack = {
      app,
      log,
      deployment,
      keys,
      client: deployment.client,
      async newOrganisation() {
        const slug = `org-${randomUUID().slice(0, 8)}`;
        const token = (await keys.create(slug)).key;
        const { rows } = await deployment.pool.query<{ id: string }>(
          'SELECT id FROM organisations WHERE slug = $1',
          [slug],
        );
        return { id: rows[0]!.id, slug, token };
      },
      endAfterTest: (key) => void keysToEnd.push(key),
    };
  }, 60_000);

  // A test's queues end while the next test runs (nothing is shared between them); all have ended
  // before the deployment closes.
  const ending: Promise<unknown>[] = [];
  const endingFailures: unknown[] = [];
  afterEach(() => {
    if (!stack) return;
    const { client } = stack;
    const keys = keysToEnd.splice(0);
    const done = harnesses.splice(0);
    ending.push(
      Promise.all([
        ...keys.map((key) => endQueueWorkflows(client, key, [])),
        ...done.map((h) => h.close()),
      ]).catch((err: unknown) => endingFailures.push(err)),
    );
  });

  afterAll(async () => {
    await Promise.all(ending);
    await stack?.app.close();
    await temporal?.close();
    await stack?.deployment.close();
    if (endingFailures.length > 0) throw endingFailures[0];
  }, 60_000);

  function current(): ApiStack {
    if (!stack) throw new Error('no stack: call useApiStack() at the top of the test file');
    return stack;
  }

  return {
    stack: current,
    async newQueue(opts) {
      const { deployment, keys, client, endAfterTest } = current();
      const h = await deployment.newQueue(opts);
      harnesses.push(h);
      const { rows } = await deployment.pool.query<{ slug: string }>(
        'SELECT slug FROM organisations WHERE id = $1',
        [h.key.organisationId],
      );
      const token = (await keys.create(rows[0]!.slug)).key;
      const { repo, organisationId } = h.key;
      const main: QueueAddress = { repo, targetBranch: 'main' };
      return {
        h,
        token,
        Q: main,
        repoLabel: `${repo.host}/${repo.owner}/${repo.name}`,
        branch(name) {
          h.fx.pushBranch(name, h.fx.tip('main'));
          endAfterTest({ organisationId, repo, targetBranch: name });
          return { repo, targetBranch: name };
        },
        async acceptedUpdates(address = main) {
          const id = queueWorkflowId({ organisationId, ...address });
          const history = await client.workflow.getHandle(id).fetchHistory();
          return (history.events ?? []).flatMap((e) => {
            const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
            const name = request?.input?.name;
            const updateId = request?.meta?.updateId;
            if (!name || !updateId) return [];
            const arg = request.input?.args?.payloads?.[0];
            return [{ name, updateId, input: arg ? defaultPayloadConverter.fromPayload(arg) : undefined }];
          });
        },
      };
    },
  };
}
