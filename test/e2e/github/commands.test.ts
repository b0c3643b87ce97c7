/**
 * Stories of commands in PR comments on GitHub (fakehub): a person comments, GitHub delivers the
 * `issue_comment` webhook to the API, and the real queue (workers, `github` git host, fake CI) acts.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { commandUpdateId } from '../../../github/inbound/pr-command-handler';
import { queueWorkflowId } from '../../../contract';
import { signAppJwt, type IssueComment } from '../../support/fakehub';
import {
  useGitHubQueueHarness,
  type CiVerdict,
  type GitHubQueueHarness,
} from '../../support/github-queue-harness';

const { hub, newQueue } = useGitHubQueueHarness();
let h: GitHubQueueHarness | undefined;

const QUEUE = { requiredStatuses: ['test'], commandsEnabled: true };

async function start(
  ci?: (sha: string, branch: string, files: string[]) => CiVerdict,
  runner: { commentsEnabled?: boolean } = {},
) {
  const g = await newQueue(ci ? { ci } : {});
  await g.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { ...QUEUE, ...runner });
  hub().setPermission(g.repo.owner, g.repo.name, 'alice', 'write');
  hub().setPermission(g.repo.owner, g.repo.name, 'bob', 'read');
  return g;
}

const say = (g: GitHubQueueHarness, pr: number, author: string, body: string): IssueComment =>
  hub().comment(g.repo.owner, g.repo.name, pr, { author, body });

const botComments = (g: GitHubQueueHarness, pr: number) =>
  hub()
    .comments(g.repo.owner, g.repo.name, pr)
    .filter((c) => c.author.login === `${hub().app.slug}[bot]`)
    .map((c) => c.body);

const reactionsOf = (comment: IssueComment) => comment.reactions.map((r) => `${r.user.login} ${r.content}`);

/** The arguments of the queue's submit updates made for the comment (decoded from its history). */
async function submittedWith(g: GitHubQueueHarness, comment: IssueComment): Promise<unknown[]> {
  const updateId = commandUpdateId(comment.id, { kind: 'merge', priority: null, noBatch: false });
  const history = await g.client.workflow.getHandle(queueWorkflowId(g.key)).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    if (request?.meta?.updateId !== updateId) return [];
    return [defaultPayloadConverter.fromPayload(request.input!.args!.payloads![0]!)];
  });
}

/** Deliveries of the comment's `issue_comment.created` GitHub made (first attempt and redeliveries). */
const deliveriesOf = (comment: IssueComment) =>
  hub().webhooks.deliveries.filter(
    (d) =>
      d.event === 'issue_comment' &&
      d.action === 'created' &&
      (d.payload.comment as { id: number }).id === comment.id,
  );

test('a write collaborator comments /trunk merge and the PR merges', async () => {
  h = await start();
  const g = h;
  const pr = await g.openPr({ 'feature.txt': 'new\n' }, 'add a feature');
  const comment = say(g, pr.number, 'alice', 'Reviewed, thanks!\n\n/trunk merge --priority=high --no-batch');
  await g.waitFor('the +1 reaction', () =>
    Promise.resolve(reactionsOf(comment).includes(`${hub().app.slug}[bot] +1`)),
  );
  // Bound to the head the comment saw.
  expect(await submittedWith(g, comment)).toEqual([
    { pr: pr.number, priority: 10, noBatch: true, expectedHeadSha: pr.headSha },
  ]);
  expect((await g.settled(pr.number)).state).toBe('merged');
  expect(g.mainLog()).toEqual([`add a feature (#${pr.number})`]);
  expect(reactionsOf(comment)).toEqual([`${hub().app.slug}[bot] +1`]);
  // The only word from railyard is the closing comment of the pushed squash, no refusal.
  expect(botComments(g, pr.number).join('\n')).not.toMatch(/not applied|cannot command|no merge queue/);
}, 60_000);

test("a read-only user's command is refused with a reply, and nothing is queued", async () => {
  h = await start();
  const g = h;
  const pr = await g.openPr({ 'feature.txt': 'new\n' }, 'not yet');
  const comment = say(g, pr.number, 'bob', '/trunk merge');
  const replies = await g.waitFor('the reply', () => {
    const found = botComments(g, pr.number);
    return Promise.resolve(found.length > 0 ? found : undefined);
  });
  expect(replies).toEqual([
    `@bob cannot command the merge queue: that needs write access to ${g.repo.owner}/${g.repo.name}, and GitHub reports read access.`,
  ]);
  await g.receiver.idle();
  expect(reactionsOf(comment)).toEqual([]);
  expect(await g.pr(pr.number)).toBeNull();
  expect((await g.queue()).inQueue).toBe(0);
}, 60_000);

test('a redelivered issue_comment submits once', async () => {
  // CI never reports on test branches: the PR stays in the queue while the deliveries repeat.
  h = await start((_sha, branch) => (branch.startsWith('trunk-merge/') ? null : 'success'));
  const g = h;
  const pr = await g.openPr({ 'feature.txt': 'new\n' }, 'once');
  // Once the CI has reported on the PR's head nothing else happens on GitHub until the comment.
  await g.waitFor('the PR head checked', () =>
    Promise.resolve(
      hub().state.checkRunsOf(hub().state.requireRepository(g.repo.owner, g.repo.name), pr.headSha).length >
        0,
    ),
  );
  await hub().webhooks.idle();
  // GitHub sends this comment's webhook twice (the same delivery), then it is redelivered on request.
  hub().webhooks.duplicate(1);
  const comment = say(g, pr.number, 'alice', '/trunk merge');
  await hub().webhooks.idle();
  await g.receiver.idle();
  const first = await g.waitFor('the PR in the queue', async () => (await g.pr(pr.number)) ?? undefined);
  const response = await fetch(`${hub().url}/app/hook/deliveries/${deliveriesOf(comment)[0]!.id}/attempts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${signAppJwt(hub().app)}` },
  });
  expect(response.status).toBe(202);
  await hub().webhooks.idle();
  await g.receiver.idle();

  const deliveries = deliveriesOf(comment);
  expect(deliveries.map((d) => [d.duplicate, d.redelivery, d.statusCode])).toEqual([
    [false, false, 200],
    [true, false, 200],
    [false, true, 200],
  ]);
  expect(new Set(deliveries.map((d) => d.guid)).size).toBe(1);
  const { rows } = await g.pool.query<{ outcome: string }>(
    'SELECT outcome FROM github_webhook_deliveries WHERE delivery_id = $1',
    [deliveries[0]!.guid],
  );
  expect(rows).toEqual([{ outcome: `submitted #${pr.number} to main` }]);
  // One submission: the same record, one admission in its timeline, one reaction.
  const now = await g.pr(pr.number);
  expect(now?.id).toBe(first.id);
  expect(now?.timeline.filter((t) => t.from === null)).toHaveLength(1);
  expect(reactionsOf(comment)).toEqual([`${hub().app.slug}[bot] +1`]);
  expect((await g.queue()).inQueue).toBe(1);
  expect(await submittedWith(g, comment)).toEqual([
    { pr: pr.number, priority: null, noBatch: false, expectedHeadSha: pr.headSha },
  ]);
}, 60_000);

test('/trunk cancel while testing cancels it', async () => {
  h = await start((_sha, branch) => (branch.startsWith('trunk-merge/') ? null : 'success'));
  const g = h;
  const pr = await g.openPr({ 'feature.txt': 'new\n' }, 'to be cancelled');
  say(g, pr.number, 'alice', '/trunk merge');
  await g.waitFor('the PR testing', async () => (await g.pr(pr.number))?.state === 'testing');
  await g.waitFor('its test branch', () => Promise.resolve(g.branches('trunk-merge/').length === 1));

  const cancel = say(g, pr.number, 'alice', 'Not now.\n/trunk cancel');
  const done = await g.settled(pr.number);
  expect(done).toMatchObject({ state: 'cancelled', reason: 'USER_REQUESTED' });
  await g.waitFor('the +1 reaction', () => Promise.resolve(reactionsOf(cancel).length === 1));
  expect(reactionsOf(cancel)).toEqual([`${hub().app.slug}[bot] +1`]);
  await g.waitFor('the test branch deleted', () => Promise.resolve(g.branches('trunk-merge/').length === 0));
  expect(g.mainLog()).toEqual([]);
  expect(hub().pullRequest(g.repo.owner, g.repo.name, pr.number).state).toBe('open');
}, 60_000);

/** Waits until the clock shows a later whole second than `than` (GitHub's times have whole seconds). */
async function nextSecond(than: Date): Promise<void> {
  const second = Math.floor(than.getTime() / 1000);
  while (Math.floor(Date.now() / 1000) <= second) await new Promise((r) => setTimeout(r, 50));
}

test('a push after /trunk merge is not queued: a new command is needed, and it queues the new head', async () => {
  h = await start();
  const g = h;
  const pr = await g.openPr({ 'feature.txt': 'reviewed\n' }, 'bound');
  await hub().webhooks.idle();
  await g.receiver.idle();
  // The maintainer comments on the reviewed head; before railyard hears of it, the author pushes.
  hub().webhooks.hold();
  const comment = say(g, pr.number, 'alice', '/trunk merge');
  await nextSecond(comment.createdAt);
  const pushed = await g.pushToPr(pr.number, { 'feature.txt': 'changed after the review\n' });
  hub().webhooks.release();
  await hub().webhooks.idle();
  await g.receiver.idle();

  const { rows } = await g.pool.query<{ outcome: string }>(
    'SELECT outcome FROM github_webhook_deliveries WHERE delivery_id = $1',
    [deliveriesOf(comment)[0]!.guid],
  );
  expect(rows).toEqual([{ outcome: 'refused: the pull request changed after the comment (replied)' }]);
  expect(await submittedWith(g, comment)).toEqual([]);
  expect(await g.pr(pr.number)).toBeNull();
  expect(reactionsOf(comment)).toEqual([]);
  expect(botComments(g, pr.number)).toEqual([
    `\`/trunk merge\` was not applied: the pull request changed after that comment (a push, an edit or another comment), and railyard queues only the commit a command was given for. Its head is now ${pushed}; comment \`/trunk merge\` again to queue it.`,
  ]);

  // A new command, on the new head, is bound to it and merges it.
  const again = say(g, pr.number, 'alice', '/trunk merge');
  expect((await g.settled(pr.number)).state).toBe('merged');
  expect(await submittedWith(g, again)).toEqual([
    { pr: pr.number, priority: null, noBatch: false, expectedHeadSha: pushed },
  ]);
}, 60_000);

test("a live-comment marker planted in the author's comment is not railyard's comment", async () => {
  h = await start(undefined, { commentsEnabled: true });
  const g = h;
  const pr = await g.openPr({ 'feature.txt': 'new\n' }, 'planted');
  const planted = say(g, pr.number, 'mallory', 'nothing to see <!-- railyard:live-comment -->');
  await g.submit(pr.number);
  expect((await g.settled(pr.number)).state).toBe('merged');
  // The author's comment is untouched; railyard wrote its own live comment.
  const mine = hub()
    .comments(g.repo.owner, g.repo.name, pr.number)
    .find((c) => c.id === planted.id);
  expect(mine?.body).toBe('nothing to see <!-- railyard:live-comment -->');
  // The live comment is written by the presenter after the record moves (asynchronously): wait for it
  // to show the merge, then check it is the only one.
  const live = () => botComments(g, pr.number).filter((b) => b.startsWith('<!-- railyard:live-comment -->'));
  await g.waitFor('the live comment showing the merge', () =>
    Promise.resolve(live().some((b) => b.includes('Merged into `main`'))),
  );
  expect(live()).toHaveLength(1);
}, 60_000);
