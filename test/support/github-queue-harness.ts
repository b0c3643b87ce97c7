/**
 * End-to-end harness for the merge queue on GitHub, against fakehub: a repository on the fake with an
 * App installation linked to a fresh organisation, the real API's webhook route (deliveries become
 * hints to the queue), one or more real workers in this process (the bundled workflows, the real
 * activities, the `github` git host with a mirror folder of their own), and a fake CI that reports a
 * check run for every commit pushed to a test branch or a PR. Stories drive the queue through the same
 * messages the API sends, like queue-harness.ts does for the local host.
 *
 * As there, the processes (API, workers, executor, connections) are a deployment started once per test
 * file (`useGitHubQueueHarness`, which starts the file's fakehub too); each test gets a queue of its
 * own: a new organisation with a new App installation, a new repository on the fake with its own fake
 * CI, a new queue workflow. Closing a queue ends its workflows and its CI; its `logs` hold what the
 * deployment logged while it was open.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Pool } from 'pg';
import { createActivities } from '../../activities';
import { createLocalGitHost } from '../../git/local-git-host';
import { createProcessBroker } from '../../platform/process-runner';
import { createSyncBroker } from './sync-broker';
import { createRoutingGitHost } from '../../git/routing-git-host';
import { createGitHubGitHost } from '../../github/host/git-host';
import { createGitHubAppAuth } from '../../github/app/app-auth';
import { createGitHubPresenter } from '../../github/presentation/pr-presenter';
import { createApiKeyStore } from '../../stores/api-keys';
import { createQueueClient, createTemporalCalls, createTemporalGateway } from '../../queue-client';
import { createMergeQueueService } from '../../api/temporal/merge-queue-service';
import { createPreflightService } from '../../api/temporal/preflights';
import { DEFAULT_GITHUB_PRESENTATION_WRITES_PER_MINUTE } from '../../github/app/config';
import { createPresentationClients } from '../../github/app/worker-host';
import { createGitHubClients, type GitHubClientOptions } from '../../github/app/rest-client';
import { createGitHubOwnerLookup } from '../../github/store/owner-lookup';
import { createQueueHinter } from '../../github/inbound/queue-hints';
import { createWebhookReceiver, type WebhookReceiver } from '../../github/inbound/webhook-receiver';
import { createPrCommandHandler } from '../../github/inbound/pr-command-handler';
import { createProjectedQueues } from '../../github/store/projected-queue';
import { createPool } from '../../stores/db';
import { createFlakyStore } from '../../flaky/service';
import { createGitHubInstallationStore, installationCovering } from '../../github/store/installations';
import { createWebhookDeliveryStore } from '../../github/store/webhook-deliveries';
import type { QueueConfigPatch } from '../../engine';
import {
  getAdmissionsQuery,
  getQueueQuery,
  hostHintSignal,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowId,
  REPOSITORY,
  repositoryLabel,
  submitUpdate,
  TARGET_BRANCH,
  type HostHint,
  type PullRequestRecord,
  type QueueKey,
  type QueueSnapshot,
  type QueueWorkflowInput,
  type RepositoryKey,
  type RunnerSettings,
} from '../../contract';
import { buildTestApp } from './app';
import { prRecord, settledRecord, waitFor } from './pr-waiting';
import { startTestExecutor } from './executor';
import { requireTestEnv } from './env';
import { startFakeHub, type FakeHub, type FakeHubOptions } from './fakehub';
import { workClone, type WorkClone } from './fakehub/work-clone';
import { endQueueWorkflows } from './queue-teardown';
import { readBranchHeads } from './fakehub/bare-refs';
import { createRetryGate } from '../../queue-client/retry-gate';
import { slowStepReporter } from './slow-steps';

let runtimeInstalled = false;
/**
 * The logs of the deployments running now: the Runtime's logger (installed once per process) writes
 * every workflow and activity log line to each (e.g. the queue's 'landing refused' with its detail).
 */
const runtimeLogs = new Set<(line: string) => void>();
const SEVERITY = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 } as const;

/** What the fake CI reports for a commit: a conclusion, or null to never report. */
export type CiVerdict = 'success' | 'failure' | null;

/** What one deployment is: shared by every queue started on it. */
export interface GitHubDeploymentOptions {
  /** Workers serving the task queue, each with its own data folder (default 1). */
  workers?: number;
  /** Rate-limit handling of the GitHub clients (tests shorten the waits). */
  clientOptions?: GitHubClientOptions;
  /** The PR presenter's write pace per installation (default the worker's). */
  presentationWritesPerMinute?: number;
  presentationClientOptions?: GitHubClientOptions;
  logLevel?: 'WARN' | 'ERROR';
  /**
   * The workers read CI's uploads of a failed CI-judged run from the flaky-test store (the worker's
   * `uploadedFailures`), waiting this long for one; absent: no store, so no run is judged by its tests.
   */
  ciUploadWaitMs?: number;
  /** The preflight's bound on a draft PR GitHub cannot open now (activities/preflight.ts); 60 s without. */
  preflightDraftRetry?: { budgetMs?: number; firstDelayMs?: number };
}

/** What one queue is: its repository's fake CI. */
export interface GitHubQueueOptions {
  /** The check the fake CI reports (default `test`). */
  checkName?: string;
  /** Decides each commit's check; default: failure when the tree has a file BROKEN, else success. */
  ci?: (sha: string, branch: string, files: string[]) => CiVerdict;
}

export type GitHubHarnessOptions = GitHubDeploymentOptions & GitHubQueueOptions;

export interface GitHubQueueHarness {
  hub: FakeHub;
  repo: RepositoryKey;
  key: QueueKey;
  pool: Pool;
  client: Client;
  installationId: number;
  /** A developer's clone of the repository on the fake. */
  clone: WorkClone;
  /** The API's webhook receiver (acts on each delivery, commands in PR comments included). */
  receiver: WebhookReceiver;
  /**
   * Every process-side log line of the workers (incl. workflow and activity logs at INFO and above) and
   * the API (added at close) while this queue was open, for the token scan.
   */
  logs: string[];
  /** The task queue the workers poll (a worker in another process can serve it too). */
  taskQueue: string;
  /** Data folders of the workers: `<dataRoot>/worker-<i>/{mirrors,checkouts,logs,local}`; removed at close. */
  dataRoot: string;
  /** git in the repository's bare repository on the fake (as an admin: reads, no protection). */
  bareGit(...args: string[]): string;
  createQueue(config?: QueueConfigPatch, runner?: Partial<RunnerSettings>): Promise<void>;
  /** Commits `files` on a branch from main's tip on GitHub and opens a PR; returns its number and head. */
  openPr(
    files: Record<string, string>,
    title?: string,
    opts?: { draft?: boolean; body?: string },
  ): Promise<{ number: number; headSha: string }>;
  /**
   * Opens several PRs from main's tip (a burst): one fetch and one push of all their branches instead
   * of one each; returns their numbers and heads in order.
   */
  openPrs(
    prs: { files: Record<string, string>; title?: string }[],
  ): Promise<{ number: number; headSha: string }[]>;
  /** Pushes one more commit to PR `n`'s branch. */
  pushToPr(n: number, files: Record<string, string>): Promise<string>;
  submit(n: number, opts?: { priority?: number | null; noBatch?: boolean }): Promise<void>;
  /**
   * Submits PRs one after the other without waiting in between, then waits for all their admissions
   * at once (a burst); throws if any was rejected.
   */
  submitAll(ns: number[]): Promise<void>;
  hint(h: HostHint): Promise<void>;
  /** A merge-queue call over HTTP with the organisation's API key (`path` after `/v1/`). */
  api(path: string, body: object): Promise<{ status: number; body: unknown }>;
  queue(): Promise<QueueSnapshot>;
  pr(n: number): Promise<PullRequestRecord | null>;
  waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs?: number): Promise<T>;
  settled(n: number, timeoutMs?: number): Promise<PullRequestRecord>;
  /** Subjects of main's commits on GitHub after the initial ones, oldest first. */
  mainLog(): string[];
  /** main's tip sha on GitHub. */
  mainTip(): string;
  /** Trees of main's commits since the start (first parent), oldest first. */
  mainTrees(): string[];
  /** Branches on GitHub under `prefix`. */
  branches(prefix: string): string[];
  /** Stops worker `i` of the deployment gracefully (its running activities finish first). */
  stopWorker(i: number): Promise<void>;
  startWorker(): Promise<number>;
  /**
   * Ends this queue: its CI stops and every workflow of its key is terminated. On a harness of
   * `startGitHubQueueHarness`, the deployment is closed too.
   */
  close(): Promise<void>;
}

export interface GitHubDeployment {
  hub: FakeHub;
  pool: Pool;
  client: Client;
  receiver: WebhookReceiver;
  taskQueue: string;
  dataRoot: string;
  /** A queue of its own: a new organisation, installation and repository; no workflow started yet. */
  newQueue(opts?: GitHubQueueOptions): Promise<GitHubQueueHarness>;
  stopWorker(i: number): Promise<void>;
  startWorker(): Promise<number>;
  close(): Promise<void>;
}

export async function startGitHubDeployment(
  hub: FakeHub,
  opts: GitHubDeploymentOptions = {},
): Promise<GitHubDeployment> {
  if (!runtimeInstalled) {
    const shown = SEVERITY[opts.logLevel ?? 'WARN'];
    const printer = new DefaultLogger(opts.logLevel ?? 'WARN');
    Runtime.install({
      logger: new DefaultLogger('INFO', (entry) => {
        const line = `${entry.level} ${entry.message} ${inspect(entry.meta ?? {}, { depth: 5, breakLength: Infinity })}`;
        for (const write of runtimeLogs) write(line);
        if (SEVERITY[entry.level] >= shown) printer.log(entry.level, entry.message, entry.meta);
      }),
    });
    runtimeInstalled = true;
  }
  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  const pool = createPool(requireTestEnv('TEST_DATABASE_URL'), { max: 6 });
  const installations = createGitHubInstallationStore(pool);
  const uploads = createFlakyStore(pool);

  // Every line goes to the log of each queue open when it is written.
  const sinks = new Set<string[]>();
  const log = (line: string) => {
    for (const sink of sinks) sink.push(line);
  };
  runtimeLogs.add(log);
  // Closing waits out retries already scheduled (queue-client/retry-gate.ts).
  const retries = createRetryGate();
  const connection = await Connection.connect({ address, interceptors: [retries.interceptor] });
  const client = new Client({ connection });
  const taskQueue = `gh-e2e-${randomUUID()}`;
  const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-gh-e2e-'));

  // The API's webhook route, with the receiver the API server builds (api/server.ts): its own App
  // authentication and REST clients, through which commands in PR comments react and reply.
  const apiSettings = { appId: hub.app.id, privateKey: hub.app.privateKey, apiUrl: hub.url };
  const apiClients = await createGitHubClients(apiSettings, await createGitHubAppAuth(apiSettings), {
    maxLimitWaitSeconds: 5,
    ...opts.clientOptions,
  });
  // The GitHub handlers' queue client, with their 10 s call deadline.
  const gitHubQueues = createQueueClient(
    createTemporalCalls(client, { namespace: 'default', callTimeoutMs: 10_000 }),
  );
  const receiver = createWebhookReceiver({
    deliveries: createWebhookDeliveryStore(pool),
    installations,
    owners: createGitHubOwnerLookup(pool, 'github.com'),
    hinter: createQueueHinter({
      queues: gitHubQueues,
      onError: (err, message) => log(`api: ${message}: ${String(err)}`),
    }),
    commands: createPrCommandHandler({
      queues: gitHubQueues,
      // As api/server.ts: a lookup the workflow misses is answered by the projection (projected-queue.ts).
      projected: createProjectedQueues(pool),
      clients: apiClients,
      onError: (err, message) => log(`api: ${message}: ${String(err)}`),
    }),
    onError: (err, message) => log(`api: ${message}: ${String(err)}`),
  });
  // The merge-queue routes reach the real queue workflows, as a CI client's HTTP calls do.
  const temporal = createTemporalGateway({ address, namespace: 'default', taskQueue, callTimeoutMs: 30_000 });
  const { app, log: apiLog } = await buildTestApp(pool, {
    gitHubWebhooks: { secret: hub.app.webhookSecret, receiver },
    mergeQueue: createMergeQueueService(createQueueClient(temporal)),
    // The preflight reads the fake's checks every half second, not every 5 s.
    preflights: createPreflightService({ client: temporal.client, taskQueue, pollMs: 500 }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  // The requests in flight, for a teardown that waits on one (see close).
  const inFlight = new Set<{ what: string }>();
  app.server.on('request', (req: { method?: string; url?: string }, res: NodeJS.EventEmitter) => {
    const entry = { what: `${req.method ?? '?'} ${(req.url ?? '').split('?')[0]}` };
    inFlight.add(entry);
    res.on('close', () => inFlight.delete(entry));
  });
  const apiUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  hub.webhooks.setTarget(`${apiUrl}/v1/github/webhooks`);

  // As the worker does (worker/main.ts): git from a small broker process, not this large one.
  const broker = createProcessBroker();
  // The harness's own synchronous git (reading the bare repository) the same way (sync-broker.ts).
  const commands = createSyncBroker();
  const workers: ({ worker: Worker; running: Promise<void>; connection: NativeConnection } | null)[] = [];
  async function startWorker(): Promise<number> {
    const index = workers.length;
    const dir = path.join(dataRoot, `worker-${index}`);
    const settings = { appId: hub.app.id, privateKey: hub.app.privateKey, apiUrl: hub.url };
    const auth = await createGitHubAppAuth(settings);
    const clients = await createGitHubClients(settings, auth, {
      maxLimitWaitSeconds: 5,
      ...opts.clientOptions,
      onLimit: (what, seconds, route) =>
        log(`worker ${index}: ${what} limit, waiting ${seconds}s (${route})`),
    });
    // As the worker does (worker-host.ts): showing PRs in a write lane of its own.
    const presentationClients = await createPresentationClients(
      settings,
      auth,
      opts.presentationWritesPerMinute ?? DEFAULT_GITHUB_PRESENTATION_WRITES_PER_MINUTE,
      { maxLimitWaitSeconds: 5, ...opts.clientOptions, ...opts.presentationClientOptions },
    );
    const gitHubHost = createGitHubGitHost({
      mirrorRoot: path.join(dir, 'mirrors'),
      gitUrl: hub.url,
      installationOf: (r) => installationCovering(pool, r),
      clients,
      auth,
      runner: broker,
    });
    const gitHost = createRoutingGitHost(
      createLocalGitHost({ root: path.join(dir, 'local'), runner: broker }),
      {
        host: 'github.com',
        gitHost: gitHubHost,
      },
    );
    // A connection each: Temporal refuses two workers of one task queue on the same connection.
    const connection = await NativeConnection.connect({ address });
    const worker = await Worker.create({
      connection,
      taskQueue,
      identity: `gh-e2e-${index}`,
      workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
      activities: createActivities({
        workerIdentity: `gh-e2e-${index}`,
        gitHost,
        processes: broker,
        client,
        taskQueue,
        pool,
        allowPrivateWebhookUrls: true,
        gitHubHost: 'github.com',
        ...(opts.preflightDraftRetry ? { preflightDraftRetry: opts.preflightDraftRetry } : {}),
        ...(opts.ciUploadWaitMs !== undefined
          ? {
              uploadedFailures: {
                read: (...args) => uploads.failedTestsOfCommit(...args),
                uploadsEver: (...args) => uploads.hasUploads(...args),
                waitMs: opts.ciUploadWaitMs,
                pollMs: 500,
              },
            }
          : {}),
        presenter: createGitHubPresenter({
          host: 'github.com',
          appId: hub.app.id,
          clients: presentationClients,
          installationOf: (r) => installationCovering(pool, r),
        }),
      }),
    });
    workers.push({ worker, running: worker.run(), connection });
    return index;
  }
  async function stopWorker(i: number): Promise<void> {
    const w = workers[i];
    if (!w) return;
    workers[i] = null;
    w.worker.shutdown();
    await w.running;
    await w.connection.close();
  }
  for (let i = 0; i < (opts.workers ?? 1); i++) await startWorker();
  // Test runs of the `command` runner go to an executor, as in production (issue 17).
  const executor = await startTestExecutor({ controlTaskQueue: taskQueue, pool, heartbeatThrottleMs: 1_000 });
  const open = new Set<GitHubQueueHarness>();

  async function newQueue(queueOpts: GitHubQueueOptions = {}): Promise<GitHubQueueHarness> {
    const logs: string[] = [];
    sinks.add(logs);
    const apiLinesBefore = apiLog.lines.length;
    const owner = 'acme';
    const name = `widgets-${randomUUID().slice(0, 8)}`;
    const repo: RepositoryKey = { host: 'github.com', owner, name };
    const organisationId = randomUUID();
    await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [
      organisationId,
      `gh-${organisationId.slice(0, 8)}`,
    ]);
    // Every fakehub (one per test file) counts ids from the same start, but the database is shared by
    // all files: an installation id another file linked already is skipped for a fresh one.
    const linkNew = async () => {
      const created = hub.createInstallation({ account: `${owner}-${name}` });
      const linked = await installations.link(
        organisationId,
        { installationId: created.id, host: 'github.com', accountLogin: created.account, suspendedAt: null },
        'operator',
      );
      return linked.kind === 'taken' ? null : created;
    };
    let linked = await linkNew();
    while (linked === null) linked = await linkNew();
    const installation = linked;
    const repository = await hub.createRepository({ installationId: installation.id, owner, name });
    const clone = await workClone(
      hub.gitUrl(owner, name),
      () => hub.installationToken(installation.id),
      broker,
    );
    const first = await clone.commit({ 'README.md': 'widgets\n' }, 'initial');
    await clone.push(first, 'main');
    const bareGit = (...args: string[]) => commands.run('git', ['-C', repository.bare, ...args]).trim();
    const initialCommits = Number(bareGit('rev-list', '--count', 'main'));

    await installations.syncRepositories(installation.id, [{ owner, name }]);

    const key: QueueKey = { organisationId, repo, targetBranch: 'main' };
    const workflowId = queueWorkflowId(key);
    const handle = () => client.workflow.getHandle(workflowId);
    const { rows: slugRows } = await pool.query<{ slug: string }>(
      'SELECT slug FROM organisations WHERE id = $1',
      [organisationId],
    );
    const apiKey = (await createApiKeyStore(pool).create(slugRows[0]!.slug)).key;
    const prs = new Set<number>();

    // The fake CI: a check run for every new head of a test branch or a PR branch.
    const checkName = queueOpts.checkName ?? 'test';
    const decide =
      queueOpts.ci ??
      ((_sha: string, _branch: string, files: string[]) =>
        files.includes('BROKEN') ? 'failure' : 'success');
    const reported = new Set<string>();
    let ciStopped = false;
    const ciLoop = (async () => {
      while (!ciStopped) {
        try {
          // Read from the files, not by spawning git: this runs every 150 ms for the whole story.
          for (const [branch, sha] of readBranchHeads(repository.bare)) {
            if (branch === 'main' || reported.has(`${branch}@${sha}`)) continue;
            reported.add(`${branch}@${sha}`);
            const files = bareGit('ls-tree', '--name-only', sha).split('\n');
            const verdict = decide(sha, branch, files);
            if (verdict !== null)
              hub.setCheckRun(owner, name, sha, {
                name: checkName,
                status: 'completed',
                conclusion: verdict,
              });
          }
        } catch {
          // A ref deleted while it was read: the next round sees the new state.
        }
        await new Promise((r) => setTimeout(r, 150));
      }
    })();

    let branchCounter = 0;
    const h: GitHubQueueHarness = {
      hub,
      repo,
      key,
      pool,
      client,
      installationId: installation.id,
      clone,
      receiver,
      logs,
      taskQueue,
      dataRoot,
      bareGit,
      async createQueue(config = {}, runnerSettings = {}) {
        // The search attributes the API sets (merge-queue-service.ts): webhook hints find queues by them.
        await client.workflow.start(QUEUE_WORKFLOW_TYPE, {
          workflowId,
          taskQueue,
          args: [{ key, config, runner: runnerSettings } satisfies QueueWorkflowInput],
          typedSearchAttributes: [
            { key: REPOSITORY, value: repositoryLabel(repo) },
            { key: TARGET_BRANCH, value: key.targetBranch },
          ],
        });
      },
      async openPr(files, title, prOpts = {}) {
        const branch = `feature-${++branchCounter}`;
        await clone.git('fetch', '-q', 'origin');
        await clone.branch(branch, 'origin/main');
        const sha = await clone.commit(files, title ?? `change ${branchCounter}`);
        await clone.push(sha, branch);
        const pr = await hub.openPullRequest({
          owner,
          repo: name,
          head: branch,
          title: title ?? `change ${branchCounter}`,
          ...(prOpts.draft ? { draft: true } : {}),
          ...(prOpts.body !== undefined ? { body: prOpts.body } : {}),
        });
        prs.add(pr.number);
        return { number: pr.number, headSha: sha };
      },
      async openPrs(list) {
        await clone.git('fetch', '-q', 'origin');
        const made: { branch: string; sha: string; title: string }[] = [];
        for (const { files, title } of list) {
          const branch = `feature-${++branchCounter}`;
          const prTitle = title ?? `change ${branchCounter}`;
          await clone.branch(branch, 'origin/main');
          made.push({ branch, sha: await clone.commit(files, prTitle), title: prTitle });
        }
        await clone.git('push', '-q', 'origin', ...made.map((m) => `${m.sha}:refs/heads/${m.branch}`));
        const opened: { number: number; headSha: string }[] = [];
        for (const m of made) {
          const pr = await hub.openPullRequest({ owner, repo: name, head: m.branch, title: m.title });
          prs.add(pr.number);
          opened.push({ number: pr.number, headSha: m.sha });
        }
        return opened;
      },
      async pushToPr(n, files) {
        const pr = hub.pullRequest(owner, name, n);
        await clone.git('fetch', '-q', 'origin');
        await clone.branch(pr.headBranch, `origin/${pr.headBranch}`);
        const sha = await clone.commit(files);
        await clone.push(sha, pr.headBranch);
        return sha;
      },
      async submit(n, o = {}) {
        prs.add(n);
        const { submissionId } = await handle().executeUpdate(submitUpdate, {
          args: [{ pr: n, priority: o.priority ?? null, noBatch: o.noBatch ?? false }],
        });
        const outcome = await h.waitFor(`PR #${n} admitted`, async () => {
          const state = (await handle().query(getAdmissionsQuery, [submissionId]))[submissionId];
          return state?.state === 'pending' ? undefined : state;
        });
        if (outcome.state === 'rejected') throw new Error(outcome.message);
      },
      async submitAll(ns) {
        const ids: string[] = [];
        for (const n of ns) {
          prs.add(n);
          const { submissionId } = await handle().executeUpdate(submitUpdate, {
            args: [{ pr: n, priority: null, noBatch: false }],
          });
          ids.push(submissionId);
        }
        const outcomes = await h.waitFor(`PRs ${ns.join(', ')} admitted`, async () => {
          const states = await handle().query(getAdmissionsQuery, ids);
          return ids.every((id) => states[id] && states[id].state !== 'pending') ? states : undefined;
        });
        const refused = ids.flatMap((id) => {
          const outcome = outcomes[id];
          return outcome?.state === 'rejected' ? [outcome.message] : [];
        });
        if (refused.length > 0) throw new Error(refused.join('; '));
      },
      hint: (hintValue) => handle().signal(hostHintSignal, hintValue),
      async api(apiPath, body) {
        const res = await app.inject({
          method: 'POST',
          url: `/v1/${apiPath}`,
          headers: { 'x-api-token': apiKey },
          payload: body,
        });
        // Errors answer in plain text, as Trunk's API does.
        const json = (res.headers['content-type'] ?? '').toString().includes('json');
        return { status: res.statusCode, body: json ? res.json<unknown>() : res.body };
      },
      queue: () => handle().query(getQueueQuery),
      pr: (n) => prRecord(client, key, n),
      waitFor,
      settled: (n, timeoutMs) => settledRecord(client, key, n, timeoutMs),
      mainLog: () =>
        bareGit('log', '--first-parent', '--reverse', '--format=%s', 'main')
          .split('\n')
          .slice(initialCommits),
      mainTip: () => bareGit('rev-parse', 'main'),
      mainTrees: () =>
        bareGit('log', '--first-parent', '--reverse', '--format=%T', 'main')
          .split('\n')
          .slice(initialCommits),
      branches: (prefix) =>
        bareGit('for-each-ref', '--format=%(refname:short)', `refs/heads/${prefix}`)
          .split('\n')
          .filter(Boolean),
      stopWorker,
      startWorker,
      async close() {
        if (!open.delete(h)) return;
        ciStopped = true;
        await ciLoop;
        // PRs the queue knows of besides those opened here (e.g. a draft PR someone submitted).
        await endQueueWorkflows(client, key, [...prs]);
        await receiver.idle();
        sinks.delete(logs);
        logs.push(...apiLog.lines.slice(apiLinesBefore));
        clone.cleanup();
      },
    };
    open.add(h);
    return h;
  }

  return {
    hub,
    pool,
    client,
    receiver,
    taskQueue,
    dataRoot,
    newQueue,
    stopWorker,
    startWorker,
    async close() {
      // Each step says so when it is slow: a teardown that hangs names what it waits for.
      const step = slowStepReporter('deployment close');
      await step('queues', async () => {
        for (const q of [...open]) await q.close();
      });
      hub.webhooks.setTarget(null);
      await step('workers', async () => {
        for (let i = 0; i < workers.length; i++) await stopWorker(i);
      });
      await step('executor', () => executor.close());
      await step('webhook receiver', () => receiver.idle());
      // A request still in flight after 10 s is named and its connection closed: the teardown ends, and
      // the log says which request did not (seen twice in crash.test.ts under load; cause not yet known).
      const closing = app.close();
      const cut = setTimeout(() => {
        console.error(
          `deployment close: API requests still in flight: ${[...inFlight].map((r) => r.what).join(', ') || 'none'}`,
        );
        app.server.closeAllConnections();
      }, 10_000);
      await step('API', () => closing);
      clearTimeout(cut);
      await step('temporal gateway', () => temporal.close());
      runtimeLogs.delete(log);
      await step('retry gate', () => retries.close(connection));
      broker.close();
      commands.close();
      await step('pool', () => pool.end());
      fs.rmSync(dataRoot, { recursive: true, force: true });
    },
  };
}

/**
 * The file's fakehub and one deployment on it (both started before the first test, closed after the
 * last), and a function that gives a test a queue of its own; each queue is closed after its test.
 * Takes the place of `useFakeHub()`: every test after which the fake recorded a contract violation fails.
 */
export function useGitHubQueueHarness(opts: GitHubDeploymentOptions & { hub?: FakeHubOptions } = {}): {
  hub: () => FakeHub;
  newQueue: (queue?: GitHubQueueOptions) => Promise<GitHubQueueHarness>;
} {
  let hub: FakeHub | undefined;
  let deployment: GitHubDeployment | undefined;
  const made: GitHubQueueHarness[] = [];
  beforeAll(async () => {
    const { hub: hubOptions, ...deploymentOpts } = opts;
    hub = await startFakeHub(hubOptions);
    deployment = await startGitHubDeployment(hub, deploymentOpts);
  }, 60_000);
  afterEach(async () => {
    try {
      hub?.assertNoViolations();
    } finally {
      for (const q of made.splice(0)) await q.close();
    }
  }, 60_000);
  afterAll(async () => {
    await deployment?.close();
    await hub?.close();
  }, 60_000);
  return {
    hub: () => {
      if (!hub)
        throw new Error('fakehub is not running: call useGitHubQueueHarness() at the top of the test file');
      return hub;
    },
    async newQueue(queue) {
      if (!deployment)
        throw new Error('no deployment: call useGitHubQueueHarness() at the top of the test file');
      const q = await deployment.newQueue(queue);
      made.push(q);
      return q;
    },
  };
}

/** A deployment with one queue, closed together (for files that need a deployment of their own). */
export async function startGitHubQueueHarness(
  hub: FakeHub,
  opts: GitHubHarnessOptions = {},
): Promise<GitHubQueueHarness> {
  const { checkName, ci, ...deploymentOpts } = opts;
  const deployment = await startGitHubDeployment(hub, deploymentOpts);
  const q = await deployment.newQueue({
    ...(checkName !== undefined ? { checkName } : {}),
    ...(ci !== undefined ? { ci } : {}),
  });
  return { ...q, close: () => deployment.close() };
}
