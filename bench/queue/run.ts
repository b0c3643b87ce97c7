/**
 * `npm run bench:queue`: orchestration overhead of the merge queue on the real stack (Temporal dev
 * server, real worker, real git, an instant test command), next to a baseline measured in the same run:
 * the same git work (build the test branch, run the command, advance the target, delete the branch)
 * done in a plain loop with no Temporal.
 *
 * Reports p50/p95 of "submitted → testing" (from the submit call to the start of the CI run, with a free
 * slot), "tests passed → target moved" (from the workflow's record of both), and sustained
 * merged PRs per second for a burst, without batching and then with it (issue 25: a 40-PR burst with
 * batching at >= 1.0x the plain loop); then history events per merged PR (histories.ts) next to issue
 * 25's figure before the lean orchestration.
 * Usage: npx tsx bench/queue/run.ts [--prs 40] [--burst 60] [--batched-burst 40] [--batch-size 8]
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { testBranchName } from '../../git/names';
import { createCommandRunner } from '../../executor/command-runner';
import { table } from '../../scripts/lib/markdown-table';
import {
  prWorkflowId,
  queueWorkflowId,
  testRunWorkflowId,
  updateQueueUpdate,
  type PullRequestRecord,
} from '../../contract';
import { executeQueueUpdate } from '../../test/support/queue-updates';
import { startQueueDeployment } from './deployment';
import { eventsPerMergedPr, type EventCounts } from './histories';
import { serialSteps, stepRows } from './serial-steps';
import { percentile } from './stats';
import { startBenchStack } from '../lib/stack';

const { values } = parseArgs({
  options: {
    prs: { type: 'string', default: '40' },
    burst: { type: 'string', default: '60' },
    'batched-burst': { type: 'string', default: '40' },
    'batch-size': { type: 'string', default: '8' },
  },
});
const SERIAL = Number(values.prs);
const BURST = Number(values.burst);
const BATCHED = Number(values['batched-burst']);
const BATCH_SIZE = Number(values['batch-size']);
/** Issue 25's figure at 34c1bf2, from the recorded histories then: events per merged PR. */
const BEFORE = { queue: 83, pullRequest: 28, testRun: 40, total: 151 };
const EVENTS_TARGET = 60;
const log = (m: string) => console.error(`[bench:queue] ${m}`);

async function main(): Promise<void> {
  const stack = await startBenchStack({ name: 'bench', log, poolMax: 4 });
  const { tmp, pool, fx } = stack;
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

    const q = await startQueueDeployment(stack, { concurrency: 4 });
    const { client, key, queue, settled, open, mergedPrs, testRunIds } = q;

    log(`serial: ${SERIAL} PRs one at a time (free slot each time)...`);
    const toTesting: number[] = [];
    const toMoved: number[] = [];
    const perPr: number[] = [];
    const steps: Awaited<ReturnType<typeof serialSteps>>[] = [];
    for (let n = 1; n <= SERIAL; n++) {
      open(n);
      const t0 = Date.now();
      await q.submit(n);
      const r = await settled(n);
      perPr.push(Date.now() - t0);
      const at = (s: string) => r.timeline.find((t) => t.to === s)?.at;
      // Testing starts when CI starts: the test-run workflow's start, after the test branch was built.
      const runId = r.timeline.find((t) => t.to === 'testing')!.testRunId!;
      const child = await client.workflow.getHandle(testRunWorkflowId(key, runId)).describe();
      toTesting.push(child.startTime.getTime() - t0);
      toMoved.push(at('merged')! - at('tests_passed')!);
      steps.push(await serialSteps(client, key, queueWorkflowId(key), n, runId, t0));
      if (n % 10 === 0) log(`  ${n}/${SERIAL}`);
    }

    log(`burst: ${BURST} PRs submitted at once (concurrency 4)...`);
    const first = SERIAL + 1;
    /**
     * PRs `from` .. `from + count - 1` opened, then submitted at once (a burst is many CI jobs
     * submitting in parallel, each its own request) and waited for; seconds until the last ended.
     */
    const burst = async (from: number, count: number) => {
      const numbers = Array.from({ length: count }, (_, i) => from + i);
      for (const n of numbers) open(n);
      const t0 = Date.now();
      await Promise.all(numbers.map((n) => q.submit(n)));
      const records: PullRequestRecord[] = [];
      for (const n of numbers) records.push(await settled(n, BURST_POLL_MS));
      const merged = records.filter((r) => r.state === 'merged').length;
      return { records, merged, seconds: (lastEnd(records) - t0) / 1000, t0 };
    };
    const unbatched = await burst(first, BURST);
    const merged = unbatched.merged;
    const burstSeconds = unbatched.seconds;
    const baselinePerSecond = 1000 / percentile(baseline, 50);
    if (mergedPrs.size !== SERIAL + BURST)
      log(`only ${mergedPrs.size} of ${SERIAL + BURST} PRs merged: the queue's events are shared by all`);
    // Counted before the batched burst, so the figure stays the unbatched orchestration's.
    const perMerged = await eventsPerMergedPr(client, {
      queueWorkflowId: queueWorkflowId(key),
      queueFirstRunId: q.firstRunId,
      prWorkflowIds: [...mergedPrs].map((n) => prWorkflowId(key, n)),
      testRunWorkflowIds: [...testRunIds].map((id) => testRunWorkflowId(key, id)),
    });

    // The batched burst: the same queue switched to Trunk's batching (batches of BATCH_SIZE, as deep as
    // the concurrency), every PR opened first and submitted at once.
    log(`batched burst: ${BATCHED} PRs submitted at once (batches of ${BATCH_SIZE}, concurrency 4)...`);
    await executeQueueUpdate(queue, updateQueueUpdate, {
      args: [{ config: { batch: true, batchingMinSize: BATCH_SIZE, batchingMaxWaitTimeMinutes: 0 } }],
    });
    const batched = await burst(first + BURST, BATCHED);
    const { merged: mergedBatched, seconds: batchedSeconds } = batched;

    await q.close();
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
          [
            `merged PRs per second (burst of ${BATCHED}, batches of ${BATCH_SIZE})`,
            `${(mergedBatched / batchedSeconds).toFixed(2)}`,
            `${baselinePerSecond.toFixed(2)} (serial)`,
            `${(mergedBatched / batchedSeconds / baselinePerSecond).toFixed(2)}`,
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
    const batchedRatio = mergedBatched / batchedSeconds / baselinePerSecond;
    console.log(
      `\nTarget (a ${BATCHED}-PR burst with batching at >= 1.0x the plain loop): ${batchedRatio >= 1 ? 'met' : 'MISSED'} (${batchedRatio.toFixed(2)}x; ${mergedBatched}/${BATCHED} merged in ${batchedSeconds.toFixed(1)} s).`,
    );
    console.log(`Where the batched burst's time went: ${burstPhases(batched.records, batched.t0)}.`);
    console.log(
      `\nWhere one serial PR's time went (median of ${steps.length}, from the histories' event times; the plain loop's whole PR p50 ${percentile(baseline, 50).toFixed(0)} ms):\n${table(['step', 'p50 (ms)', 'PRs'], stepRows(steps))}`,
    );
  } finally {
    await stack.stop();
  }
}

/**
 * A burst's waits ask each PR's workflow this often, and its clock stops at the last PR's end as its
 * record says, so the polling neither adds to the time measured nor takes much of the CPU measured
 * (asking every 20 ms was ~50 queries a second beside the burst).
 */
const BURST_POLL_MS = 250;

/** When the last of `records` ended (its terminal transition, the workflow's clock), in epoch ms. */
function lastEnd(records: readonly PullRequestRecord[]): number {
  return Math.max(...records.map((r) => r.timeline[r.timeline.length - 1]?.at ?? Date.now()));
}

/**
 * When the burst's PRs reached each state, seconds after the first submit: first, median and last
 * (the first time each PR entered it), and how many test runs the burst started.
 */
function burstPhases(records: readonly PullRequestRecord[], t0: number): string {
  const states = ['pending', 'testing', 'tests_passed', 'merged'] as const;
  const parts = states.map((state) => {
    const at = records
      .map((r) => r.timeline.find((t) => t.to === state)?.at)
      .filter((x): x is number => x !== undefined)
      .map((x) => (x - t0) / 1000)
      .sort((a, b) => a - b);
    if (at.length === 0) return `${state} never`;
    const s = (x: number) => x.toFixed(1);
    return `${state} ${s(at[0]!)} / ${s(at[Math.floor(at.length / 2)]!)} / ${s(at[at.length - 1]!)} s`;
  });
  const runs = new Set(
    records.flatMap((r) => r.timeline.map((t) => t.testRunId).filter((id) => id !== null)),
  );
  return `${parts.join(', ')} (first / median / last); ${runs.size} test runs`;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
