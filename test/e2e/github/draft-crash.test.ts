/**
 * Draft-PR testing mode when the worker is killed mid-run (the real worker process, SIGKILLed): the
 * worker has asked GitHub (fakehub) to open the run's draft PR and dies before the answer. The run's
 * build is retried by the next worker, which finds the draft PR already open and reuses it: one draft
 * PR per test branch, CI runs on it, the PR merges, and the draft PR is closed and its branch deleted.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { draftsOf, startDraftPrCi, type DraftPrCi } from '../../support/draft-pr-ci';
import { useFakeHub } from '../../support/fakehub';
import { startGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';
import { killWorkerProcess, startWorkerProcess } from '../../support/worker-process';

const hub = useFakeHub();
let h: GitHubQueueHarness | undefined;
let worker: ChildProcess | undefined;
let ci: DraftPrCi | undefined;

afterEach(async () => {
  if (worker) await killWorkerProcess(worker);
  worker = undefined;
  await ci?.stop();
  ci = undefined;
  await h?.close();
  h = undefined;
});

/** Holds fakehub's answer to the next draft PR opened from a test branch until released. */
function holdDraftPrAnswer() {
  const state = hub().state;
  const original = state.openPullRequest.bind(state);
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    state.openPullRequest = async (repository, input) => {
      const pr = await original(repository, input);
      if (input.head.startsWith('trunk-merge/')) {
        state.openPullRequest = original;
        resolve();
        await new Promise<void>((r) => (release = r));
      }
      return pr;
    };
  });
  return { held, release: () => release(), restore: () => (state.openPullRequest = original) };
}

test('a worker killed while GitHub opens the draft PR: the next worker reuses it, the PR merges, the draft PR is closed', async () => {
  // Push-triggered CI is silent on test branches: only the draft PR's CI can pass the run.
  h = await startGitHubQueueHarness(hub(), {
    workers: 0,
    ci: (_sha, branch) => (branch.startsWith('trunk-merge/') ? null : 'success'),
  });
  const g = h;
  ci = startDraftPrCi(hub(), g);
  const workRoot = path.join(g.dataRoot, 'child');
  fs.mkdirSync(workRoot, { recursive: true });
  const log = path.join(g.dataRoot, 'child-worker.log');
  const hold = holdDraftPrAnswer();
  try {
    worker = startWorkerProcess(hub(), g, workRoot, log);
    await g.createQueue(
      { concurrency: 1, mergeMethod: 'merge_commit' },
      { requiredStatuses: ['test'], createPrsForTestingBranches: true },
    );
    const pr = await g.openPr({ 'a.txt': 'a\n' }, 'add a');
    await g.submit(pr.number);
    await hold.held;
    // The draft PR exists on GitHub; the worker that asked for it never hears so.
    expect(draftsOf(hub(), g, pr.number).map((p) => p.state)).toEqual(['open']);
    await killWorkerProcess(worker);
    hold.release();
    worker = startWorkerProcess(hub(), g, workRoot, log);

    const done = await g.waitFor(
      'the PR to merge',
      async () => {
        const r = await g.pr(pr.number).catch(() => null);
        return r?.state === 'merged' ? r : undefined;
      },
      150_000,
    );
    expect(done.timeline.filter((t) => t.to === 'merged')).toHaveLength(1);
    expect(g.mainLog()).toHaveLength(1);
    await g.waitFor('the draft PR closed and its branch deleted', () =>
      Promise.resolve(
        draftsOf(hub(), g, pr.number).every((p) => p.state === 'closed') &&
          g.branches('trunk-merge/').length === 0,
      ),
    );
    // One draft PR for the run, never a second one from the retried build. (GitHub marks it merged:
    // main reached its head when the tested commit landed.)
    const drafts = draftsOf(hub(), g, pr.number);
    expect(drafts.map((p) => ({ state: p.state, draft: p.draft }))).toEqual([
      { state: 'closed', draft: true },
    ]);
    expect(hub().requests.filter((r) => r.operationId === 'pulls/create' && r.status === 201)).toHaveLength(
      1,
    );
  } catch (err) {
    const warnings = fs
      .readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => /WARN|ERROR/.test(l));
    process.stderr.write(`child worker warnings:\n${warnings.join('\n').slice(-4000)}\n`);
    throw err;
  } finally {
    hold.restore();
  }
}, 240_000);
