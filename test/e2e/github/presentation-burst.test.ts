/**
 * A burst of 30 PRs on a queue that shows each PR on GitHub (live comment and check run): every PR
 * merges, ends showing "Merged" in both, and the presenter's writes never trip fakehub's rate-based
 * secondary limit. Time is scaled by twenty: GitHub's 80 content-creating requests a minute become 80
 * in three seconds, and the presenter's 40 writes a minute (its default pace) 800 a minute. Merge
 * commits land the PRs (GitHub sees each merged by the push), so the queue itself writes next to
 * nothing and the writes measured are the presenter's.
 */
import { queueWorkflowId, updateQueueUpdate } from '../../../contract';
import { useFakeHub } from '../../support/fakehub';
import { startGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';

const hub = useFakeHub();
let h: GitHubQueueHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SCALE = 20;
const LIMIT = { writes: 80, windowMs: 60_000 / SCALE };
const PRS = 30;
const LIVE = '<!-- railyard:live-comment -->';

test(`the comments and check runs of a ${PRS}-PR burst stay under the secondary limit`, async () => {
  hub().knobs.secondaryLimitRate(LIMIT);
  h = await startGitHubQueueHarness(hub(), {
    presentationWritesPerMinute: 40 * SCALE,
    presentationClientOptions: { notificationIntervalMs: 3_000 / SCALE },
  });
  await h.createQueue(
    {
      batch: true,
      batchingMinSize: 15,
      batchingMaxWaitTimeMinutes: 0.05,
      concurrency: 2,
      mergeMethod: 'merge_commit',
    },
    { requiredStatuses: ['test'], commentsEnabled: true, statusCheckEnabled: true },
  );
  const queue = h.client.workflow.getHandle(queueWorkflowId(h.key));
  await queue.executeUpdate(updateQueueUpdate, { args: [{ config: {}, state: 'paused' }] });
  // Opened with one push and submitted in a burst (every update sent, then every admission awaited):
  // the queue is paused, so how they arrive does not change the burst measured below.
  const opened = await h.openPrs(
    Array.from({ length: PRS }, (_, i) => ({ files: { [`f${i}.txt`]: `${i}\n` }, title: `change ${i}` })),
  );
  const prs = opened.map((p) => p.number);
  await h.submitAll(prs);
  const started = Date.now();
  await queue.executeUpdate(updateQueueUpdate, { args: [{ config: {}, state: 'running' }] });

  for (const n of prs) expect((await h.settled(n, 240_000)).state).toBe('merged');
  const mergedAfter = Date.now() - started;
  const { owner, name } = h.repo;
  const merged = (n: number) => {
    const head = hub().pullRequest(owner, name, n).headSha;
    const run = hub().state.checkRuns.find((r) => r.headSha === head && r.name === 'railyard merge queue');
    const live = hub()
      .comments(owner, name, n)
      .filter((c) => c.body.includes(LIVE));
    return run?.conclusion === 'success' && live.length === 1 && live[0]!.body.includes('Merged into `main`');
  };
  await h.waitFor('every PR showing "Merged"', () => Promise.resolve(prs.every(merged)), 120_000);
  const shownAfter = Date.now() - started;

  const stats = hub().knobs.secondaryLimitStats();
  console.log(
    `${PRS}-PR burst: merged in ${(mergedAfter / 1000).toFixed(1)} s, shown in ${(shownAfter / 1000).toFixed(1)} s; ` +
      `${stats.accepted} REST writes, at most ${stats.peak} in any ${LIMIT.windowMs / 1000} s ` +
      `(limit ${LIMIT.writes}), ${stats.refused} refused`,
  );
  expect(stats.refused).toBe(0);
  expect(stats.peak).toBeLessThanOrEqual(LIMIT.writes);
  expect(h.logs.filter((l) => l.includes('secondary limit'))).toEqual([]);
  expect(h.mainLog()).toHaveLength(PRS);
}, 360_000);
