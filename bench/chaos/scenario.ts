/**
 * One seeded chaos run, end to end: start the stack, create a batching queue with concurrency through
 * the HTTP API, open and submit the planned PRs while the fault plan kills and restarts components,
 * wait for every accepted PR to settle, then judge the result (checks.ts).
 *
 * The driver plays the world around railyard: a supervisor that starts a crashed API or worker again
 * (counted as a crash), CI jobs that retry a submit until it is answered, and authors who withdraw a PR
 * that no longer merges before it was admitted (a conflicting PR waits for its author otherwise).
 * The same seed gives the same PRs, arrival times and fault plan; timings still vary with the machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPool } from '../../stores/db';
import { createApiKeyStore } from '../../stores/api-keys';
import { createGitWorld } from '../../scripts/lib/git-world';
import { startStack, type Stack } from '../../scripts/lib/stack';
import { isTerminal } from '../../engine';
import { exponential, seededRng } from '../simulate/rng';
import { checkSafety, countOutcomes, type OutcomeCounts, type PrOutcome, type SafetyReport } from './checks';
import { planFaults, runFaults, type FaultCounts, type FaultHooks, type InjectedFault } from './faults';
import { createApi, type Api, type QueueRef } from './http';
import { longestOutageMs, recoveryMs, startProbe } from './probe';
import { initialFiles, planPrs, type PlannedPr, type WorkloadOptions } from './workload';

export interface ChaosOptions extends WorkloadOptions {
  seed: number;
  concurrency: number;
  batchSize: number;
  faults: FaultCounts;
  /** Mean time between two submissions. */
  submitGapMs: number;
  /** How long the PRs get to settle after the last fault. */
  settleTimeoutMs: number;
  /** APIs (behind one address), workers and executors the stack runs; default 1 of each. */
  replicas?: number;
  /** Further settings of the stack's processes (e.g. RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION). */
  env?: Record<string, string>;
  /** Use this database instead of a cluster of the run's own (no PostgreSQL restarts then). */
  databaseUrl?: string;
  /** Use this Temporal (host:port) instead of a dev server of the run's own (no Temporal restarts then). */
  temporalAddress?: string;
  /** A prebuilt workflow bundle for the worker (RAILYARD_WORKFLOW_BUNDLE) instead of one at each start. */
  workflowBundle?: string;
  /**
   * When the fault plan's clock starts: with the first submission (default), or once every PR has been
   * answered, so that faults hit testing and merging but not admission.
   */
  faultsFrom?: 'start' | 'accepted';
  /** Keep the run's folder (logs, git, Temporal's file) instead of removing it. */
  keep?: boolean;
  log: (message: string) => void;
  /** Hears of the stack once it runs (the CLI stops it on Ctrl-C). */
  onStack?: (stack: Stack) => void;
}

export interface ChaosReport {
  safety: SafetyReport;
  outcomes: OutcomeCounts;
  faults: (InjectedFault & { recoveryMs: number | null })[];
  /** From the last repaired fault to every accepted PR settled. */
  drainMs: number;
  totalMs: number;
  longestOutageMs: number;
  accepted: number;
  notAccepted: number[];
  withdrawn: number[];
  crashes: { worker: number; api: number; executor: number };
  dir: string;
  /** When PRs are left open: their records, the queue as the API shows it, the worker's warnings, the executor's log. */
  diagnostics: string[];
}

/** What an operator would look at first when PRs stay open after the faults. */
async function diagnose(api: Api, open: PrOutcome[], logDir: string): Promise<string[]> {
  if (open.length === 0) return [];
  const lines = open.map((o) => `#${o.pr.number} (${o.pr.kind}): ${JSON.stringify(o.record)}`);
  const queue = await api
    .post('/v1/getQueue', QUEUE, 15_000)
    .catch((err: Error) => ({ status: 0, body: err.message }));
  lines.push(`getQueue → ${queue.status}: ${JSON.stringify(queue.body)}`);
  const workerLog = path.join(logDir, 'worker.log');
  if (fs.existsSync(workerLog)) {
    const warnings = fs
      .readFileSync(workerLog, 'utf8')
      .split('\n')
      .filter((l) => /WARN|ERROR|rror:/.test(l) && !l.includes('Activity not found on completion'));
    lines.push(`worker.log, last warnings and errors (${warnings.length} in all):`, ...warnings.slice(-40));
  }
  // The executor runs the tests (worker/executor.ts): a run that never ends shows there first.
  const executorLog = path.join(logDir, 'executor.log');
  if (fs.existsSync(executorLog)) {
    const tail = fs.readFileSync(executorLog, 'utf8').split('\n').slice(-40);
    lines.push('executor.log, last lines:', ...tail);
  }
  return lines;
}

const QUEUE: QueueRef = { repo: { host: 'local', owner: 'chaos', name: 'app' }, targetBranch: 'main' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Crashes of every replica of one kind. */
const sumExits = (services: readonly { unexpectedExits: number }[]) =>
  services.reduce((n, s) => n + s.unexpectedExits, 0);

async function issueKey(databaseUrl: string): Promise<string> {
  const pool = createPool(databaseUrl, { max: 2 });
  try {
    return (await createApiKeyStore(pool).create('chaos', 'chaos run')).key;
  } finally {
    await pool.end();
  }
}

async function createQueue(api: Api, opts: ChaosOptions): Promise<void> {
  const settings = {
    ...QUEUE,
    concurrency: opts.concurrency,
    batch: true,
    batchingMinSize: opts.batchSize,
    batchingMaxWaitTimeMinutes: 0,
    mergeMethod: 'merge_commit',
  };
  for (const [route, body] of [
    ['/v1/createQueue', { ...QUEUE, mode: 'single' }],
    ['/v1/updateQueue', settings],
  ] as const) {
    const res = await api.post(route, body);
    if (res.status !== 200) throw new Error(`${route} answered ${res.status}: ${res.body}`);
  }
}

/** Submits every PR at its seeded arrival time; conflicting pairs arrive together. */
async function submitAll(api: Api, plan: PlannedPr[], gaps: number[], until: number, done: Set<number>) {
  const refused: number[] = [];
  const start = Date.now();
  let at = 0;
  await Promise.all(
    plan.map(async (pr, i) => {
      const withPrevious = pr.pair !== undefined && plan[i - 1]?.pair === pr.pair;
      if (!withPrevious) at += gaps[i]!;
      await sleep(start + at - Date.now());
      const answer = await api.submitUntilAccepted(pr.number, until);
      if (answer === 'accepted') done.add(pr.number);
      else refused.push(pr.number);
    }),
  );
  return refused;
}

/** Reads records until every accepted PR is terminal or time runs out; withdraws stuck conflicts. */
async function settle(
  api: Api,
  plan: PlannedPr[],
  accepted: Set<number>,
  deadline: number,
  log: (m: string) => void,
) {
  const records = new Map<number, PrOutcome['record']>();
  const withdrawn: number[] = [];
  let lastReport = 0;
  for (;;) {
    for (const pr of plan) {
      const known = records.get(pr.number);
      if (known && isTerminal(known.state)) continue;
      const r = await api.pullRequest(pr.number);
      if (r === 'unknown') continue;
      records.set(pr.number, r);
      if (r) accepted.add(pr.number);
      if (r?.state === 'not_ready' && r.readiness.gitHubMergeability === 'not_mergeable') {
        const res = await api.post('/v1/cancelPullRequest', { ...QUEUE, pr: { number: pr.number } });
        if (res.status === 200) withdrawn.push(pr.number);
      }
    }
    const open = [...accepted].filter((n) => !isTerminal(records.get(n)?.state ?? ''));
    if (open.length === 0 || Date.now() > deadline) return { records, withdrawn };
    if (Date.now() - lastReport > 5_000) {
      lastReport = Date.now();
      log(`settling: ${accepted.size - open.length}/${accepted.size} PRs terminal`);
    }
    await sleep(1_000);
  }
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const { log } = opts;
  if (opts.temporalAddress && opts.faults.temporalRestarts > 0)
    throw new Error("temporalRestarts needs a Temporal of the run's own: leave temporalAddress out");
  if (opts.databaseUrl && opts.faults.postgresRestarts > 0)
    throw new Error("postgresRestarts needs a PostgreSQL of the run's own: leave databaseUrl out");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `railyard-chaos-${opts.seed}-`));
  const ledger = path.join(dir, 'ledger');
  fs.mkdirSync(ledger);
  const rng = seededRng(opts.seed);
  const plan = planPrs(rng, opts);
  const gaps = plan.map(() => exponential(rng, opts.submitGapMs));
  const windowMs = opts.submitGapMs * plan.length + 15_000;
  const faultPlan = planFaults(rng, opts.faults, windowMs);
  let stack: Stack | null = null;
  // Cleared however the run ends, so a failed run does not keep the process alive.
  const timers: NodeJS.Timeout[] = [];
  try {
    // The test command writes the ledger on the host: the executor's sandbox lets every run write it.
    fs.chmodSync(ledger, 0o777);
    stack = await startStack({
      dir,
      databaseUrl: opts.databaseUrl,
      ...(opts.temporalAddress ? { temporalAddress: opts.temporalAddress } : {}),
      ...(opts.replicas ? { replicas: opts.replicas } : {}),
      env: {
        RAILYARD_SANDBOX_WRITABLE_PATHS: ledger,
        ...(opts.workflowBundle ? { RAILYARD_WORKFLOW_BUNDLE: opts.workflowBundle } : {}),
        ...opts.env,
      },
      log,
    });
    opts.onStack?.(stack);
    const world = await createGitWorld(stack.gitRoot, QUEUE.repo, initialFiles(plan, ledger, opts));
    world.openPrs(plan);
    const key = await issueKey(stack.databaseUrl);
    const api = createApi(stack.apiUrl, key, QUEUE);
    await createQueue(api, opts);
    log(
      `queue created; ${plan.length} PRs (${
        plan
          .filter((p) => p.kind !== 'good')
          .map((p) => `#${p.number} ${p.kind}`)
          .join(', ') || 'all good'
      })`,
    );

    const t0 = Date.now();
    const probe = startProbe(api, QUEUE);
    const accepted = new Set<number>();
    let repairing = false;
    const s = stack;
    const watchdog: NodeJS.Timeout = setInterval(() => {
      if (repairing) return;
      for (const service of [...s.workers, ...s.apis, ...s.executors])
        if (!service.running())
          void service.start().catch((err: Error) => log(`${service.name}: ${err.message}`));
    }, 1_000);
    const progress = setInterval(
      () => log(`t=${((Date.now() - t0) / 1000).toFixed(0)} s: ${accepted.size}/${plan.length} accepted`),
      10_000,
    );
    timers.push(watchdog, progress, probe.timer);
    const hooks: FaultHooks = {
      onFault(f, phase, ms) {
        repairing = phase === 'injected';
        log(
          phase === 'injected'
            ? `t=${(ms / 1000).toFixed(1)} s: ${f.kind}`
            : `${f.kind}: running again after ${ms} ms`,
        );
      },
      answering: (since) => probe.answering(since, 120_000),
    };
    const submitting = submitAll(api, plan, gaps, t0 + windowMs + 120_000, accepted);
    const [notAccepted, injected] =
      opts.faultsFrom === 'accepted'
        ? [await submitting, await runFaults(faultPlan, stack, Date.now(), hooks)]
        : await Promise.all([submitting, runFaults(faultPlan, stack, t0, hooks)]);
    clearInterval(progress);
    const lastRepair = Math.max(t0, ...injected.map((f) => f.repairedAt));
    const { records, withdrawn } = await settle(api, plan, accepted, lastRepair + opts.settleTimeoutMs, log);
    const settledAt = Date.now();
    clearInterval(watchdog);
    const samples = await probe.stop();

    const outcomes: PrOutcome[] = plan.map((pr) => ({
      pr,
      accepted: accepted.has(pr.number),
      record: records.get(pr.number) ?? null,
    }));
    const safety = checkSafety(world, ledger, outcomes, { dir: stack.logDir, secrets: [key] });
    const stuck = outcomes.filter((o) => safety.notTerminal.includes(o.pr.number));
    return {
      safety,
      diagnostics: await diagnose(api, stuck, stack.logDir),
      outcomes: countOutcomes(world, outcomes),
      faults: injected.map((f) => ({ ...f, recoveryMs: recoveryMs(samples, f.injectedAt) })),
      drainMs: settledAt - lastRepair,
      totalMs: settledAt - t0,
      longestOutageMs: longestOutageMs(samples),
      accepted: accepted.size,
      notAccepted,
      withdrawn,
      crashes: {
        worker: sumExits(stack.workers),
        api: sumExits(stack.apis),
        executor: sumExits(stack.executors),
      },
      dir,
    };
  } finally {
    for (const timer of timers) clearInterval(timer);
    await stack?.stop();
    if (!opts.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}
