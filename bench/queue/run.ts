/**
 * `npm run bench:queue`: orchestration overhead of the merge queue on the real stack (Temporal dev
 * server, real worker, real git, an instant test command), next to a baseline measured in the same run:
 * the same git work (build the test branch, run the command, advance the target, delete the branch)
 * done in a plain loop with no Temporal.
 *
 * Reports p50/p95 of "submitted → testing" (from the submit call to the start of the CI run, with a free
 * slot), "tests passed → target moved" (from the workflow's record of both), and sustained
 * merged PRs per second for a burst; then history events per merged PR (histories.ts) next to issue 25's
 * figure before the lean orchestration. Usage: npx tsx bench/queue/run.ts [--prs 40] [--burst 60]
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { testBranchName } from '../../git/names';
import { createCommandRunner } from '../../executor/command-runner';
import { createRepositoryOwnerStore } from '../../stores/repository-owners';
import { table } from '../../scripts/lib/markdown-table';
import { isTerminal } from '../../engine';
import {
  getPullRequestQuery,
  prWorkflowId,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowId,
  submitUpdate,
  testRunWorkflowId,
  type QueueKey,
  type QueueWorkflow,
  type QueueWorkflowInput,
} from '../../contract';
import { startTestExecutor } from '../../test/support/executor';
import { executeQueueUpdate } from '../../test/support/queue-updates';
import { eventsPerMergedPr, type EventCounts } from './histories';
import { percentile } from './stats';
import { startBenchStack } from '../lib/stack';

const { values } = parseArgs({
  options: { prs: { type: 'string', default: '40' }, burst: { type: 'string', default: '60' } },
});
const SERIAL = Number(values.prs);
const BURST = Number(values.burst);
/** Issue 25's figure at 34c1bf2, from the recorded histories then: events per merged PR. */
const BEFORE = { queue: 83, pullRequest: 28, testRun: 40, total: 151 };
const EVENTS_TARGET = 60;
const log = (m: string) => console.error(`[bench:queue] ${m}`);

async function main(): Promise<void> {
  const stack = await startBenchStack({ name: 'bench', log, poolMax: 4 });
  const { tmp, address, code, pool, fx } = stack;
  try {
    const runner = createCommandRunner({
      gitHost: fx.host,
      workRoot: path.join(tmp, 'work'),
      logRoot: path.join(tmp, 'logs'),
    });

    // Baseline: the same git work in a plain loop.
    log(`baseline: ${SERIAL} PRs through build → test → advance → delete in a plain loop...`);
    const baseline: number[] = [];
    for (let n = 1; n <= SERIAL; n++) {
      fx.branchFrom(`b-${n}`, 'origin/main');
      fx.git('fetch', '--quiet', 'origin');
      fx.branchFrom(`b-${n}`, 'origin/main');
      const head = fx.commit(`base ${n}`, { [`b${n}.txt`]: `${n}\n` });
      fx.pushPr(1000 + n, head);
      const t0 = performance.now();
      const tip = fx.tip('main');
      const branchName = testBranchName(1000 + n, randomUUID());
      const built = await fx.host.buildTestBranch({
        repo: fx.repo,
        targetBranch: 'main',
        baseSha: tip,
        prs: [{ number: 1000 + n, headSha: head }],
        mergeMethod: 'squash',
        branchName,
      });
      if (built.kind !== 'built') throw new Error(`baseline build failed: ${built.kind}`);
      await runner.run({
        runId: randomUUID(),
        repo: fx.repo,
        branchName,
        headSha: built.headSha,
        command: 'true',
        timeoutMs: 60_000,
      });
      await fx.host.advanceTarget({
        repo: fx.repo,
        targetBranch: 'main',
        expectedSha: tip,
        newSha: built.headSha,
      });
      await fx.host.deleteBranch(fx.repo, branchName);
      baseline.push(performance.now() - t0);
    }

    const nativeConnection = await NativeConnection.connect({ address });
    const connection = await Connection.connect({ address });
    const client = new Client({ connection });
    const taskQueue = 'bench';
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      workflowBundle: { code },
      activities: createActivities({
        workerIdentity: 'bench',
        gitHost: fx.host,
        client,
        taskQueue,
        pool,
        allowPrivateWebhookUrls: false,
      }),
    });
    const running = worker.run();
    // The queue's runs go to an executor (issue 17), unsandboxed like the baseline's runner: the
    // difference measured includes the content hand-off (bundle, HTTP), not bwrap's start.
    const executor = await startTestExecutor({
      controlTaskQueue: taskQueue,
      pool,
      sandbox: false,
      temporalAddress: address,
    });
    const key: QueueKey = { organisationId: randomUUID(), repo: fx.repo, targetBranch: 'main' };
    await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [key.organisationId, 'bench']);
    await createRepositoryOwnerStore(pool).claim(key.organisationId, key.repo, 'operator');
    const queue = client.workflow.getHandle(queueWorkflowId(key));
    const started = await client.workflow.start<QueueWorkflow>(QUEUE_WORKFLOW_TYPE, {
      workflowId: queueWorkflowId(key),
      taskQueue,
      args: [{ key, config: { concurrency: 4 } } satisfies QueueWorkflowInput],
    });
    const record = (n: number) => client.workflow.getHandle(prWorkflowId(key, n)).query(getPullRequestQuery);
    /** Merged PRs and the test runs their timelines name, for the history count. */
    const mergedPrs = new Set<number>();
    const testRunIds = new Set<string>();
    const settled = async (n: number) => {
      for (;;) {
        const r = await record(n).catch(() => null);
        if (r && isTerminal(r.state)) {
          if (r.state === 'merged') mergedPrs.add(n);
          for (const t of r.timeline) if (t.testRunId) testRunIds.add(t.testRunId);
          return r;
        }
        await new Promise((res) => setTimeout(res, 20));
      }
    };
    const open = (n: number) => {
      fx.git('fetch', '--quiet', 'origin');
      fx.branchFrom(`pr-${n}`, 'origin/main');
      fx.pushPr(n, fx.commit(`PR ${n}`, { [`f${n}.txt`]: `${n}\n` }));
    };

    log(`serial: ${SERIAL} PRs one at a time (free slot each time)...`);
    const toTesting: number[] = [];
    const toMoved: number[] = [];
    const perPr: number[] = [];
    for (let n = 1; n <= SERIAL; n++) {
      open(n);
      const t0 = Date.now();
      await executeQueueUpdate(queue, submitUpdate, { args: [{ pr: n, priority: null, noBatch: false }] });
      const r = await settled(n);
      perPr.push(Date.now() - t0);
      const at = (s: string) => r.timeline.find((t) => t.to === s)?.at;
      // Testing starts when CI starts: the test-run workflow's start, after the test branch was built.
      const runId = r.timeline.find((t) => t.to === 'testing')!.testRunId!;
      const child = await client.workflow.getHandle(testRunWorkflowId(key, runId)).describe();
      toTesting.push(child.startTime.getTime() - t0);
      toMoved.push(at('merged')! - at('tests_passed')!);
      if (n % 10 === 0) log(`  ${n}/${SERIAL}`);
    }

    log(`burst: ${BURST} PRs submitted at once (concurrency 4)...`);
    const first = SERIAL + 1;
    for (let n = first; n < first + BURST; n++) open(n);
    const b0 = Date.now();
    for (let n = first; n < first + BURST; n++)
      // Sent again if the queue is continuing as new (its updates are refused meanwhile).
      await executeQueueUpdate(queue, submitUpdate, { args: [{ pr: n, priority: null, noBatch: false }] });
    let merged = 0;
    for (let n = first; n < first + BURST; n++) if ((await settled(n)).state === 'merged') merged++;
    const burstSeconds = (Date.now() - b0) / 1000;
    const baselinePerSecond = 1000 / percentile(baseline, 50);
    if (mergedPrs.size !== SERIAL + BURST)
      log(`only ${mergedPrs.size} of ${SERIAL + BURST} PRs merged: the queue's events are shared by all`);
    const perMerged = await eventsPerMergedPr(client, {
      queueWorkflowId: queueWorkflowId(key),
      queueFirstRunId: started.firstExecutionRunId,
      prWorkflowIds: [...mergedPrs].map((n) => prWorkflowId(key, n)),
      testRunWorkflowIds: [...testRunIds].map((id) => testRunWorkflowId(key, id)),
    });

    await executor.close();
    worker.shutdown();
    await running;
    await connection.close();
    await nativeConnection.close();
    await pool.end();
    fx.cleanup();

    console.log(
      table(
        ['measure', 'railyard (Temporal)', 'baseline (plain loop)', 'ratio'],
        [
          [
            'submitted → testing p50 / p95 (ms)',
            `${percentile(toTesting, 50)} / ${percentile(toTesting, 95)}`,
            '—',
            '—',
          ],
          [
            'tests passed → target moved p50 / p95 (ms)',
            `${percentile(toMoved, 50)} / ${percentile(toMoved, 95)}`,
            '—',
            '—',
          ],
          [
            'one PR end to end p50 / p95 (ms)',
            `${percentile(perPr, 50)} / ${percentile(perPr, 95)}`,
            `${percentile(baseline, 50).toFixed(0)} / ${percentile(baseline, 95).toFixed(0)}`,
            `${(percentile(perPr, 50) / percentile(baseline, 50)).toFixed(1)}x`,
          ],
          [
            `merged PRs per second (burst of ${BURST})`,
            `${(merged / burstSeconds).toFixed(2)}`,
            `${baselinePerSecond.toFixed(2)} (serial)`,
            `${(merged / burstSeconds / baselinePerSecond).toFixed(2)}`,
          ],
        ],
      ),
    );
    const fmt = (c: EventCounts) =>
      `${c.events.toFixed(1)} (${c.workflowTasks.toFixed(1)} workflow tasks, ${c.activities.toFixed(1)} activities)`;
    console.log(
      `\n${table(
        ['history per merged PR', 'events (workflow tasks, activities)', 'before (34c1bf2)'],
        [
          ['queue workflow (all runs)', fmt(perMerged.queue), `${BEFORE.queue}`],
          ['pull-request workflow', fmt(perMerged.pullRequest), `${BEFORE.pullRequest}`],
          ['test-run workflows', fmt(perMerged.testRun), `${BEFORE.testRun}`],
          ['total', fmt(perMerged.total), `${BEFORE.total}`],
        ],
      )}`,
    );
    const kinds = (c: EventCounts) =>
      Object.entries(c.kinds)
        .sort(([, a], [, b]) => b - a)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ');
    console.log(
      `\nBy kind, per merged PR:\n- queue: ${kinds(perMerged.queue)}\n- pull request: ${kinds(perMerged.pullRequest)}\n- test run: ${kinds(perMerged.testRun)}`,
    );
    console.log(
      `\nTarget (history events per merged PR ≤ ${EVENTS_TARGET}): ${perMerged.total.events <= EVENTS_TARGET ? 'met' : 'MISSED'} (${perMerged.merged} merged PRs, ${testRunIds.size} test runs).`,
    );
    const ok = percentile(toTesting, 95) < 1000 && percentile(toMoved, 95) < 1000;
    console.log(
      `\nTarget (both p95 under 1 s): ${ok ? 'met' : 'MISSED'}. ${merged}/${BURST} burst PRs merged in ${burstSeconds.toFixed(1)} s.`,
    );
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
