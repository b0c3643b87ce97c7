/**
 * `npm run bench:continuous`: a queue under continuous load (issue 25: "a PR every second for 20
 * minutes continues-as-new on schedule; its carried state stays under 256 KiB"), on the real stack of
 * `bench:queue` (Temporal dev server, real worker and executor, real git, an instant test command).
 *
 * A PR is opened and submitted every 1/rate seconds for the given minutes, whatever the queue is doing
 * (a slow submit does not delay the next one); then the queue is left to drain. It prints progress every
 * 30 s and ends with each run of the queue workflow (events, span, the bytes it was handed across
 * continue-as-new, its failed workflow tasks by cause and its longest task: a continue-as-new refused
 * with UNHANDLED_COMMAND makes the worker replay the whole run, which shows as a long task) and
 * submit → merged latencies.
 *
 * What it checks, and prints as met or MISSED:
 *  - every PR submitted ends merged (the test command always passes);
 *  - the queue keeps continuing as new while the load runs: every finished run ended by continue-as-new,
 *    and no run grew past 1.5 times the median length of the finished ones (one put off by the load
 *    would), nor past 10,240 events (Temporal's history warning);
 *  - the state each run was handed stays under 256 KiB;
 *  - every run of the queue replays offline against the code that ran it (a history that does not
 *    replay wedges the queue: stop 43 found one).
 * Usage: npx tsx bench/queue/continuous.ts [--minutes 20] [--rate 1] [--batch-size 8] [--concurrency 4]
 * [--keep-histories DIR] [--timed-out-tasks N] (`--batch-size 0`: no batching; DIR: every queue run's
 * history as JSON; N: that many rewrites of each kept run as a task that timed out, replayed: ADR 0029).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { describeReplayFailures, replayRunHistories } from '../../test/support/run-replay';
import { replayTimedOutTasks } from './timed-out-rewrites';
import { table } from '../../scripts/lib/markdown-table';
import { isTerminal } from '../../engine';
import { queueWorkflowId } from '../../contract';
import { startBenchStack } from '../lib/stack';
import { startQueueDeployment } from './deployment';
import { runSummaries } from './histories';
import { percentile } from './stats';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '20' },
    rate: { type: 'string', default: '1' },
    'batch-size': { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '4' },
    // Every run of the queue kept as JSON there, to replay (and profile) offline.
    'keep-histories': { type: 'string' },
    // Replays that many rewrites of each kept run as a task that timed out (needs --keep-histories).
    'timed-out-tasks': { type: 'string', default: '0' },
  },
});
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate);
const BATCH_SIZE = Number(values['batch-size']);
const CONCURRENCY = Number(values.concurrency);
for (const [name, v] of [
  ['minutes', MINUTES],
  ['rate', RATE],
  ['concurrency', CONCURRENCY],
] as const)
  if (!(v > 0)) throw new Error(`--${name} must be a number above 0.`);
if (!(BATCH_SIZE >= 0)) throw new Error('--batch-size must be 0 (no batching) or more.');
const TIMED_OUT_TASKS = Number(values['timed-out-tasks']);
if (!(Number.isInteger(TIMED_OUT_TASKS) && (TIMED_OUT_TASKS === 0 || TIMED_OUT_TASKS >= 2)))
  throw new Error('--timed-out-tasks must be 0 (none) or a whole number of 2 or more.');
if (TIMED_OUT_TASKS > 0 && !values['keep-histories'])
  throw new Error('--timed-out-tasks needs --keep-histories DIR: it replays the kept runs.');

const CARRIED_LIMIT = 256 * 1024;
const HISTORY_WARNING = 10_240;
const DRAIN_MS = 5 * 60_000;
const t0 = Date.now();
const log = (m: string) =>
  console.error(`[bench:continuous ${((Date.now() - t0) / 1000).toFixed(0).padStart(5)} s] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<number> {
  const stack = await startBenchStack({ name: 'continuous', log, poolMax: 10 });
  try {
    const batching =
      BATCH_SIZE > 0
        ? { batch: true, batchingMinSize: BATCH_SIZE, batchingMaxWaitTimeMinutes: 0 }
        : { batch: false };
    const q = await startQueueDeployment(stack, { concurrency: CONCURRENCY, ...batching });
    const submittedAt = new Map<number, number>();
    const endedAt = new Map<number, { at: number; state: string }>();
    /** PR numbers whose submit failed, by the error's text. */
    const failedSubmits = new Map<string, number[]>();
    const pendingSubmits = new Set<Promise<void>>();
    let loadOver = false;
    let loadEnd = 0;
    let lastDrainReport = 0;

    // Watches every PR submitted and not yet ended, once a second.
    const watching = (async () => {
      while (!loadOver || endedAt.size < submittedAt.size) {
        for (const n of submittedAt.keys()) {
          if (endedAt.has(n)) continue;
          const r = await q.record(n);
          if (r && isTerminal(r.state)) endedAt.set(n, { at: Date.now(), state: r.state });
        }
        if (loadOver && Date.now() - loadEnd > DRAIN_MS) return;
        if (loadOver && Date.now() - lastDrainReport >= 30_000) {
          lastDrainReport = Date.now();
          log(`draining: ${endedAt.size}/${submittedAt.size} ended`);
        }
        await sleep(1000);
      }
    })();

    const interval = 1000 / RATE;
    const total = Math.round(MINUTES * 60 * RATE);
    log(
      `a PR every ${(interval / 1000).toFixed(2)} s for ${MINUTES} min (${total} PRs), ${BATCH_SIZE > 0 ? `batches of ${BATCH_SIZE}` : 'no batching'}, concurrency ${CONCURRENCY}`,
    );
    const loadStart = Date.now();
    let lastReport = loadStart;
    for (let n = 1; n <= total; n++) {
      const due = loadStart + (n - 1) * interval;
      if (due > Date.now()) await sleep(due - Date.now());
      q.open(n);
      submittedAt.set(n, Date.now());
      const p = q.submit(n).catch((err: unknown) => {
        const why = String(err);
        failedSubmits.set(why, [...(failedSubmits.get(why) ?? []), n]);
      });
      pendingSubmits.add(p);
      void p.finally(() => pendingSubmits.delete(p));
      if (Date.now() - lastReport >= 30_000) {
        lastReport = Date.now();
        const d = await q.queue.describe();
        log(
          `${n}/${total} submitted, ${endedAt.size} ended, ${n - endedAt.size} in the queue; queue run ${d.runId.slice(0, 8)} at ${d.historyLength} events`,
        );
      }
    }
    await Promise.all(pendingSubmits);
    loadEnd = Date.now();
    loadOver = true;
    log(`load over after ${((loadEnd - loadStart) / 1000).toFixed(0)} s; draining (at most 5 min)...`);
    await watching;

    const keepDir = values['keep-histories'];
    const runs = await runSummaries(q.client, queueWorkflowId(q.key), q.firstRunId, {
      ...(keepDir ? { keepDir } : {}),
    });
    if (keepDir) log(`kept ${runs.length} queue run histories in ${keepDir}`);
    // Every run of the queue replayed offline against the code that ran it: a history that does not
    // replay wedges the queue the next time a worker without it in its cache takes its task.
    log('replaying every run of the queue offline...');
    const bundlePath = path.join(stack.tmp, 'workflow-bundle.js');
    fs.writeFileSync(bundlePath, stack.code);
    const replay = await replayRunHistories({
      temporalAddress: stack.address,
      workflowBundle: bundlePath,
      organisations: [q.key.organisationId],
      // The test runs too: their workflow still makes local calls (ADR 0026).
      types: ['queueWorkflow', 'testRunWorkflow'],
      since: new Date(t0 - 60_000),
      keepDir: path.join(os.tmpdir(), 'railyard-continuous-replay-failed'),
    });
    await q.close();
    let rewrites = '';
    if (keepDir && TIMED_OUT_TASKS > 0) {
      log(`replaying up to ${TIMED_OUT_TASKS} timed-out-task rewrites of each kept run...`);
      const files = runs
        .map((_, i) => path.join(keepDir, `run-${i + 1}.json`))
        .filter((f) => fs.existsSync(f));
      rewrites = await replayTimedOutTasks(bundlePath, TIMED_OUT_TASKS, files);
    }

    const latencies = [...endedAt.entries()].map(([n, e]) => e.at - submittedAt.get(n)!);
    const merged = [...endedAt.values()].filter((e) => e.state === 'merged').length;
    const finished = runs.filter((r) => r.continuedAsNew);
    const lengths = finished.map((r) => r.events).sort((a, b) => a - b);
    const median = lengths.length > 0 ? lengths[Math.floor(lengths.length / 2)]! : 0;
    const longest = Math.max(...runs.map((r) => r.events));
    const largestInput = Math.max(...runs.map((r) => r.inputBytes));
    const span = (r: (typeof runs)[number]) =>
      r.startedAt && r.endedAt
        ? `${((r.endedAt.getTime() - r.startedAt.getTime()) / 1000).toFixed(0)} s`
        : '?';

    console.log(
      table(
        ['queue run', 'events', 'span', 'handed (KiB)', 'failed tasks', 'longest task (s)', 'ended by'],
        runs.map((r, i) => [
          String(i + 1),
          String(r.events),
          span(r),
          (r.inputBytes / 1024).toFixed(1),
          Object.entries(r.failedTasks)
            .map(([cause, n]) => `${n} ${cause}`)
            .join(', ') || '0',
          (r.longestTaskMs / 1000).toFixed(1),
          r.continuedAsNew ? 'continue-as-new' : 'still running',
        ]),
      ),
    );
    const failed = [...failedSubmits.values()].reduce((n, prs) => n + prs.length, 0);
    // Each distinct error once, with how many submits it failed and the first PRs it failed.
    const whys = [...failedSubmits]
      .sort((a, b) => b[1].length - a[1].length)
      .map(
        ([why, prs]) =>
          `${prs.length} x ${why} (PRs ${prs.slice(0, 5).join(', ')}${prs.length > 5 ? ', ...' : ''})`,
      );
    console.log(
      `\n${total} PRs submitted over ${MINUTES} min, ${merged} merged, ${endedAt.size - merged} ended otherwise, ${total - endedAt.size} not ended after the drain; ${failed} submits failed${failed ? `:\n  ${whys.join('\n  ')}` : ''}.`,
    );
    console.log(
      `submit → merged: p50 ${(percentile(latencies, 50) / 1000).toFixed(1)} s, p95 ${(percentile(latencies, 95) / 1000).toFixed(1)} s, max ${(Math.max(...latencies) / 1000).toFixed(1)} s.`,
    );
    const allMerged = merged === total && failed === 0;
    const onSchedule =
      finished.length > 0 &&
      finished.length === runs.length - 1 &&
      longest <= Math.max(median * 1.5, median + 200) &&
      longest <= HISTORY_WARNING;
    const small = largestInput < CARRIED_LIMIT;
    console.log(`\nEvery PR merged: ${allMerged ? 'met' : 'MISSED'}.`);
    if (finished.length === 0)
      console.log('No run continued as new during the load: run it longer (--minutes) to see the schedule.');
    console.log(
      `Continue-as-new on schedule: ${onSchedule ? 'met' : 'MISSED'} (${finished.length} runs continued as new at ${lengths[0] ?? '-'}–${lengths[lengths.length - 1] ?? '-'} events, median ${median}; the longest run ${longest}; limit 1.5 × median and ${HISTORY_WARNING}).`,
    );
    console.log(
      `Carried state under 256 KiB: ${small ? 'met' : 'MISSED'} (largest ${(largestInput / 1024).toFixed(1)} KiB).`,
    );
    const replays = replay.failed.length === 0;
    console.log(
      `Every queue run replays: ${replays ? 'met' : 'MISSED'} (${replay.replayed.length} runs replayed${replays ? '' : `; ${describeReplayFailures(replay.failed)}`}).`,
    );
    if (rewrites) console.log(rewrites);
    return allMerged && onSchedule && small && replays ? 0 : 1;
  } finally {
    await stack.pool.end().catch(() => undefined);
    await stack.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
