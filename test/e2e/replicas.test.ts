/**
 * The multi-replica story (issue 27): two APIs behind one round-robin address, two workers and two
 * executors against one Temporal and one PostgreSQL (npm test's own), through the chaos harness (bench/chaos): PRs are
 * submitted through either API, and one replica of each kind is killed with SIGKILL mid-run (then
 * started again, as a supervisor would). Every PR ends once, nothing merges twice or untested, and the
 * organisation's executor run slots (RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION, 1 here so it binds)
 * are never exceeded although two workers take them, sampled from PostgreSQL while the run goes on.
 *
 * The GitHub stories run on the same stack at the same time (test/support/github-replica-story.ts): the
 * processes get the App's settings pointed at one fakehub, and a queue on a GitHub repository takes PRs
 * through each API replica and a `/trunk merge` comment whose delivery, redelivered to the other
 * replica, acts once; worker 2 is killed as the first merge reaches GitHub. Every PR ends once, GitHub
 * merged each once, and the installation never saw more writes in a window than the processes' joint
 * pace allows (fakehub refuses past it). One stack for both: the suite's time budget (116-187 s
 * measured at load 3-11).
 *
 * At the end every queue workflow run of the run is replayed offline against the run's workflow bundle
 * (test/support/run-replay.ts): a nondeterminism shows there whether or not a worker without the queue
 * in its cache met it (issue 27: the queue wedged on one in 1 run in 7, only when the worker kill fell
 * at the right moment). Only the queues: the suite is CPU-bound (their
 * pull-request and test-run workflows too, 24 runs, took 6-12 s at load 4-10).
 *
 * Every wait is on state with a bound (the chaos run's settle, the story's loops), never a sleep
 * standing in for one. A failure prints the run's lines, the story's report, Temporal's state of every
 * workflow still running and each process's warnings (test/support/replica-evidence.ts), and keeps the
 * run's folder (logs, the history of a workflow whose task keeps failing or that failed the offline
 * replay); a pass removes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runChaos, type ChaosReport } from '../../bench/chaos/scenario';
import { createPool } from '../../stores/db';
import { expectSafeChaosRun } from '../support/chaos-report';
import { requireTestEnv } from '../support/env';
import { createScratchDatabase } from '../support/postgres';
import { startGitHubReplicaStory, type GitHubReplicaReport } from '../support/github-replica-story';
import { replicaEvidence } from '../support/replica-evidence';
import { describeReplayFailures, replayRunHistories, type RunReplay } from '../support/run-replay';

/** Replayed offline at the end of the run (run-replay.ts). */
const REPLAYED_TYPES = ['queueWorkflow'];

test('2 APIs, 2 workers, 2 executors, one of each killed, local and GitHub queues: every PR ends once, nothing merged twice, no limit exceeded', async () => {
  const lines: string[] = [];
  const github = await startGitHubReplicaStory();
  let story: Promise<GitHubReplicaReport> | undefined;
  const databaseUrl = await createScratchDatabase('replicas', requireTestEnv('TEST_PG_TEMPLATE'));
  const pool = createPool(databaseUrl, { max: 1 });
  let maxSlots = 0;
  let samples = 0;
  const sampler = setInterval(() => {
    void pool
      .query<{ n: number }>('SELECT count(*)::int AS n FROM run_slots WHERE expires_at > now()')
      .then((r) => {
        samples++;
        maxSlots = Math.max(maxSlots, r.rows[0]!.n);
      })
      .catch(() => undefined);
  }, 100);
  const since = new Date();
  let report: ChaosReport | undefined;
  let gh: GitHubReplicaReport | undefined;
  let replay: RunReplay | undefined;
  let passed = false;
  try {
    report = await runChaos({
      seed: 5,
      prs: 8,
      concurrency: 2,
      batchSize: 2,
      badRate: 0.15,
      conflictRate: 0,
      testSeconds: 0.5,
      replicas: 2,
      env: { RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION: '1', ...github.env },
      faults: { workerKills: 1, apiKills: 1, executorKills: 1, temporalRestarts: 0, postgresRestarts: 0 },
      submitGapMs: 400,
      settleTimeoutMs: 120_000,
      faultsFrom: 'start',
      databaseUrl,
      // npm test's Temporal (the stack's task queue is its own): no fault here restarts it.
      temporalAddress: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
      workflowBundle: requireTestEnv('TEST_WORKFLOW_BUNDLE'),
      // Kept until the test passed: on a failure its logs are the evidence (printed below).
      keep: true,
      log: (m) => lines.push(m),
      onStack: (stack) => {
        story = github.run(stack, {
          prs: 5,
          settleTimeoutMs: 150_000,
          // The three faults above, each followed by its repair.
          faultsOver: () => lines.filter((l) => l.includes('running again after')).length >= 3,
        });
        // The run stops the stack when its own PRs are done: the GitHub story's must be done too.
        const stop = stack.stop.bind(stack);
        stack.stop = async () => {
          await story?.catch(() => undefined);
          await stop();
        };
      },
    });
    if (!story) throw new Error('the stack never started: no GitHub story ran');
    const g = (gh = await story);
    // Every queue run's history replayed offline, before anything else is judged: a nondeterminism
    // shows here whether or not a worker without the queue in its cache met it (run-replay.ts).
    const replayStarted = Date.now();
    replay = await replayRunHistories({
      temporalAddress: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
      workflowBundle: requireTestEnv('TEST_WORKFLOW_BUNDLE'),
      databaseUrl,
      since,
      keepDir: report.dir,
      types: REPLAYED_TYPES,
    });
    const replayLine = `offline replay: ${replay.replayed.length} workflow runs, ${replay.failed.length} failed, ${replay.replayed.reduce((n, r) => n + r.heartbeats, 0)} task heartbeats, ${Date.now() - replayStarted} ms`;
    lines.push(replayLine);
    expect(lines.join('\n')).toContain('starting 2 workers, APIs and executors');
    expectSafeChaosRun(report, {
      title: 'multi-replica run',
      lines,
      faults: ['kill API', 'kill executor', 'kill worker'],
    });
    expect(report.accepted).toBe(8);
    const { prs } = g;
    // PRs went in through both replicas' addresses and through a comment's delivery.
    expect(g.submittedThrough.replica1.length).toBeGreaterThan(0);
    expect(g.submittedThrough.replica2.length).toBeGreaterThan(0);
    // Every PR merged, ended once, merged once on GitHub, and its merge commit is on main once.
    expect(prs.map((n) => g.states[n])).toEqual(prs.map(() => 'merged'));
    expect(prs.map((n) => g.terminalTransitions[n])).toEqual(prs.map(() => 1));
    expect(prs.map((n) => g.mergeCalls[n])).toEqual(prs.map(() => 1));
    expect(prs.map((n) => g.mergedOnGitHub[n])).toEqual(prs.map(() => true));
    expect([...g.mainLog].sort()).toEqual(
      prs.map((n) => `Merge pull request #${n} from acme/feature-${n}`).sort(),
    );
    // The worker died while GitHub merges were under way.
    expect(g.workerKilledAfterMerges).not.toBeNull();
    expect(g.workerKilledAfterMerges!).toBeLessThan(prs.length);
    // The command's delivery acted once although both replicas received it.
    // Applied, or (its update missing the deadline under load, a known issue) answered with the reply
    // and acted on once too; never a lookup that threw (the old "failed: QueueClientError", no reply).
    const applied = /^submitted #/.test(g.commandOutcome.outcome ?? '');
    if (!applied) expect(g.commandOutcome.outcome).toBe('failed: the queue did not answer (replied)');
    if (!applied) console.warn(`the /trunk merge command was not applied: ${g.commandOutcome.outcome}`);
    expect(g.command).toEqual({
      firstStored: true,
      redeliveredStored: false,
      reactionPosts: applied ? 1 : 0,
    });
    // The shared address spread the other deliveries over both replicas.
    expect(g.deliveriesPerReplica.every((n) => n > 0)).toBe(true);
    // The installation's writes: none refused by GitHub's window, the census saw all 4 writers.
    expect(g.writes.accepted).toBeGreaterThan(0);
    expect(g.writes.refused).toBe(0);
    expect(g.writersSeen.max).toBeGreaterThanOrEqual(4);
    expect(g.violations).toEqual([]);
    // The cap held across both workers the whole time (and the sampler saw the run).
    expect(samples).toBeGreaterThan(50);
    expect(maxSlots).toBe(1);
    // Every queue workflow replayed as it ran (the story's two queues, each run of them).
    expect(describeReplayFailures(replay.failed)).toBe('');
    expect(replay.replayed.filter((r) => r.type === 'queueWorkflow').length).toBeGreaterThanOrEqual(2);
    passed = true;
  } finally {
    clearInterval(sampler);
    await pool.end();
    await story?.catch(() => undefined);
    await github.close();
    if (report && passed) fs.rmSync(report.dir, { recursive: true, force: true });
    else {
      // The run's lines, the story's, Temporal's state of what still runs and each process's warnings,
      // so the cause of a failure is in the output; the run's folder stays for the rest.
      const evidence = await replicaEvidence({
        temporalAddress: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
        databaseUrl,
        since,
        logDir: report ? path.join(report.dir, 'logs') : '/nonexistent',
      });
      console.log(
        [
          ...lines,
          ...(gh?.log ?? []),
          JSON.stringify({ ...gh, log: undefined }),
          replay ? `offline replay failures:\n${describeReplayFailures(replay.failed)}` : 'no offline replay',
          evidence,
          `the run's folder (logs, git) is kept: ${report?.dir ?? 'unknown'}`,
        ].join('\n'),
      );
    }
  }
}, 400_000);
