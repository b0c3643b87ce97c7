/**
 * Crash safety on the real stack: the worker (worker/main.ts), the API (api/server.ts) and the executor
 * (worker/executor.ts, which talks to the API alone, issue 24) are real processes, killed with SIGKILL:
 *  1. the worker and the executor while PRs test: the runs die with the executor, their activities
 *     time out and are retried on the restarted executor;
 *  2. the worker alone and then the API while those retried runs are on the executor: the runs go on
 *     (the activity is completed asynchronously, nothing of it is in the worker), their reports wait
 *     for the API with backoff and are delivered once it is back;
 *  3. the worker again while PRs merge.
 * After the restarts every PR reaches exactly one terminal state, each run's activity was completed at
 * most once per attempt and no report was counted twice, nothing is merged twice, and the target branch
 * only ever moved to tested commits.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createPool } from '../../stores/db';
import { createRepositoryOwnerStore } from '../../stores/repository-owners';
import { isTerminal } from '../../engine';
import {
  getPullRequestQuery,
  getTestRunQuery,
  prWorkflowId,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowId,
  submitUpdate,
  type PullRequestRecord,
  type QueueKey,
  type QueueWorkflowInput,
} from '../../contract';
import { requireTestEnv } from '../support/env';
import { freePort } from '../../scripts/lib/ports';
import { startExecutorProcess } from '../support/executor';
import { createExecutorCredentials } from '../../test-runs/store/executor-credentials';
import { createRepoWithMain } from '../support/git-fixture';
import { tsNode } from '../../scripts/lib/ts-node';

const ROOT = path.resolve(__dirname, '..', '..');

function startWorker(env: NodeJS.ProcessEnv): ChildProcess {
  // Own process group, so SIGKILL reaches the worker and the test commands it started.
  return spawn(...tsNode('worker/main.ts'), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: 'ignore',
  });
}

function startApi(env: NodeJS.ProcessEnv, log: string): ChildProcess {
  const out = fs.openSync(log, 'a');
  const child = spawn(...tsNode('api/server.ts'), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  return child;
}

/** The processes whose arguments contain `needle`, each with its chain of parents (pid ppid pgid args). */
function survivingChain(needle: string): string {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  const byPid = new Map(rows.map((m) => [m[1]!, m]));
  const lines: string[] = [];
  for (const m of rows.filter((r) => r[4]!.includes(needle))) {
    for (let at: RegExpExecArray | undefined = m; at; at = byPid.get(at[2]!)) {
      lines.push(`  ${at[1]} ${at[2]} ${at[3]} ${at[4]!.slice(0, 160)}`);
      if (at[2] === '0' || at[2] === '1') break;
    }
    lines.push('  --');
  }
  return lines.join('\n');
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGKILL');
  });
}

test('SIGKILL of the worker, the executor and the API mid-run and of the worker while merging loses nothing and merges nothing twice', async () => {
  const fx = await createRepoWithMain({
    host: 'github.com',
    owner: 'acme',
    name: `crash-${randomUUID().slice(0, 8)}`,
  });
  const gate = path.join(fx.dir, 'gate');
  fs.mkdirSync(gate);
  fx.commit('config', {
    '.railyard/merge-queue.json': JSON.stringify({
      version: 1,
      command: `while [ ! -e ${gate}/go ]; do sleep 0.1; done`,
    }),
  });
  fx.pushBranch('main', fx.git('rev-parse', 'HEAD'));
  const taskQueue = `crash-${randomUUID()}`;
  const env = {
    DATABASE_URL: requireTestEnv('TEST_DATABASE_URL'),
    TEMPORAL_ADDRESS: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    RAILYARD_TASK_QUEUE: taskQueue,
    RAILYARD_GIT_ROOT: fx.root,
    RAILYARD_WORK_ROOT: path.join(fx.dir, 'work-root'),
    RAILYARD_WORKER_METRICS_PORT: '0',
    RAILYARD_LOG_LEVEL: 'warn',
    // The run's one bundle: a restart costs no bundling.
    RAILYARD_WORKFLOW_BUNDLE: requireTestEnv('TEST_WORKFLOW_BUNDLE'),
  };
  const connection = await Connection.connect({ address: requireTestEnv('TEST_TEMPORAL_ADDRESS') });
  const client = new Client({ connection });
  const key: QueueKey = { organisationId: randomUUID(), repo: fx.repo, targetBranch: 'main' };
  const pool = createPool(requireTestEnv('TEST_DATABASE_URL'), { max: 2 });
  await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [
    key.organisationId,
    `crash-${key.organisationId.slice(0, 8)}`,
  ]);
  await createRepositoryOwnerStore(pool).claim(key.organisationId, key.repo, 'operator');
  const queue = client.workflow.getHandle(queueWorkflowId(key));
  const record = (n: number) =>
    client.workflow
      .getHandle(prWorkflowId(key, n))
      .query(getPullRequestQuery)
      .catch(() => null);
  const waitFor = async <T>(
    what: string,
    fn: () => Promise<T | null | undefined | false>,
    ms = 90_000,
  ): Promise<T> => {
    for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
      const v = await fn();
      if (v) return v;
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  // The executor takes its runs from the real API process, with a credential an operator issued.
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const apiEnv = {
    DATABASE_URL: requireTestEnv('TEST_DATABASE_URL'),
    TEMPORAL_ADDRESS: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    RAILYARD_TASK_QUEUE: taskQueue,
    RAILYARD_GIT_ROOT: fx.root,
    RAILYARD_API_PORT: String(apiPort),
    RAILYARD_PARSER_THREADS: '0',
    RAILYARD_LOG_LEVEL: 'warn',
  };
  const apiLog = path.join(fx.dir, 'api.log');
  const waitForApi = () =>
    waitFor(
      'the API answering',
      async () => (await fetch(`${apiUrl}/healthz`).catch(() => null))?.ok,
      60_000,
    );
  const added = await createExecutorCredentials(pool).add(`crash-${randomUUID().slice(0, 8)}`);
  if (added.kind !== 'added') throw new Error('no executor credential');
  fs.chmodSync(fx.dir, 0o711);
  fs.chmodSync(gate, 0o755);
  const startExecutor = () =>
    startExecutorProcess({
      apiUrl,
      credential: added.token,
      workRoot: path.join(fx.dir, 'executor'),
      readOnlyPaths: [gate],
      log: process.env.CRASH_EXECUTOR_LOG ?? path.join(fx.dir, 'executor.log'),
    });
  let api = startApi(apiEnv, apiLog);
  let worker = startWorker(env);
  let executor = startExecutor();
  try {
    await waitForApi();
    await client.workflow.start(QUEUE_WORKFLOW_TYPE, {
      workflowId: queueWorkflowId(key),
      taskQueue,
      args: [{ key, config: { concurrency: 2, mergeMethod: 'merge_commit' } } satisfies QueueWorkflowInput],
    });
    for (const n of [1, 2, 3, 4]) {
      fx.branchFrom(`pr-${n}`, fx.base);
      fx.pushPr(n, fx.commit(`PR ${n}`, { [`f${n}.txt`]: `${n}\n` }));
      await queue.executeUpdate(submitUpdate, { args: [{ pr: n, priority: null, noBatch: false }] });
    }
    // Crash 1: while PRs test.
    await waitFor('PR 1 testing', async () => (await record(1))?.state === 'testing');
    await Promise.all([kill(worker), kill(executor)]);
    // The runs die with their executor: its sandboxes (bwrap, pasta) do not outlive it.
    await waitFor(
      'no test command of the killed executor left',
      () =>
        Promise.resolve(!execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(`${gate}/go ]`)),
      10_000,
    ).catch((err: Error) => {
      // Seen under load with a single-process executor (e04dc2d): name the survivors and their parents.
      throw new Error(`${err.message}; still running:\n${survivingChain(`${gate}/go ]`)}`);
    });
    // Rows claimed from now on are the new executor's: a row of the killed executor stays claimed until
    // Temporal retries its activity and the worker stores the new attempt, and counted here it let the
    // story kill the worker before that, leaving the row claimed for good.
    const restartedAt = (await pool.query<{ t: Date }>('SELECT now() AS t')).rows[0]!.t;
    worker = startWorker(env);
    executor = startExecutor();
    // Crash 2: the retried runs are on the new executor (their commands wait for the gate): the worker
    // dies, then the API. The runs end while both are down; the executor keeps their reports until the
    // API is back.
    const claimed = (since?: Date) =>
      pool
        .query<{ n: number }>(
          `SELECT count(*)::int AS n FROM executor_jobs
            WHERE task_queue = $1 AND state = 'claimed' AND ($2::timestamptz IS NULL OR claimed_at >= $2)`,
          [taskQueue, since ?? null],
        )
        .then((r) => r.rows[0]!.n);
    await waitFor(
      'the retried runs claimed by the new executor',
      async () => (await claimed(restartedAt)) >= 2,
      120_000,
    );
    await waitFor(
      'their commands running',
      () =>
        Promise.resolve(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(`${gate}/go ]`)),
      60_000,
    );
    await kill(worker);
    await kill(api);
    fs.writeFileSync(path.join(gate, 'go'), '');
    await waitFor(
      'the commands ending with the API down',
      () =>
        Promise.resolve(!execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(`${gate}/go ]`)),
      10_000,
    );
    api = startApi(apiEnv, apiLog);
    await waitForApi();
    // The reports arrive (the jobs go) with the worker still down: nothing of a run is in the worker.
    // Generous: a report waits out the executor's backoff (up to 10 s) and, on a loaded machine, an
    // attempt whose heartbeats stopped with the API; a report never delivered still fails here.
    await waitFor('the reports delivered', async () => (await claimed()) === 0, 120_000).catch(
      async (err: unknown) => {
        const { rows } = await pool.query(
          `SELECT id, attempt, state FROM executor_jobs WHERE task_queue = $1`,
          [taskQueue],
        );
        const log = process.env.CRASH_EXECUTOR_LOG ?? path.join(fx.dir, 'executor.log');
        console.error(
          `jobs: ${JSON.stringify(rows)}\n` +
            (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').slice(-30).join('\n') : ''),
        );
        throw err;
      },
    );
    worker = startWorker(env);
    // Crash 3: while merging (as soon as anything passed).
    await waitFor('a PR passed', async () => {
      const states = await Promise.all([1, 2, 3, 4].map(async (n) => (await record(n))?.state));
      return states.some((s) => s === 'tests_passed' || s === 'merged');
    });
    await kill(worker);
    worker = startWorker(env);

    const finals: PullRequestRecord[] = [];
    try {
      for (const n of [1, 2, 3, 4])
        finals.push(
          await waitFor(
            `PR ${n} terminal`,
            async () => {
              const r = await record(n);
              return r && isTerminal(r.state) ? r : null;
            },
            150_000,
          ),
        );
    } catch (err) {
      // What an operator would look at: each PR's record and the executor's log.
      const records = await Promise.all([1, 2, 3, 4].map((n) => record(n)));
      const log = path.join(fx.dir, 'executor.log');
      console.error(
        [
          ...records.map(
            (r, i) => `PR ${i + 1}: ${r ? `${r.state} ${r.reason} ${JSON.stringify(r.timeline)}` : 'none'}`,
          ),
          fs.existsSync(log)
            ? fs.readFileSync(log, 'utf8').split('\n').slice(-40).join('\n')
            : 'no executor log',
        ].join('\n'),
      );
      throw err;
    }
    // Exactly one terminal state each, and the timeline ends there.
    for (const r of finals) expect(r.timeline.filter((t) => isTerminal(t.to))).toHaveLength(1);
    expect(finals.map((r) => r.state)).toEqual(['merged', 'merged', 'merged', 'merged']);
    // Nothing merged twice: each PR's merge commit appears once on main.
    const subjects = fx.bareGit('log', '--format=%s', '--first-parent', 'main').split('\n');
    for (const n of [1, 2, 3, 4])
      expect(subjects.filter((s) => new RegExp(`^Merge pull request #${n}\\b`).test(s))).toHaveLength(1);
    // Only tested commits: main's tip is the commit a verifying run tested, and every verifying run's
    // commit is on main's first-parent line (the target advanced by compare-and-swap to those only).
    const firstParents = new Set(fx.bareGit('rev-list', '--first-parent', 'main').split('\n'));
    // The event log holds exactly one terminal transition per submission despite the kills.
    const terminalCounts = await waitFor('the event log', async () => {
      const { rows } = await pool.query<{ n: string }>(
        `SELECT count(*) FILTER (WHERE to_state IN ('merged', 'failed', 'cancelled')) AS n
           FROM pr_transitions WHERE organisation_id = $1 GROUP BY submission_id`,
        [key.organisationId],
      );
      return rows.length === 4 && rows.every((r) => r.n !== '0') ? rows.map((r) => Number(r.n)) : null;
    });
    expect(terminalCounts).toEqual([1, 1, 1, 1]);
    const tested = await Promise.all(
      finals.map(async (r) => (await queue.query(getTestRunQuery, r.verifiedByTestRun!))?.testBranchSha),
    );
    expect(tested).toContain(fx.tip('main'));
    for (const sha of tested) expect(firstParents.has(sha!)).toBe(true);
  } finally {
    await kill(worker).catch(() => undefined);
    await kill(executor).catch(() => undefined);
    await kill(api).catch(() => undefined);
    await createExecutorCredentials(pool).revoke(added.executor.name);
    await connection.close();
    await pool.end();
    fx.cleanup();
  }
}, 240_000);
