/**
 * A `/trunk merge` whose queue workflow does not answer the lookup in time is answered from the read
 * projection (issue 27, github/store/projected-queue.ts). The lookup's query needs a worker: on a loaded
 * host with replicas it waited behind the queue's workflow task (or a dead worker's sticky queue) past
 * its deadline, and the command failed before reaching the queue. Here no worker answers at all
 * (stopped), with the queue's view stored as the API stores it after a change: the lookup still
 * answers, so what follows it does too. A commenter without access gets the no-access reply (the old
 * lookup: "could not reach the merge queue"); a queue with commands off stays silent. Neither reaches
 * the queue's update, so nothing is submitted once a worker is back. Real Temporal, PostgreSQL and
 * worker, fakehub as GitHub, the API's receiver with the command handler (15 s lookup deadline).
 */
import { createQueueViewStore } from '../../../events/store/queue-views';
import { useFakeHub } from '../../support/fakehub';
import { startGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';

const hub = useFakeHub();
let h: GitHubQueueHarness;
const WRITER = 'alice';
const OUTSIDER = 'mallory';

beforeAll(async () => {
  h = await startGitHubQueueHarness(hub(), { ci: () => null, logLevel: 'ERROR' });
  await h.createQueue({ concurrency: 1 }, { requiredStatuses: ['test'], commandsEnabled: true });
  hub().setPermission(h.repo.owner, h.repo.name, WRITER, 'write');
}, 120_000);

afterAll(async () => {
  await h?.close();
});

/** Comments `body` on PR `pr` as `author`; the outcome the handler recorded and the App's replies. */
async function command(pr: number, author: string, body: string) {
  const posted = hub().comment(h.repo.owner, h.repo.name, pr, { author, body });
  await hub().webhooks.idle();
  await h.receiver.idle();
  const delivery = hub().webhooks.deliveries.find(
    (d) => d.event === 'issue_comment' && (d.payload.comment as { id: number }).id === posted.id,
  );
  const { rows } = await h.pool.query<{ outcome: string | null }>(
    'SELECT outcome FROM github_webhook_deliveries WHERE delivery_id = $1',
    [delivery?.guid],
  );
  const replies = hub()
    .comments(h.repo.owner, h.repo.name, pr)
    .filter((c) => c.author.login === `${hub().app.slug}[bot]`)
    .map((c) => c.body);
  return { outcome: rows[0]?.outcome, replies };
}

test('with no worker answering, the queue is still found: the no-access reply, commands off silent', async () => {
  const views = createQueueViewStore(h.pool);
  const pr = await h.openPr({ 'projected.txt': '1\n' }, 'queue found in the projection');
  // The view the API stores after each change it makes (ADR 0016: read your writes).
  expect(await views.put(h.key, await h.queue())).toBe(true);
  await h.stopWorker(0);

  // Someone without access: answered from the projection and GitHub alone.
  const outsider = await command(pr.number, OUTSIDER, '/trunk merge');
  expect(outsider.outcome).toBe(`refused: ${OUTSIDER} has no access (replied)`);
  expect(outsider.replies).toEqual([
    `@${OUTSIDER} cannot command the merge queue: that needs write access to ${h.repo.owner}/${h.repo.name}, and GitHub reports no access.`,
  ]);

  // Commands turned off (the view stored after that change): silence, still without a worker.
  const current = await views.get(h.key);
  const off = { ...current!.snapshot, revision: current!.revision + 1 };
  off.settings = { ...off.settings, commandsEnabled: false };
  expect(await views.put(h.key, off)).toBe(true);
  const silenced = await command(pr.number, WRITER, '/trunk merge');
  expect(silenced.outcome).toBe('commands are off for the queue of main');
  // The old lookup's failure was logged as this; the new one never needed the worker.
  expect(h.logs.join('\n')).not.toContain('could not find the queue');

  // Once a worker is back, the PR is not in the queue: nothing was submitted.
  await h.startWorker();
  expect(await h.pr(pr.number)).toBeNull();
}, 120_000);
