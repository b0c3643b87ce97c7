/**
 * GitHub deliveries as hints to real queue workflows (real Temporal, real PostgreSQL, the real queue
 * workflow run by the queue harness's worker), end to end:
 * - a signed delivery posted to POST /v1/github/webhooks is stored, answered, and signalled as a
 *   hostHint to the running queues of the repository's owning organisation (a target hint only to the
 *   queue of that branch), never to another organisation's queue of the same repository, nor for a
 *   delivery of an installation that does not cover it; the row's outcome counts the queues;
 * - a queue that ended is not signalled and is no failure;
 * - gitHubReconciliationWorkflow, run by a worker with the reconciliation activities against fakehub
 *   (`GET /app/hook/deliveries`, `POST /app/hook/deliveries/{id}/attempts`, App JWT, contract-checked),
 *   recovers a delivery fakehub dropped, acts on an unhandled one, sends `reconcile` to the owning
 *   organisation's queues only, and prunes;
 * - ensureGitHubReconciliationSchedule creates, then updates, the Schedule; removal is idempotent.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { createGitHubAppAuth } from '../../../github/app/app-auth';
import { createGitHubOwnerLookup } from '../../../github/store/owner-lookup';
import { createQueueHinter, type QueueHinter } from '../../../github/inbound/queue-hints';
import { createGitHubReconciliationActivities } from '../../../activities/github-reconciliation';
import { signatureOf } from '../../../github/inbound/webhook-signature';
import { createWebhookReceiver, type WebhookReceiver } from '../../../github/inbound/webhook-receiver';
import { createGitHubInstallationStore } from '../../../github/store/installations';
import { createWebhookDeliveryStore } from '../../../github/store/webhook-deliveries';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../../queue-client';
import { createMergeQueueService } from '../../../api/temporal/merge-queue-service';
import {
  ensureGitHubReconciliationSchedule,
  removeGitHubReconciliationSchedule,
} from '../../../worker/github-reconciliation-schedule';
import {
  GITHUB_RECONCILIATION_WORKFLOW_TYPE,
  hostHintSignal,
  queueWorkflowId,
  type HostHint,
  type QueueKey,
} from '../../../contract';
import { buildTestApp } from '../../support/app';
import { requireTestEnv } from '../../support/env';
import { useFakeHub } from '../../support/fakehub';
import { createMigratedDatabase } from '../../support/postgres';
import { startQueueHarness, type QueueHarness } from '../../support/queue-harness';

const hub = useFakeHub();
const SHA = 'd'.repeat(40);
/** The App's webhook secret (fakehub's), set once the fake runs. */
let secret = '';

let h: QueueHarness;
let temporal: TemporalGateway;
let app: FastifyInstance;
let receiver: WebhookReceiver;
let hinter: QueueHinter;
let webhookUrl: string;
/** A commit of the fakehub repository. */
let fakeSha: string;
let installationA: number;
const installationB = 900_002;
let orgA: string;
let orgB: string;
let repoName: string;
const queues: Record<'aMain' | 'aRelease' | 'bMain' | 'harness', string> = {
  aMain: '',
  aRelease: '',
  bMain: '',
  harness: '',
};

beforeAll(async () => {
  const { url } = await createMigratedDatabase('github_hints');
  h = await startQueueHarness({ databaseUrl: url, logLevel: 'ERROR' });
  repoName = h.key.repo.name;
  secret = hub().app.webhookSecret;
  // The same repository on fakehub, in an installation of the App there.
  installationA = hub().createInstallation({ account: 'acme' }).id;
  const repository = await hub().createRepository({
    installationId: installationA,
    owner: 'acme',
    name: repoName,
  });
  fakeSha = await hub().state.run(
    repository.bare,
    ['hash-object', '-w', '-t', 'commit', '--stdin'],
    'tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\nroot\n',
  );
  // The harness's own queue has no search attributes: only its task queue is of use here.
  await h.createQueue();
  queues.harness = h.workflowId;
  const { taskQueue } = await h.client.workflow.getHandle(h.workflowId).describe();
  temporal = createTemporalGateway({
    address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue,
    callTimeoutMs: 20_000,
  });

  const org = async (slug: string) =>
    (
      await h.pool.query<{ id: string }>('INSERT INTO organisations (slug) VALUES ($1) RETURNING id', [
        `${slug}-${randomUUID().slice(0, 8)}`,
      ])
    ).rows[0]!.id;
  orgA = await org('hinted');
  orgB = await org('other');
  const installations = createGitHubInstallationStore(h.pool);
  const link = async (organisationId: string, installationId: number, repos: string[]) => {
    await installations.link(
      organisationId,
      { installationId, host: 'github.com', accountLogin: 'acme', suspendedAt: null },
      'operator',
    );
    await installations.syncRepositories(
      installationId,
      repos.map((name) => ({ owner: 'acme', name })),
    );
  };
  // A covers the harness repository (taken over from the harness's operator claim); B another one.
  await link(orgA, installationA, [repoName]);
  await link(orgB, installationB, [`unrelated-${randomUUID().slice(0, 8)}`]);

  // Queues as the API creates them (with search attributes): A on main and release, B on main of the
  // same repository (its organisation does not own it, so no hint may reach it).
  const service = createMergeQueueService(createQueueClient(temporal));
  const key = (organisationId: string, targetBranch: string): QueueKey => ({
    organisationId,
    repo: h.key.repo,
    targetBranch,
  });
  for (const [name, organisationId, branch] of [
    ['aMain', orgA, 'main'],
    ['aRelease', orgA, 'release'],
    ['bMain', orgB, 'main'],
  ] as const) {
    await service.createQueue({ id: organisationId, slug: name }, { repo: h.key.repo, targetBranch: branch });
    queues[name] = queueWorkflowId(key(organisationId, branch));
  }
  await h.waitFor('the queues in visibility', async () => {
    const { executions } = await h.client.workflowService.listWorkflowExecutions({
      namespace: 'default',
      query: `RailyardRepository = "github.com/acme/${repoName}" AND ExecutionStatus = 'Running'`,
    });
    return executions.length === 3 || undefined;
  });

  hinter = createQueueHinter({ queues: createQueueClient(temporal), onError: () => undefined });
  receiver = createWebhookReceiver({
    deliveries: createWebhookDeliveryStore(h.pool),
    installations,
    owners: createGitHubOwnerLookup(h.pool, 'github.com'),
    hinter,
    onError: () => undefined,
  });
  ({ app } = await buildTestApp(h.pool, { gitHubWebhooks: { secret, receiver } }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  webhookUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1/github/webhooks`;
  hub().webhooks.setTarget(webhookUrl);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await temporal?.close();
  await h?.close();
});

/** Every hostHint signal in the workflow's history, in order. */
async function hintsOf(workflowId: string): Promise<HostHint[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const signalled = e.workflowExecutionSignaledEventAttributes;
    if (signalled?.signalName !== hostHintSignal.name) return [];
    return [defaultPayloadConverter.fromPayload<HostHint>(signalled.input!.payloads![0]!)];
  });
}

type Hints = Record<keyof typeof queues, HostHint[]>;
const canonical = (hints: HostHint[]) => hints.map((x) => JSON.stringify(x)).sort();

/**
 * The hints each queue received while `fn` ran, once they match `expected` (in any order). A signal
 * reaching a workflow busy with a task enters its history when that task completes, after the signal
 * call returned, so the histories are read until they hold what is expected (or the wait ends, and
 * the comparison shows what they hold).
 */
async function hintsDuring(fn: () => Promise<void>, expected: Partial<Hints>): Promise<Hints> {
  const names = Object.keys(queues) as (keyof typeof queues)[];
  const before = await Promise.all(names.map((n) => hintsOf(queues[n])));
  await fn();
  const read = async () => {
    const after = await Promise.all(names.map((n) => hintsOf(queues[n])));
    return Object.fromEntries(names.map((n, i) => [n, after[i]!.slice(before[i]!.length)])) as Hints;
  };
  const matches = (hints: Hints) =>
    names.every((n) => JSON.stringify(canonical(hints[n])) === JSON.stringify(canonical(expected[n] ?? [])));
  let last = await read();
  try {
    await h.waitFor('the expected hints', async () => matches((last = await read())), 20_000);
  } catch {
    // Compared below, with the difference shown.
  }
  return Object.fromEntries(
    names.map((n) => [n, [...last[n]].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))]),
  ) as Hints;
}

const sorted = (expected: Partial<Hints>): Hints =>
  Object.fromEntries(
    (Object.keys(queues) as (keyof typeof queues)[]).map((n) => [
      n,
      [...(expected[n] ?? [])].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
    ]),
  ) as Hints;

async function deliver(event: string, payload: object) {
  const id = randomUUID();
  const body = JSON.stringify(payload);
  const res = await fetch(webhookUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': id,
      'x-hub-signature-256': signatureOf(secret, body),
    },
    body,
  });
  expect(res.status).toBe(200);
  await receiver.idle();
  return id;
}

const outcomeOf = async (deliveryId: string) =>
  (
    await h.pool.query<{ outcome: string | null }>(
      'SELECT outcome FROM github_webhook_deliveries WHERE delivery_id = $1',
      [deliveryId],
    )
  ).rows[0]?.outcome;

const envelope = (installationId = installationA) => ({
  installation: { id: installationId },
  repository: { full_name: `acme/${repoName}` },
});

test('a pull_request delivery hints every queue of the owning organisation, and no other', async () => {
  let id = '';
  const pr: HostHint = { kind: 'pull_request', pr: 7 };
  const expected = { aMain: [pr], aRelease: [pr] };
  const hints = await hintsDuring(async () => {
    id = await deliver('pull_request', { ...envelope(), action: 'synchronize', pull_request: { number: 7 } });
  }, expected);
  expect(hints).toEqual(sorted(expected));
  expect(await outcomeOf(id)).toBe('hinted 2 queues');
});

test('a push hints only the queue of that target branch; checks hint every queue of the owner', async () => {
  const pushedExpected = { aRelease: [{ kind: 'target', branch: 'release' }] } satisfies Partial<Hints>;
  const pushed = await hintsDuring(async () => {
    expect(
      await outcomeOf(await deliver('push', { ...envelope(), ref: 'refs/heads/release', after: SHA })),
    ).toBe('hinted 1 queue');
    expect(
      await outcomeOf(await deliver('push', { ...envelope(), ref: 'refs/heads/trunk-merge/pr-1/x' })),
    ).toBe('not acted on');
  }, pushedExpected);
  expect(pushed).toEqual(sorted(pushedExpected));

  const checksExpected = {
    aMain: [{ kind: 'checks', sha: SHA }],
    aRelease: [{ kind: 'checks', sha: SHA }],
  } satisfies Partial<Hints>;
  const checks = await hintsDuring(async () => {
    await deliver('check_run', { ...envelope(), action: 'completed', check_run: { head_sha: SHA } });
  }, checksExpected);
  expect(checks).toEqual(sorted(checksExpected));
});

test('a delivery of an installation that does not cover the repository hints nobody', async () => {
  let ids: string[] = [];
  const hints = await hintsDuring(async () => {
    ids = [
      // B's installation naming A's repository (B's organisation also has a queue of it).
      await deliver('pull_request', {
        ...envelope(installationB),
        action: 'opened',
        pull_request: { number: 8 },
      }),
      // An installation nobody linked.
      await deliver('pull_request', { ...envelope(900_999), action: 'opened', pull_request: { number: 8 } }),
    ];
  }, {});
  expect(hints).toEqual(sorted({}));
  expect(await outcomeOf(ids[0]!)).toBe('repository not covered by the installation');
  expect(await outcomeOf(ids[1]!)).toBe('installation not linked');
});

test('gitHubReconciliationWorkflow recovers a delivery GitHub dropped, acts on an unhandled one, reconciles the owner’s queues, prunes', async () => {
  // fakehub drops a status delivery: GitHub lists it as failed (status code 0) and never retries it.
  hub().webhooks.drop(1);
  hub().setStatus('acme', repoName, fakeSha, { context: 'ci/dropped', state: 'success' });
  await hub().webhooks.idle();
  const dropped = hub().webhooks.deliveries.at(-1)!;
  expect(dropped).toMatchObject({ event: 'status', outcome: 'dropped' });
  expect(await outcomeOf(dropped.guid)).toBeUndefined();

  // A delivery the api stored but never acted on (it stopped in between), received ten minutes ago,
  // and one received 15 days ago.
  const deliveries = createWebhookDeliveryStore(h.pool);
  const unhandled = randomUUID();
  await deliveries.record({
    deliveryId: unhandled,
    event: 'pull_request',
    action: 'closed',
    installationId: installationA,
    repository: `acme/${repoName}`,
    payload: JSON.stringify({ ...envelope(), action: 'closed', pull_request: { number: 13 } }),
  });
  const old = randomUUID();
  await deliveries.record({
    deliveryId: old,
    event: 'ping',
    action: null,
    installationId: null,
    repository: null,
    payload: '{}',
  });
  await deliveries.markHandled(old, 'not acted on');
  await h.pool.query(
    `UPDATE github_webhook_deliveries SET received_at = now() - CASE WHEN delivery_id = $1
       THEN interval '10 minutes' ELSE interval '15 days' END WHERE delivery_id IN ($1, $2)`,
    [unhandled, old],
  );

  const settings = { appId: hub().app.id, apiUrl: hub().url, host: 'github.com' };
  const auth = await createGitHubAppAuth({ ...settings, privateKey: hub().app.privateKey });
  const taskQueue = `github-reconciliation-${randomUUID()}`;
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address: requireTestEnv('TEST_TEMPORAL_ADDRESS') }),
    taskQueue,
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities: createGitHubReconciliationActivities({
      pool: h.pool,
      client: h.client,
      namespace: 'default',
      settings,
      auth,
    }),
  });
  const reconcile: HostHint = { kind: 'reconcile' };
  const owners: HostHint[] = [{ kind: 'checks', sha: fakeSha }, { kind: 'pull_request', pr: 13 }, reconcile];
  const expected = { aMain: owners, aRelease: owners };
  let summary: unknown;
  const hints = await hintsDuring(async () => {
    summary = await worker.runUntil(
      h.client.workflow.execute(GITHUB_RECONCILIATION_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `github-reconciliation-test-${randomUUID()}`,
        workflowExecutionTimeout: '2 minutes',
      }),
    );
    await hub().webhooks.idle();
    await receiver.idle();
  }, expected);

  expect(summary).toMatchObject({
    redelivery: { redelivered: 1, redeliveryFailed: 0, complete: true },
    unhandled: { acted: 1, failed: 0 },
    queues: { hinted: 2, failed: 0 },
    pruned: { deleted: 1 },
    failed: [],
  });
  // GitHub redelivered the dropped delivery under its guid; the api stored it and acted on it.
  expect(hub().webhooks.deliveries.at(-1)).toMatchObject({
    guid: dropped.guid,
    redelivery: true,
    outcome: 'delivered',
  });
  expect(await outcomeOf(dropped.guid)).toBe('hinted 2 queues');
  expect(await outcomeOf(unhandled)).toBe('hinted 2 queues');
  expect(await outcomeOf(old)).toBeUndefined();
  // The owner's queues got the recovered hint, the unhandled one's and `reconcile`; no other queue.
  expect(hints).toEqual(sorted(expected));
  // The delivery log was read and the redelivery asked for with the App JWT (fakehub checks the
  // credential kind of each operation); no credential reached the summary.
  expect(
    hub()
      .requests.filter((r) => r.path.startsWith('/app/hook/deliveries'))
      .map((r) => ({ method: r.method, status: r.status })),
  ).toEqual([
    { method: 'GET', status: 200 },
    { method: 'POST', status: 202 },
  ]);
  expect(JSON.stringify(summary)).not.toMatch(/eyJ|Bearer|ghs_/);
}, 120_000);

test('a queue that ended is not signalled, and is no failure', async () => {
  await h.client.workflow.getHandle(queues.aRelease).terminate('test: the queue ended');
  const result = await hinter.hintRepository(
    { organisationId: orgA, spellings: [h.key.repo] },
    { kind: 'pull_request', pr: 21 },
  );
  expect(result).toMatchObject({ hinted: 1, failed: 0 });
  expect((await hintsOf(queues.aRelease)).some((x) => x.kind === 'pull_request' && x.pr === 21)).toBe(false);
});

test('ensureGitHubReconciliationSchedule creates, then updates the Schedule; removal is idempotent', async () => {
  const scheduleId = `github-reconciliation-${randomUUID()}`;
  expect(await ensureGitHubReconciliationSchedule(h.client, 'tq-a', 5, { scheduleId })).toBe('created');
  expect(await ensureGitHubReconciliationSchedule(h.client, 'tq-b', 7, { scheduleId })).toBe('updated');
  const described = await h.client.schedule.getHandle(scheduleId).describe();
  expect(described.spec.intervals).toMatchObject([{ every: 7 * 60_000 }]);
  expect(described.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
  expect(described.action).toMatchObject({
    type: 'startWorkflow',
    workflowType: GITHUB_RECONCILIATION_WORKFLOW_TYPE,
    taskQueue: 'tq-b',
  });
  expect(await removeGitHubReconciliationSchedule(h.client, { scheduleId })).toBe(true);
  expect(await removeGitHubReconciliationSchedule(h.client, { scheduleId })).toBe(false);
});
