/**
 * A `/trunk merge` whose queue does not answer (docs/known-issues.md, issue 27): with no worker polling
 * the deployment's task queue, finding the queue (its getQueue query) runs out of the queue client's
 * deadline and throws QueueClientError, as it did on a loaded stack with replicas. The comment still
 * gets the reply the handler promises ("could not reach the merge queue"), and nothing is submitted.
 * Real Temporal, PostgreSQL and worker, fakehub as GitHub, the API's receiver with the command handler.
 */
import { useFakeHub } from '../../support/fakehub';
import { startGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';

const hub = useFakeHub();
let h: GitHubQueueHarness;
const WRITER = 'alice';

beforeAll(async () => {
  h = await startGitHubQueueHarness(hub(), { ci: () => null, logLevel: 'ERROR' });
  await h.createQueue({ concurrency: 1 }, { requiredStatuses: ['test'], commandsEnabled: true });
  hub().setPermission(h.repo.owner, h.repo.name, WRITER, 'write');
}, 120_000);

afterAll(async () => {
  await h?.close();
});

test('a queue that does not answer while it is found: the reply is posted, nothing is submitted', async () => {
  const pr = await h.openPr({ 'unreachable.txt': '1\n' }, 'queue unreachable');
  // No worker answers the queue's query now: it runs out of the lookup's deadline (15 s), and the
  // projection holds no view of this queue (no transition yet) to answer instead.
  await h.stopWorker(0);
  const posted = hub().comment(h.repo.owner, h.repo.name, pr.number, {
    author: WRITER,
    body: '/trunk merge',
  });
  await hub().webhooks.idle();
  await h.receiver.idle();
  const delivery = hub().webhooks.deliveries.find(
    (d) => d.event === 'issue_comment' && (d.payload.comment as { id: number }).id === posted.id,
  );
  const { rows } = await h.pool.query<{ outcome: string | null }>(
    'SELECT outcome FROM github_webhook_deliveries WHERE delivery_id = $1',
    [delivery?.guid],
  );
  expect(rows[0]?.outcome).toBe('failed: the queue did not answer (replied)');
  const replies = hub()
    .comments(h.repo.owner, h.repo.name, pr.number)
    .filter((c) => c.author.login === `${hub().app.slug}[bot]`)
    .map((c) => c.body);
  expect(replies).toEqual([
    'railyard could not reach the merge queue of `main` just now, so `/trunk merge` was not applied; comment it again in a minute.',
  ]);
  // Once a worker is back, the PR is not in the queue: the failed command submitted nothing.
  await h.startWorker();
  expect(await h.pr(pr.number)).toBeNull();
}, 120_000);
