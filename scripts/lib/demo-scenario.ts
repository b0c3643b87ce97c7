/**
 * The demo's scenario, played by `npm run demo` and by the dashboard's browser test
 * (test/browser/dashboard.test.ts), so the test walks the world the demo leaves.
 *
 * It builds the project of demo-project.ts in a fresh local repository (the first time local/demo/app,
 * the repository the examples of /v1/docs name; a later time one of its own), opens its six pull
 * requests, creates a batching queue through the HTTP API, submits every PR, reports progress until
 * each is merged or failed, then sums up: each PR's sentence, the log of a failed run, how the first
 * estimate compared, main's log and the Temporal UI links.
 *
 * Rules: it talks to railyard only through the public API, as a CI system would (the one other thing
 * it touches is the local git host's root, where it "pushes" the repository); everything it depends
 * on (the API and its key, the git root, how git runs, the clock, where lines go) comes in through
 * DemoDeps, so a test can run it against its own stack. It resolves once every PR is terminal, and
 * rejects after ten minutes (by the clock it is given).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { existingRepositoryPath, initBareRepository } from '../../git/repository-path';
import { EXAMPLE_REPO } from '../../api/schemas/examples';
import { isTerminal } from '../../engine';
import { prStateWord, type RepositoryKey } from '../../contract';
import { DEMO_PROJECT, DEMO_PRS } from './demo-project';

/** Runs `git <args>` in `cwd` with `env` and returns its trimmed output (throws on failure). */
export type DemoGit = (cwd: string, args: readonly string[], env: NodeJS.ProcessEnv) => string;

export interface DemoClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export interface DemoDeps {
  /** The API's origin (no `/v1`) and an API key of the organisation that will own the repository. */
  api: { url: string; key: string };
  /** The local git host's root, where the demo's bare repository is created. */
  gitRoot: string;
  /** The Temporal Web UI the summary links to. */
  temporalUi: string;
  /** Where progress and the summary go, one line per call. */
  say(line: string): void;
  /** Default: git run by execFileSync from this process. */
  git?: DemoGit;
  /** Default: Date.now and setTimeout. */
  clock?: DemoClock;
  /** Awaited once the queue exists, before any PR is submitted (the browser test opens its page here). */
  afterQueueCreated?(): Promise<void>;
}

/** How each PR ended, as the API's record says. */
export interface DemoOutcome {
  repo: RepositoryKey;
  /** `logUrl`: the log of the run that decided the PR; none when that run never started (a conflict). */
  prs: { n: number; title: string; state: string; reasonText: string; logUrl: string | undefined }[];
}

interface PrRecord {
  state: string;
  reasonText: string;
  testRuns: { testRunId: string; logUrl?: string }[];
  decidedByTestRun: string | null;
  estimatedTimeToMerge?: { remainingSeconds: number | null; text: string } | null;
}

const AUTHOR = {
  GIT_AUTHOR_NAME: 'Demo Dev',
  GIT_AUTHOR_EMAIL: 'dev@example.com',
  GIT_COMMITTER_NAME: 'Demo Dev',
  GIT_COMMITTER_EMAIL: 'dev@example.com',
};
const GIVE_UP_MS = 10 * 60_000;
const POLL_MS = 500;

const execGit: DemoGit = (cwd, args, env) =>
  execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', env }).trim();

const systemClock: DemoClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

function write(dir: string, files: Readonly<Record<string, string>>): void {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
}

export async function playDemoScenario(deps: DemoDeps): Promise<DemoOutcome> {
  const { api, gitRoot, say } = deps;
  const clock = deps.clock ?? systemClock;
  const run = deps.git ?? execGit;
  const env = { ...process.env, ...AUTHOR };
  const git = (cwd: string, ...args: string[]) => run(cwd, args, env);
  async function call<T>(endpoint: string, body: unknown): Promise<T> {
    const res = await fetch(`${api.url}/v1/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': api.key },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${endpoint} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  }

  // The first demo builds local/demo/app, the repository the API docs' examples name (/v1/docs), so
  // "Try it out" there reads this queue and these PRs; a later demo builds a repository of its own.
  const repo: RepositoryKey =
    (await existingRepositoryPath(gitRoot, EXAMPLE_REPO)) === null
      ? { ...EXAMPLE_REPO }
      : {
          ...EXAMPLE_REPO,
          name: `${EXAMPLE_REPO.name}-${new Date(clock.now())
            .toISOString()
            .replace(/[^0-9]/g, '')
            .slice(0, 14)}`,
        };
  const bare = await initBareRepository(gitRoot, repo, { defaultBranch: 'main' });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-demo-'));
  try {
    git(work, 'init', '--quiet', '-b', 'main');
    write(work, DEMO_PROJECT);
    git(work, 'add', '-A');
    git(work, 'commit', '--quiet', '-m', 'Initial project');
    git(work, 'push', '--quiet', bare, 'main');
    for (const pr of DEMO_PRS) {
      git(work, 'checkout', '--quiet', '-B', `pr-${pr.n}`, 'main');
      write(work, pr.files);
      git(work, 'add', '-A');
      git(work, 'commit', '--quiet', '-m', pr.title);
      git(work, 'push', '--quiet', '--force', bare, `HEAD:refs/pull/${pr.n}/head`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  say(
    `Repository ${repo.host}/${repo.owner}/${repo.name}: main + ${DEMO_PRS.length} pull requests (#3 breaks the tests, #4 and #5 conflict).`,
  );

  const queue = { repo, targetBranch: 'main' };
  await call('createQueue', { ...queue, mode: 'single', concurrency: 2 });
  await call('updateQueue', {
    ...queue,
    batch: true,
    batchingMinSize: 3,
    batchingMaxWaitTimeMinutes: 1,
    mergeMethod: 'squash',
  });
  say('Queue created: single mode, concurrency 2, batches of 3, squash merges.');
  await deps.afterQueueCreated?.();
  for (const pr of DEMO_PRS) await call('submitPullRequest', { ...queue, pr: { number: String(pr.n) } });
  say('Submitted all pull requests through the API. Progress:');

  const seen = new Map<number, string>();
  const records = new Map<number, PrRecord>();
  /** The first estimate each PR got once queued, and when, to compare with when it merged. */
  const estimates = new Map<number, { at: number; text: string }>();
  const mergedAt = new Map<number, number>();
  const started = clock.now();
  const seconds = (ms: number) => (ms / 1000).toFixed(0);
  while (seen.size < DEMO_PRS.length || [...seen.values()].some((s) => !isTerminal(s))) {
    for (const pr of DEMO_PRS) {
      const r = await call<PrRecord>('getSubmittedPullRequest', {
        ...queue,
        pr: { number: pr.n },
        includeEstimatedTimeToMerge: !estimates.has(pr.n),
      }).catch(() => null);
      if (r?.estimatedTimeToMerge && !estimates.has(pr.n))
        estimates.set(pr.n, { at: clock.now(), text: r.estimatedTimeToMerge.text });
      if (r && seen.get(pr.n) !== r.state) {
        seen.set(pr.n, r.state);
        records.set(pr.n, r);
        say(
          `  ${((clock.now() - started) / 1000).toFixed(1).padStart(5)}s  #${pr.n} ${prStateWord(r.state).padEnd(16)} ${pr.title}`,
        );
        if (r.state === 'merged') mergedAt.set(pr.n, clock.now());
        // A finished PR says why, in the record's own sentence.
        if (isTerminal(r.state)) say(`          ${r.reasonText}`);
      }
    }
    if (clock.now() - started > GIVE_UP_MS) throw new Error('The demo did not finish within 10 minutes.');
    await clock.sleep(POLL_MS);
  }

  say(`\nDone in ${seconds(clock.now() - started)} s:`);
  const outcome: DemoOutcome = { repo, prs: [] };
  for (const pr of DEMO_PRS) {
    const r = records.get(pr.n)!;
    say(`  #${pr.n} ${r.reasonText}`);
    // A run that never started (a conflict) has no logUrl: its sentence above names the conflict.
    const log = r.testRuns.find((t) => t.testRunId === r.decidedByTestRun)?.logUrl;
    if (r.state === 'failed' && log) say(`     log: curl -H "x-api-token: $(cat .data/dev-api-key)" ${log}`);
    const estimate = estimates.get(pr.n);
    const merged = mergedAt.get(pr.n);
    if (estimate && merged !== undefined)
      say(`     first estimate once queued: ${estimate.text} It took ${seconds(merged - estimate.at)} s.`);
    outcome.prs.push({ n: pr.n, title: pr.title, state: r.state, reasonText: r.reasonText, logUrl: log });
  }
  say('\nmain now reads:');
  say(git(bare, 'log', '--format=%h %s', 'main').replace(/^/gm, '  '));
  say('\nIn the Temporal UI:');
  say(
    `  queues and PRs of this repository: ${deps.temporalUi}/namespaces/default/workflows?query=${encodeURIComponent(`RailyardRepository="${repo.host}/${repo.owner}/${repo.name}"`)}`,
  );
  say(
    `  all railyard queues:               ${deps.temporalUi}/namespaces/default/workflows?query=${encodeURIComponent('WorkflowType="queueWorkflow"')}`,
  );
  return outcome;
}
