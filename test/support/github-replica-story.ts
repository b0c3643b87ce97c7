/**
 * The GitHub-App stories of the multi-replica run (issue 27), on the stack replicas.test.ts starts (2
 * APIs behind one round-robin address, 2 workers, 2 executors): one fakehub, an organisation of its own
 * with an App installation linked to it, and a queue on a GitHub repository that lands through GitHub's
 * merge endpoint (`landingMode: 'api'`) with the PR comments and check runs shown (the presenter's
 * write lane). Its parts:
 *
 * - PRs submitted through each API replica directly (their own addresses, read from their logs), and one
 *   through a `/trunk merge` comment whose delivery lands on replica 1; the same delivery (same bytes,
 *   guid and signature, as GitHub's redelivery sends) is then POSTed to replica 2, which must answer it
 *   as known and act on nothing: the command's reaction is POSTed to GitHub once.
 * - Every other delivery goes to the shared address, so the round robin spreads them over both APIs.
 * - Worker 2 is SIGKILLed as the first merge reaches GitHub, and started again (a supervisor's job).
 * - GitHub's write limit per installation: fakehub refuses content-creating requests past the pace
 *   the processes promise together (`clusterWriteBound`), and the census of GitHub writers is sampled
 *   to show the processes counted one another. The story's own demand is small (a peak of 4 writes in
 *   a window against a bound of 16 when measured), so the window catches a burst across replicas; it
 *   does not show the pacing binding (test/integration/github/write-lanes.test.ts does that).
 *
 * `story.env` goes into the stack's settings (the App pointed at the fake) before the stack starts;
 * `story.run(stack)` plays the stories and returns what happened, for the test to judge.
 *
 * Invariants: nothing here asserts (the test does, on the report); every request to a replica that is
 * down (the chaos run kills one of each kind meanwhile) is retried until it answers, as a CI job would.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isTerminal } from '../../engine';
import type { Stack } from '../../scripts/lib/stack';
import { createApi, type Api } from '../../bench/chaos/http';
import { createApiKeyStore } from '../../stores/api-keys';
import { createPool } from '../../stores/db';
import { createGitHubInstallationStore } from '../../github/store/installations';
import { DEFAULT_GITHUB_PRESENTATION_WRITES_PER_MINUTE } from '../../github/app/config';
import { GITHUB_WRITERS } from '../../platform/replica-census';
import { startFakeHub, type FakeHub } from './fakehub';
import { readBranchHeads } from './fakehub/bare-refs';
import { workClone } from './fakehub/work-clone';
import type { WebhookDelivery } from './fakehub/webhooks';

const OWNER = 'acme';
const NAME = 'widgets';
const QUEUE = { repo: { host: 'github.com', owner: OWNER, name: NAME }, targetBranch: 'main' };
/** Writes of the core lane (rest-client.ts default: Octokit's one a second) and of the presenter's. */
const CORE_WRITE_INTERVAL_MS = 1_000;
const PRESENTATION_INTERVAL_MS = Math.ceil(60_000 / DEFAULT_GITHUB_PRESENTATION_WRITES_PER_MINUTE);
/** The window fakehub counts writes in. */
export const WRITE_WINDOW_MS = 10_000;

/**
 * The most content-creating requests one installation may see in any `WRITE_WINDOW_MS` when the
 * `writers` processes pace it together (each at its lane's interval times `writers`): per process and
 * lane, floor(window / (interval × writers)) + 1 (the window may open on a write). APIs write in the
 * core lane only (command reactions and replies), workers in both.
 */
export function clusterWriteBound(apis: number, workers: number): number {
  const writers = apis + workers;
  const perProcess = (interval: number) => Math.floor(WRITE_WINDOW_MS / (interval * writers)) + 1;
  return writers * perProcess(CORE_WRITE_INTERVAL_MS) + workers * perProcess(PRESENTATION_INTERVAL_MS);
}

export interface GitHubReplicaReport {
  prs: number[];
  /** Each PR's final state as the API answers it (null: never terminal within the wait). */
  states: Record<number, string | null>;
  /** Terminal transitions per PR in the event log (pr_transitions). */
  terminalTransitions: Record<number, number>;
  /** Successful `PUT /pulls/{n}/merge` answers per PR (GitHub's merge log). */
  mergeCalls: Record<number, number>;
  /** Whether GitHub shows each PR merged. */
  mergedOnGitHub: Record<number, boolean>;
  /** Subjects of main's first-parent commits after the initial one, oldest first. */
  mainLog: string[];
  /** Which PRs went through which replica's submitPullRequest, and the one submitted by a comment. */
  submittedThrough: { replica1: number[]; replica2: number[]; command: number };
  /** The command's delivery: answered by replica 1 (stored) then by replica 2 (known already). */
  command: { firstStored: boolean | null; redeliveredStored: boolean | null; reactionPosts: number };
  /** What acting on the command's delivery did (its row's outcome), and the App's replies on its PR. */
  commandOutcome: { outcome: string | null; replies: string[] };
  /** Deliveries each API replica logged having received ('github delivery' lines). */
  deliveriesPerReplica: number[];
  /** Deliveries fakehub attempted, and how many did not get a 2xx. */
  deliveries: { attempted: number; failed: number };
  workerKilledAfterMerges: number | null;
  /** fakehub's count of writes per installation per window, against `bound`. */
  writes: { refused: number; peak: number; accepted: number; bound: number };
  /** GitHub writers the census counted alive, least and most while the story ran. */
  writersSeen: { min: number; max: number };
  violations: string[];
  log: string[];
}

export interface StoryOptions {
  prs: number;
  settleTimeoutMs: number;
  /**
   * True once the other faults of the run are over: the command is delivered after that, so a kill of
   * replica 1 between storing and acting (the worker's reconciliation acts minutes later) cannot meet it.
   */
  faultsOver: () => boolean;
}

export interface GitHubReplicaStory {
  hub: FakeHub;
  /** The stack's GitHub App settings (API and worker). */
  env: Record<string, string>;
  run(stack: Stack, opts: StoryOptions): Promise<GitHubReplicaReport>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The address each API replica listens on, from its log (the balancer hides them). */
function replicaUrls(stack: Stack): string[] {
  return stack.apis.map((api) => {
    const text = fs.readFileSync(path.join(stack.logDir, `${api.name}.log`), 'utf8');
    const m = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
    if (!m) throw new Error(`${api.name}.log does not say where it listens`);
    return m[1]!;
  });
}

/**
 * GitHub's redelivery of `delivery` to one replica: the same bytes under the same guid and signature,
 * sent until it answers; whether it stored the delivery (false: known already), null if never answered.
 */
async function deliver(url: string, delivery: WebhookDelivery): Promise<boolean | null> {
  const headers = Object.fromEntries(
    Object.entries(delivery.headers).filter(([h]) => !['host', 'content-length', 'connection'].includes(h)),
  );
  for (let i = 0; i < 60; i++) {
    const res = await fetch(`${url}/v1/github/webhooks`, {
      method: 'POST',
      headers,
      body: delivery.body,
    }).catch(() => null);
    if (res?.ok) return ((await res.json()) as { stored: boolean }).stored;
    await sleep(500);
  }
  return null;
}

/** Posts until an API answers (a replica may be down for a moment); throws on a refusal. */
async function postOk(api: Api, route: string, body: unknown): Promise<string> {
  for (let i = 0; i < 60; i++) {
    const res = await api.post(route, body);
    if (res.status === 200) return res.body;
    if (res.status !== 0 && res.status < 500) throw new Error(`${route} answered ${res.status}: ${res.body}`);
    await sleep(500);
  }
  throw new Error(`${route}: no answer within 30 s`);
}

export async function startGitHubReplicaStory(): Promise<GitHubReplicaStory> {
  const hub = await startFakeHub();
  return {
    hub,
    env: {
      RAILYARD_GITHUB_APP_ID: String(hub.app.id),
      RAILYARD_GITHUB_PRIVATE_KEY: hub.app.privateKey,
      RAILYARD_GITHUB_WEBHOOK_SECRET: hub.app.webhookSecret,
      RAILYARD_GITHUB_API_URL: hub.url,
      RAILYARD_GITHUB_GIT_URL: hub.url,
    },
    run: (stack, opts) => play(hub, stack, opts),
    close: () => hub.close(),
  };
}

async function play(hub: FakeHub, stack: Stack, opts: StoryOptions): Promise<GitHubReplicaReport> {
  const log: string[] = [];
  const note = (m: string) => log.push(`${new Date().toISOString().slice(11, 23)} github: ${m}`);
  const pool = createPool(stack.databaseUrl, { max: 2 });
  const timers: NodeJS.Timeout[] = [];
  let ciStopped = false;
  let ciLoop: Promise<void> = Promise.resolve();
  try {
    // The organisation, its key, and the App installation linked to it that covers the repository.
    const { key } = await createApiKeyStore(pool).create('gh-replicas', 'replica story');
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM organisations WHERE slug = $1', [
      'gh-replicas',
    ]);
    const organisationId = rows[0]!.id;
    const installation = hub.createInstallation({ account: OWNER });
    const installations = createGitHubInstallationStore(pool);
    await installations.link(
      organisationId,
      { installationId: installation.id, host: 'github.com', accountLogin: OWNER, suspendedAt: null },
      'operator',
    );
    const repository = await hub.createRepository({
      installationId: installation.id,
      owner: OWNER,
      name: NAME,
    });
    await installations.syncRepositories(installation.id, [{ owner: OWNER, name: NAME }]);
    const clone = await workClone(hub.gitUrl(OWNER, NAME), () => hub.installationToken(installation.id));
    await clone.push(await clone.commit({ 'README.md': 'widgets\n' }, 'initial'), 'main');

    const bound = clusterWriteBound(stack.apis.length, stack.workers.length);
    hub.knobs.secondaryLimitRate({ writes: bound, windowMs: WRITE_WINDOW_MS });
    hub.webhooks.setTarget(`${stack.apiUrl}/v1/github/webhooks`);
    const [url1, url2] = replicaUrls(stack);
    const shared = createApi(stack.apiUrl, key, QUEUE);
    const replicas = [createApi(url1!, key, QUEUE), createApi(url2!, key, QUEUE)];
    note(`replicas at ${url1} and ${url2}; at most ${bound} writes per ${WRITE_WINDOW_MS / 1000} s`);

    // The census of GitHub writers, sampled while the story runs.
    const writersSeen = { min: Infinity, max: 0 };
    timers.push(
      setInterval(() => {
        void pool
          .query<{ n: number }>(
            `SELECT count(*)::int AS n FROM process_replicas WHERE kind = $1 AND last_seen > now() - interval '15 seconds'`,
            [GITHUB_WRITERS],
          )
          .then((r) => {
            writersSeen.min = Math.min(writersSeen.min, r.rows[0]!.n);
            writersSeen.max = Math.max(writersSeen.max, r.rows[0]!.n);
          })
          .catch(() => undefined);
      }, 500),
    );

    // The fake CI: a successful `test` check for every new head of a branch other than main.
    const reported = new Set<string>();
    ciLoop = (async () => {
      while (!ciStopped) {
        try {
          for (const [branch, sha] of readBranchHeads(repository.bare)) {
            if (branch === 'main' || reported.has(`${branch}@${sha}`)) continue;
            reported.add(`${branch}@${sha}`);
            hub.setCheckRun(OWNER, NAME, sha, { name: 'test', status: 'completed', conclusion: 'success' });
          }
        } catch {
          // A ref deleted while it was read: the next round sees the new state.
        }
        await sleep(150);
      }
    })();

    await postOk(replicas[0]!, '/v1/createQueue', { ...QUEUE, mode: 'single' });
    await postOk(replicas[1]!, '/v1/updateQueue', {
      ...QUEUE,
      concurrency: 2,
      mergeMethod: 'merge_commit',
      landingMode: 'api',
      requiredStatuses: ['test'],
      commentsEnabled: true,
      statusCheckEnabled: true,
      commandsEnabled: true,
    });

    // The PRs, opened in one push.
    await clone.git('fetch', '-q', 'origin');
    const branches: string[] = [];
    for (let i = 1; i <= opts.prs; i++) {
      await clone.branch(`feature-${i}`, 'origin/main');
      branches.push(
        `${await clone.commit({ [`f${i}.txt`]: `${i}\n` }, `change ${i}`)}:refs/heads/feature-${i}`,
      );
    }
    await clone.git('push', '-q', 'origin', ...branches);
    const prs: number[] = [];
    for (let i = 1; i <= opts.prs; i++)
      prs.push(
        (await hub.openPullRequest({ owner: OWNER, repo: NAME, head: `feature-${i}`, title: `change ${i}` }))
          .number,
      );

    // The last PR by a maintainer's `/trunk merge`, its delivery to replica 1 only; the others through
    // each replica's submitPullRequest.
    const commandPr = prs[prs.length - 1]!;
    const byApi = prs.slice(0, -1);
    const submittedThrough = {
      replica1: byApi.filter((_, i) => i % 2 === 0),
      replica2: byApi.filter((_, i) => i % 2 === 1),
      command: commandPr,
    };
    hub.setPermission(OWNER, NAME, 'maintainer', 'write');
    for (let i = 0; i < 240 && !opts.faultsOver(); i++) await sleep(500);
    note('the other faults are over');
    await hub.webhooks.idle();
    hub.webhooks.setTarget(`${url1}/v1/github/webhooks`);
    const comment = hub.comment(OWNER, NAME, commandPr, { author: 'maintainer', body: '/trunk merge' });
    await hub.webhooks.idle();
    hub.webhooks.setTarget(`${stack.apiUrl}/v1/github/webhooks`);
    const delivery = hub.webhooks.deliveries.find(
      (d) => d.event === 'issue_comment' && (d.payload.comment as { id?: number }).id === comment.id,
    );
    const command = {
      firstStored: null as boolean | null,
      redeliveredStored: null as boolean | null,
      reactionPosts: 0,
    };
    if (delivery) {
      // Replica 1 may have been down for fakehub's attempt (the chaos run kills an API): then GitHub's
      // redelivery to it, until it answers; then the same to replica 2.
      const firstLogged = () =>
        fs
          .readFileSync(path.join(stack.logDir, `${stack.apis[0]!.name}.log`), 'utf8')
          .split('\n')
          .find((l) => l.includes(delivery.guid) && l.includes('github delivery'));
      // The API's log reaches its file a moment after the answer (pino writes asynchronously).
      let line = delivery.statusCode === 200 ? firstLogged() : undefined;
      for (let i = 0; i < 20 && delivery.statusCode === 200 && !line; i++) {
        await sleep(250);
        line = firstLogged();
      }
      command.firstStored = line ? /"result":"stored"/.test(line) : await deliver(url1!, delivery);
      command.redeliveredStored = await deliver(url2!, delivery);
    }
    note(
      `command delivery ${delivery?.guid} (fakehub's attempt: ${delivery?.statusCode}): replica 1 stored ${command.firstStored}, replica 2 stored ${command.redeliveredStored}`,
    );

    // Acted on (by replica 1) before the other PRs arrive: the command's 10 s queue calls then meet an
    // idle queue, not the worker kill below.
    for (let i = 0; i < 120; i++) {
      const { rows: handled } = await pool.query<{ handled: boolean }>(
        'SELECT handled_at IS NOT NULL AS handled FROM github_webhook_deliveries WHERE delivery_id = $1',
        [delivery?.guid ?? ''],
      );
      if (handled[0]?.handled) break;
      await sleep(500);
    }
    const { rows: acted } = await pool.query<{ outcome: string | null }>(
      'SELECT outcome FROM github_webhook_deliveries WHERE delivery_id = $1',
      [delivery?.guid ?? ''],
    );
    const deadline = Date.now() + 120_000;
    // Under load the queue's update can miss the API's call deadline (docs/known-issues.md): the command
    // is then answered "could not reach the merge queue". The maintainer's way out is the API: the PR is
    // submitted there, so the rest of the story still runs, and the report says so (the test then
    // expects that reply rather than a reaction). Finding the queue no longer fails so (issue 27).
    const commandFailed = !/^submitted #/.test(acted[0]?.outcome ?? '');
    if (commandFailed) {
      note(
        `the command was not applied (${acted[0]?.outcome ?? 'not acted on'}): submitting #${commandPr} through the API`,
      );
      await shared.submitUntilAccepted(commandPr, deadline);
    }
    const answers = await Promise.all(byApi.map((n, i) => replicas[i % 2]!.submitUntilAccepted(n, deadline)));
    note(`submitted ${byApi.join(', ')}: ${answers.join(', ')}`);

    // Worker 2 dies as the first merge reaches GitHub; the supervisor starts it again.
    const isMerge = (r: { method: string; path: string; status: number }) =>
      r.method === 'PUT' && /\/pulls\/\d+\/merge$/.test(r.path) && r.status === 200;
    let workerKilledAfterMerges: number | null = null;
    for (const until = Date.now() + 90_000; Date.now() < until;) {
      const merges = hub.requests.filter(isMerge).length;
      if (merges > 0) {
        await stack.workers[1]!.stop('SIGKILL');
        workerKilledAfterMerges = merges;
        note(`worker 2 killed after ${merges} merge(s)`);
        await sleep(500);
        await stack.workers[1]!.start();
        note('worker 2 running again');
        break;
      }
      await sleep(50);
    }

    // Every PR to a terminal state.
    const states: Record<number, string | null> = {};
    for (const end = Date.now() + opts.settleTimeoutMs; Date.now() < end;) {
      for (const n of prs) {
        if (states[n]) continue;
        const r = await shared.pullRequest(n);
        if (r && r !== 'unknown' && isTerminal(r.state)) states[n] = r.state;
      }
      if (prs.every((n) => states[n])) break;
      await sleep(1_000);
    }
    for (const n of prs) states[n] ??= null;
    note(`states: ${JSON.stringify(states)}`);

    // The event log's terminal transitions (appended after the record shows them: wait a little).
    const terminalTransitions = async () => {
      const { rows: t } = await pool.query<{ pr: string; n: number }>(
        `SELECT pr_number AS pr, count(*) FILTER (WHERE to_state IN ('merged', 'failed', 'cancelled'))::int AS n
           FROM pr_transitions WHERE organisation_id = $1 GROUP BY pr_number`,
        [organisationId],
      );
      return Object.fromEntries(prs.map((n) => [n, t.find((r) => Number(r.pr) === n)?.n ?? 0]));
    };
    let transitions = await terminalTransitions();
    for (let i = 0; i < 20 && prs.some((n) => transitions[n] === 0); i++) {
      await sleep(500);
      transitions = await terminalTransitions();
    }

    await hub.webhooks.idle();
    const reactionPath = `/repos/${OWNER}/${NAME}/issues/comments/${comment.id}/reactions`;
    command.reactionPosts = hub.requests.filter((r) => r.method === 'POST' && r.path === reactionPath).length;
    const { rows: outcomeRows } = await pool.query<{ outcome: string | null }>(
      'SELECT outcome FROM github_webhook_deliveries WHERE delivery_id = $1',
      [delivery?.guid ?? ''],
    );
    const commandOutcome = {
      outcome: outcomeRows[0]?.outcome ?? null,
      replies: hub
        .comments(OWNER, NAME, commandPr)
        .filter((c) => c.id !== comment.id && !c.body.includes('railyard:live-comment'))
        .map((c) => c.body.slice(0, 200)),
    };
    const deliveriesPerReplica = stack.apis.map(
      (api) =>
        fs
          .readFileSync(path.join(stack.logDir, `${api.name}.log`), 'utf8')
          .split('\n')
          .filter((l) => l.includes('"github delivery"')).length,
    );
    const attempted = hub.webhooks.deliveries.filter((d) => d.statusCode !== null);
    const mergeCalls = Object.fromEntries(
      prs.map((n) => [
        n,
        hub.requests.filter((r) => isMerge(r) && r.path.endsWith(`/pulls/${n}/merge`)).length,
      ]),
    );
    const bare = (...args: string[]) =>
      execFileSync('git', ['-C', repository.bare, ...args], { encoding: 'utf8' });
    clone.cleanup();
    const mainLog = bare('log', '--first-parent', '--reverse', '--format=%s', 'main')
      .trim()
      .split('\n')
      .slice(1);
    return {
      prs,
      states,
      terminalTransitions: transitions,
      mergeCalls,
      mergedOnGitHub: Object.fromEntries(prs.map((n) => [n, hub.pullRequest(OWNER, NAME, n).merged])),
      mainLog,
      submittedThrough,
      command,
      commandOutcome,
      deliveriesPerReplica,
      deliveries: {
        attempted: attempted.length,
        failed: attempted.filter((d) => d.statusCode! < 200 || d.statusCode! >= 300).length,
      },
      workerKilledAfterMerges,
      writes: { ...hub.knobs.secondaryLimitStats(), bound },
      writersSeen: { min: writersSeen.min === Infinity ? 0 : writersSeen.min, max: writersSeen.max },
      violations: hub.takeViolations(),
      log,
    };
  } finally {
    ciStopped = true;
    await ciLoop;
    for (const t of timers) clearInterval(t);
    hub.webhooks.setTarget(null);
    await pool.end();
  }
}
