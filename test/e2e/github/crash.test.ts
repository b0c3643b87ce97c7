/**
 * Crash safety of landing on GitHub (fakehub), with the real worker process (worker/main.ts, the
 * `github` git host configured by RAILYARD_GITHUB_* and pointed at the fake) SIGKILLed while it lands:
 * main has moved on GitHub but the worker never heard back. fakehub answers a push (landing mode
 * `push`) or a `PUT /pulls/{n}/merge` (mode `api`) only after its post-receive step, which the test
 * holds for main's updates (a test-side wrapper of the fake's state, no knob); the worker is killed
 * there, then started again. Twice. After that every PR is merged exactly once (each merge commit once
 * on main, one terminal state each) and main has only ever pointed at commits whose tree CI tested.
 *
 * The webhook route, the fake CI and the database link of the installation come from the harness
 * (run with no worker of its own); queries of the records are answered by the child worker.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isTerminal } from '../../../engine';
import type { PullRequestRecord } from '../../../contract';
import { useGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';
import { killWorkerProcess as kill, startWorkerProcess } from '../../support/worker-process';

// No worker in this process: the child worker process serves the deployment's task queue.
const { hub, newQueue } = useGitHubQueueHarness({ workers: 0 });
let h: GitHubQueueHarness | undefined;
let worker: ChildProcess | undefined;

afterEach(async () => {
  if (worker) await kill(worker);
  worker = undefined;
  h = undefined;
});

/**
 * Holds fakehub's post-receive step of main's updates in `repository` (and so the answer to the push
 * or the API merge that made them) while armed: `held()` resolves when one is waiting, `release()`
 * lets it go.
 */
function holdMainUpdates(repository: string) {
  const state = hub().state;
  const original = state.afterPush.bind(state);
  let armed = false;
  let waiting: { release: () => void } | null = null;
  let onHeld: (() => void) | null = null;
  state.afterPush = async (repo, updates, pusher) => {
    if (armed && repo.name === repository && updates.some((u) => u.ref === 'refs/heads/main')) {
      armed = false;
      await new Promise<void>((release) => {
        waiting = { release };
        onHeld?.();
      });
    }
    return original(repo, updates, pusher);
  };
  return {
    /**
     * The next update of main, held; refused after `withinMs` (the catch below then says why). A hang
     * guard: a fresh-clone run on a slow host at load 9-10 once waited past 120 s for a landing that
     * came in time in the run before.
     */
    held(withinMs = 200_000): Promise<void> {
      armed = true;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no update of main reached GitHub within ${withinMs / 1000} s`)),
          withinMs,
        );
        onHeld = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
    release() {
      const w = waiting;
      waiting = null;
      w?.release();
    },
    restore() {
      armed = false;
      this.release();
      state.afterPush = original;
    },
  };
}

describe.each<['push' | 'api', (n: number) => string]>([
  ['push', (n) => `Merge pull request #${n}`],
  ['api', (n) => `Merge pull request #${n} from acme/feature-${n}`],
])('landing mode %s', (landingMode, subject) => {
  test('SIGKILL of the worker while main moves on GitHub merges nothing twice and main only holds tested trees', async () => {
    // The commits CI passed on test branches. CI holds its verdicts until every run is built: a held
    // landing keeps the worker's mirror locked, and a stacked build waiting behind it would run only
    // after the PR below it merged, which the github host refuses to build (see the report).
    const passed: string[] = [];
    const waiting: string[] = [];
    let ciOpen = false;
    h = await newQueue({
      ci: (sha, branch) => {
        if (!branch.startsWith('trunk-merge/')) return 'success';
        passed.push(sha);
        if (ciOpen) return 'success';
        waiting.push(sha);
        return null;
      },
    });
    const g = h;
    const treeOf = (sha: string) => g.bareGit('rev-parse', `${sha}^{tree}`);
    const initial = g.mainTip();
    const workRoot = path.join(g.dataRoot, `child-${g.repo.name}`);
    fs.mkdirSync(workRoot, { recursive: true });
    const log = path.join(g.dataRoot, `child-worker-${g.repo.name}.log`);
    const hold = holdMainUpdates(g.repo.name);
    const record = (n: number) => g.pr(n).catch(() => null); // fails while the worker is down
    try {
      worker = startWorkerProcess(hub(), g, workRoot, log);
      await g.createQueue(
        { concurrency: 4, mergeMethod: 'merge_commit' },
        { requiredStatuses: ['test'], landingMode },
      );
      const prs = [1, 2, 3, 4];
      for (const n of prs) await g.openPr({ [`f${n}.txt`]: `${n}\n` }, `change ${n}`);
      for (const n of prs) await g.submit(n);
      await g.waitFor('the four test branches', () => Promise.resolve(waiting.length === 4));

      // Crash 1: the first landing moved main; the worker dies before GitHub answers it.
      let held = hold.held();
      ciOpen = true;
      for (const sha of waiting)
        hub().setCheckRun(g.repo.owner, g.repo.name, sha, {
          name: 'test',
          status: 'completed',
          conclusion: 'success',
        });
      await held;
      const firstMove = g.mainTip();
      await kill(worker);
      hold.release();
      worker = startWorkerProcess(hub(), g, workRoot, log);

      // Crash 2: the next landing, by the restarted worker.
      held = hold.held();
      await held;
      expect(g.mainTip()).not.toBe(firstMove);
      await kill(worker);
      hold.release();
      worker = startWorkerProcess(hub(), g, workRoot, log);
      hold.restore();

      const finals: PullRequestRecord[] = [];
      for (const n of prs)
        finals.push(
          await g.waitFor(
            `PR #${n} to finish`,
            async () => {
              const r = await record(n);
              return r && isTerminal(r.state) ? r : undefined;
            },
            150_000,
          ),
        );
      // Exactly one terminal state each, and every PR merged.
      for (const r of finals) expect(r.timeline.filter((t) => isTerminal(t.to))).toHaveLength(1);
      expect(finals.map((r) => r.state)).toEqual(['merged', 'merged', 'merged', 'merged']);
      // Nothing merged twice: one merge commit per PR on main's first-parent line, nothing else.
      expect([...g.mainLog()].sort()).toEqual(prs.map(subject));
      for (const n of prs) expect(hub().pullRequest(g.repo.owner, g.repo.name, n).merged).toBe(true);
      // main only ever held tested trees: every commit of its first-parent line, and every tip GitHub
      // announced (each update of main is a push event), which lie on that line.
      const testedTrees = new Set(passed.map(treeOf));
      expect(g.mainTrees().filter((tree) => !testedTrees.has(tree))).toEqual([]);
      await hub().webhooks.idle();
      const tips = hub()
        .webhooks.deliveries.filter(
          (d) =>
            d.event === 'push' &&
            d.payload.ref === 'refs/heads/main' &&
            (d.payload.repository as { name?: string }).name === g.repo.name &&
            d.payload.after !== initial,
        )
        .map((d) => String(d.payload.after));
      expect(tips.length).toBeGreaterThanOrEqual(2);
      const line = new Set(g.bareGit('rev-list', '--first-parent', 'main').split('\n'));
      expect(tips.filter((sha) => !line.has(sha))).toEqual([]);
      expect(tips.filter((sha) => !testedTrees.has(treeOf(sha)))).toEqual([]);
      // The event log holds one terminal transition per submission despite the kills. The queue appends
      // transitions after the PR's record shows them (its event-log outbox), so wait until each
      // submission's terminal transition is there, then check there is exactly one.
      const terminalCounts = async () =>
        (
          await g.pool.query<{ n: string }>(
            `SELECT count(*) FILTER (WHERE to_state IN ('merged', 'failed', 'cancelled')) AS n
               FROM pr_transitions WHERE organisation_id = $1 GROUP BY submission_id`,
            [g.key.organisationId],
          )
        ).rows.map((r) => Number(r.n));
      await g
        .waitFor('every terminal transition in the event log', async () => {
          const counts = await terminalCounts();
          return counts.length === 4 && counts.every((n) => n >= 1);
        })
        .catch(() => undefined);
      expect(await terminalCounts()).toEqual([1, 1, 1, 1]);
    } catch (err) {
      // The child's own account and where each PR stands, for whoever reads the failure.
      const warnings = fs
        .readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => /WARN|ERROR/.test(l));
      const states = await Promise.all([1, 2, 3, 4].map(async (n) => `#${n} ${(await record(n))?.state}`));
      process.stderr.write(
        `child worker warnings:\n${warnings.join('\n').slice(-4000)}\nPRs: ${states.join(', ')}\n`,
      );
      throw err;
    } finally {
      hold.restore();
    }
  }, 400_000);
});
