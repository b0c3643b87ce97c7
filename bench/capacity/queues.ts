/**
 * The merge-queue load: `queues` repositories on the local git host, each with one queue created
 * through the API, of which the first `active` get `prsPerQueue` PRs submitted through the API while
 * the rest stay idle. Every PR adds a file of its own; a share of them (`failEvery`) also adds a file
 * under `bad/`, which the queue's test command fails on, so the queue ejects it and tests the rest again.
 *
 * Rules: PRs are written with one git fast-import per repository (scripts/lib/git-world.ts), never a
 * clone-commit-push each; a PR counts as merged when its record says so, and its submit-to-merge time
 * runs from the submit call to the record's `merged` transition.
 */
import { createGitWorld } from '../../scripts/lib/git-world';
import { isTerminal } from '../../engine';
import type { Client } from './http';

export interface QueueLoadOptions {
  queues: number;
  active: number;
  prsPerQueue: number;
  /** Every n-th PR overall fails its tests (0 = none). */
  failEvery: number;
  /** Test runs in flight per queue. */
  concurrency: number;
  /** Gap between two submissions to the same queue. */
  submitGapMs: number;
  /** Give up on PRs still open after this long. */
  timeoutMs: number;
  log: (line: string) => void;
}

export interface QueueRef {
  repo: { host: string; owner: string; name: string };
  targetBranch: string;
}

export interface QueueLoadResult {
  submitted: number;
  merged: number;
  failed: number;
  /** PRs that ended otherwise, or never ended before the timeout. */
  other: number;
  /** Submit call to the record's merged transition, per merged PR. */
  submitToMergeMs: number[];
  /** getSubmittedPullRequest calls made while waiting (they count in the API's CPU). */
  polls: number;
  /** Of those, calls that failed even after their retries (asked again later). */
  pollFailures: number;
  seconds: number;
}

const OWNER = 'capacity';
export const queueRef = (i: number): QueueRef => ({
  repo: { host: 'local', owner: OWNER, name: `repo-${i}` },
  targetBranch: 'main',
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Passes unless the tree holds a `bad/` folder. */
const TEST_COMMAND = 'if [ -d bad ]; then exit 1; fi';

/** Runs `f` over `items` with at most `limit` at once. */
export async function pool<T>(items: readonly T[], limit: number, f: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await f(items[next++]!);
    }),
  );
}

/** Creates every repository and its queue; the active ones get their PRs opened (not yet submitted). */
export async function createQueues(client: Client, gitRoot: string, opts: QueueLoadOptions): Promise<void> {
  const indices = [...Array(opts.queues).keys()];
  let done = 0;
  await pool(indices, 4, async (i) => {
    const ref = queueRef(i);
    const world = await createGitWorld(gitRoot, ref.repo, {
      '.railyard/merge-queue.json': JSON.stringify({ version: 1, command: TEST_COMMAND }),
      'README.md': `capacity ${i}\n`,
    });
    if (i < opts.active)
      world.openPrs(
        [...Array(opts.prsPerQueue).keys()].map((j) => {
          const n = j + 1;
          const bad = opts.failEvery > 0 && (i * opts.prsPerQueue + n) % opts.failEvery === 0;
          return {
            number: n,
            title: `PR ${n}`,
            files: { [`prs/pr-${n}.txt`]: `${n}\n`, ...(bad ? { [`bad/pr-${n}.txt`]: 'x\n' } : {}) },
          };
        }),
      );
    await client.post('/v1/createQueue', { ...ref, mode: 'single', concurrency: opts.concurrency });
    if (++done % 50 === 0 || done === opts.queues) opts.log(`queues created: ${done}/${opts.queues}`);
  });
}

interface PrRecord {
  state: string;
  timeline?: { timestamp: string; state: string }[];
}

/** Submits every active queue's PRs and waits for each to end; prints progress every 10 s. */
export async function runQueueLoad(client: Client, opts: QueueLoadOptions): Promise<QueueLoadResult> {
  const started = Date.now();
  const result: QueueLoadResult = {
    submitted: 0,
    merged: 0,
    failed: 0,
    other: 0,
    submitToMergeMs: [],
    polls: 0,
    pollFailures: 0,
    seconds: 0,
  };
  const submittedAt = new Map<string, number>();
  const open = new Set<string>();
  const keyOf = (i: number, n: number) => `${i}#${n}`;
  let lastReport = started;
  const report = () =>
    opts.log(
      `merge load: ${result.submitted} submitted, ${result.merged} merged, ${result.failed} failed, ${open.size} open (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );

  const submitting = pool([...Array(opts.active).keys()], 16, async (i) => {
    for (let n = 1; n <= opts.prsPerQueue; n++) {
      submittedAt.set(keyOf(i, n), Date.now());
      await client.post('/v1/submitPullRequest', { ...queueRef(i), pr: { number: n } });
      // Polled only once accepted: before that its record may not exist yet (a 404).
      open.add(keyOf(i, n));
      result.submitted++;
      await sleep(opts.submitGapMs);
    }
  });
  // Settled either way, so a refused submit ends the run with its error instead of going unhandled.
  const submitState = { done: false, refused: null as Error | null };
  const submitted = submitting
    .catch((err: unknown) => {
      submitState.refused = err instanceof Error ? err : new Error(String(err));
    })
    .finally(() => {
      submitState.done = true;
    });

  const deadline = started + opts.timeoutMs;
  while ((!submitState.done || open.size > 0) && submitState.refused === null) {
    if (Date.now() > deadline) {
      opts.log(`merge load: ${open.size} PRs still open after ${opts.timeoutMs / 1000} s; counted as other`);
      result.other += open.size;
      break;
    }
    await sleep(2_000);
    await pool([...open], 8, async (key) => {
      const [i, n] = key.split('#').map(Number) as [number, number];
      result.polls++;
      // A read the API could not answer even after its retries is asked again at the next round: a
      // starved machine slows the run down, it does not end it.
      const r = await client
        .post<PrRecord>('/v1/getSubmittedPullRequest', {
          ...queueRef(i),
          pr: { number: n },
          includeTimeline: true,
        })
        .catch((err: unknown) => {
          result.pollFailures++;
          opts.log(
            `merge load: #${n} of queue ${i} not read (${err instanceof Error ? err.message : String(err)})`,
          );
          return null;
        });
      if (r === null) return;
      if (!isTerminal(r.state)) return;
      open.delete(key);
      if (r.state === 'merged') {
        result.merged++;
        const at = r.timeline?.find((t) => t.state === 'merged')?.timestamp;
        if (at) result.submitToMergeMs.push(Date.parse(at) - submittedAt.get(key)!);
      } else if (r.state === 'failed') result.failed++;
      else result.other++;
    });
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      report();
    }
  }
  await submitted;
  if (submitState.refused !== null) throw submitState.refused;
  report();
  result.seconds = (Date.now() - started) / 1000;
  return result;
}
