/**
 * `npm run demo` (after `npm start`): builds a small project in a fresh local repository (the first
 * time local/demo/app, the repository the examples of /v1/docs name), opens six pull requests (one
 * breaks the tests, two conflict with each other), creates a batching queue through the HTTP API,
 * submits every PR, shows progress until each is merged or failed, then prints the target branch's log
 * and the Temporal UI links. Talks only to the public API, like a CI system would.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { existingRepositoryPath, initBareRepository } from '../git/repository-path';
import { apiUrl, DEFAULT_API_PORT } from '../platform/public-url';
import { EXAMPLE_REPO } from '../api/schemas/examples';
import { isTerminal } from '../engine';
import { prStateWord } from '../contract';
import { dataDir, PROJECT_ROOT, readState } from './lib/data-dir';

const API =
  process.env.RAILYARD_DEMO_API ??
  apiUrl({ port: Number(process.env.RAILYARD_API_PORT ?? DEFAULT_API_PORT) });
const UI = 'http://127.0.0.1:8233';

const PROJECT: Record<string, string> = {
  'README.md': '# demo app\n\nstatus: green\n',
  'calc.sh': '#!/usr/bin/env bash\nadd() { echo $(( $1 + $2 )); }\n',
  'test.sh': [
    '#!/usr/bin/env bash',
    '# Runs the checks and writes a JUnit report the way CI tools do.',
    'source ./calc.sh',
    'mkdir -p test-results; failures=0; cases=""',
    'check() { if [ "$2" = "$3" ]; then cases="$cases<testcase classname=\\"calc\\" name=\\"$1\\"/>";',
    '  else failures=$((failures+1)); cases="$cases<testcase classname=\\"calc\\" name=\\"$1\\"><failure message=\\"expected $3, got $2\\"/></testcase>"; fi; }',
    'check adds "$(add 1 2)" 3',
    'for t in tests/*.sh; do [ -e "$t" ] && source "$t"; done',
    'echo "<testsuite name=\\"calc\\" tests=\\"1\\" failures=\\"$failures\\">$cases</testsuite>" > test-results/junit.xml',
    'sleep 1',
    'exit $failures',
    '',
  ].join('\n'),
  '.railyard/merge-queue.json': `${JSON.stringify({ version: 1, command: 'bash test.sh', junitGlobs: ['test-results/*.xml'] }, null, 2)}\n`,
};

const PRS: { n: number; title: string; files: Record<string, string> }[] = [
  {
    n: 1,
    title: 'Add subtraction',
    files: { 'tests/sub.sh': 'sub() { echo $(( $1 - $2 )); }\ncheck subtracts "$(sub 5 2)" 3\n' },
  },
  {
    n: 2,
    title: 'Add multiplication',
    files: { 'tests/mul.sh': 'mul() { echo $(( $1 * $2 )); }\ncheck multiplies "$(mul 3 4)" 12\n' },
  },
  {
    n: 3,
    title: 'Break addition (fails the tests)',
    files: { 'calc.sh': '#!/usr/bin/env bash\nadd() { echo $(( $1 - $2 )); }\n' },
  },
  { n: 4, title: 'Status: yellow', files: { 'README.md': '# demo app\n\nstatus: yellow\n' } },
  { n: 5, title: 'Status: blue (conflicts with #4)', files: { 'README.md': '# demo app\n\nstatus: blue\n' } },
  { n: 6, title: 'Document the test command', files: { 'docs/testing.md': 'Run `bash test.sh`.\n' } },
];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Demo Dev',
      GIT_AUTHOR_EMAIL: 'dev@example.com',
      GIT_COMMITTER_NAME: 'Demo Dev',
      GIT_COMMITTER_EMAIL: 'dev@example.com',
    },
  }).trim();
}

function write(dir: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
}

async function call<T>(endpoint: string, body: unknown, key: string): Promise<T> {
  const res = await fetch(`${API}/v1/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': key },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${endpoint} answered ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}

async function main(): Promise<void> {
  const key = process.env.RAILYARD_DEMO_KEY ?? readState('dev-api-key');
  if (!key) throw new Error('No API key: run `npm start` first (it creates .data/dev-api-key).');
  try {
    await fetch(`${API}/healthz`);
  } catch {
    throw new Error(`railyard does not answer at ${API}; run \`npm start\` in another terminal first.`);
  }
  const gitRoot = process.env.RAILYARD_GIT_ROOT
    ? path.resolve(PROJECT_ROOT, process.env.RAILYARD_GIT_ROOT)
    : path.join(dataDir(), 'git');
  // The first demo builds local/demo/app, the repository the API docs' examples name (/v1/docs), so
  // "Try it out" there reads this queue and these PRs; a later demo builds a repository of its own.
  const repo =
    (await existingRepositoryPath(gitRoot, EXAMPLE_REPO)) === null
      ? { ...EXAMPLE_REPO }
      : {
          ...EXAMPLE_REPO,
          name: `${EXAMPLE_REPO.name}-${new Date()
            .toISOString()
            .replace(/[^0-9]/g, '')
            .slice(0, 14)}`,
        };
  const bare = await initBareRepository(gitRoot, repo, { defaultBranch: 'main' });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-demo-'));
  git(work, 'init', '--quiet', '-b', 'main');
  write(work, PROJECT);
  git(work, 'add', '-A');
  git(work, 'commit', '--quiet', '-m', 'Initial project');
  git(work, 'push', '--quiet', bare, 'main');
  for (const pr of PRS) {
    git(work, 'checkout', '--quiet', '-B', `pr-${pr.n}`, 'main');
    write(work, pr.files);
    git(work, 'add', '-A');
    git(work, 'commit', '--quiet', '-m', pr.title);
    git(work, 'push', '--quiet', '--force', bare, `HEAD:refs/pull/${pr.n}/head`);
  }
  console.log(
    `Repository ${repo.host}/${repo.owner}/${repo.name}: main + ${PRS.length} pull requests (#3 breaks the tests, #4 and #5 conflict).`,
  );

  const queue = { repo, targetBranch: 'main' };
  await call('createQueue', { ...queue, mode: 'single', concurrency: 2 }, key);
  await call(
    'updateQueue',
    { ...queue, batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 1, mergeMethod: 'squash' },
    key,
  );
  console.log('Queue created: single mode, concurrency 2, batches of 3, squash merges.');
  for (const pr of PRS) await call('submitPullRequest', { ...queue, pr: { number: String(pr.n) } }, key);
  console.log('Submitted all pull requests through the API. Progress:');

  interface Record {
    state: string;
    reasonText: string;
    testRuns: { testRunId: string; logUrl?: string }[];
    decidedByTestRun: string | null;
    estimatedTimeToMerge?: { remainingSeconds: number | null; text: string } | null;
  }
  const seen = new Map<number, string>();
  const records = new Map<number, Record>();
  /** The first estimate each PR got once queued, and when, to compare with when it merged. */
  const estimates = new Map<number, { at: number; text: string }>();
  const mergedAt = new Map<number, number>();
  const started = Date.now();
  while (seen.size < PRS.length || [...seen.values()].some((s) => !isTerminal(s))) {
    for (const pr of PRS) {
      const r = await call<Record>(
        'getSubmittedPullRequest',
        { ...queue, pr: { number: pr.n }, includeEstimatedTimeToMerge: !estimates.has(pr.n) },
        key,
      ).catch(() => null);
      if (r?.estimatedTimeToMerge && !estimates.has(pr.n))
        estimates.set(pr.n, { at: Date.now(), text: r.estimatedTimeToMerge.text });
      if (r && seen.get(pr.n) !== r.state) {
        seen.set(pr.n, r.state);
        records.set(pr.n, r);
        console.log(
          `  ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s  #${pr.n} ${prStateWord(r.state).padEnd(16)} ${pr.title}`,
        );
        if (r.state === 'merged') mergedAt.set(pr.n, Date.now());
        // A finished PR says why, in the record's own sentence.
        if (isTerminal(r.state)) console.log(`          ${r.reasonText}`);
      }
    }
    if (Date.now() - started > 10 * 60_000) throw new Error('The demo did not finish within 10 minutes.');
    await new Promise((r) => setTimeout(r, 500));
  }

  console.log(`\nDone in ${((Date.now() - started) / 1000).toFixed(0)} s:`);
  for (const pr of PRS) {
    const r = records.get(pr.n)!;
    console.log(`  #${pr.n} ${r.reasonText}`);
    // A run that never started (a conflict) has no logUrl: its sentence above names the conflict.
    const log = r.testRuns.find((t) => t.testRunId === r.decidedByTestRun)?.logUrl;
    if (r.state === 'failed' && log)
      console.log(`     log: curl -H "x-api-token: $(cat .data/dev-api-key)" ${log}`);
    const estimate = estimates.get(pr.n);
    const merged = mergedAt.get(pr.n);
    if (estimate && merged !== undefined)
      console.log(
        `     first estimate once queued: ${estimate.text} It took ${((merged - estimate.at) / 1000).toFixed(0)} s.`,
      );
  }
  console.log('\nmain now reads:');
  console.log(git(bare, 'log', '--format=%h %s', 'main').replace(/^/gm, '  '));
  console.log('\nIn the Temporal UI:');
  console.log(
    `  queues and PRs of this repository: ${UI}/namespaces/default/workflows?query=${encodeURIComponent(`RailyardRepository="${repo.host}/${repo.owner}/${repo.name}"`)}`,
  );
  console.log(
    `  all railyard queues:               ${UI}/namespaces/default/workflows?query=${encodeURIComponent('WorkflowType="queueWorkflow"')}`,
  );
  fs.rmSync(work, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
