/**
 * Commands in PR comments, from a stored delivery to the real queue workflow (real Temporal,
 * PostgreSQL and worker, fakehub as GitHub, the API's receiver with the command handler):
 * - a command acted on again under another delivery id (as when the reconciliation acts on a row the
 *   API also acted on) is applied once: one accepted update in the queue's history, and a
 *   `/trunk merge` replayed after a `/trunk cancel` does not put the PR back; a redelivery under the
 *   same delivery id is not acted on at all;
 * - a read-only user is refused with a reply and nothing is submitted; further refusals on the PR
 *   are not replied to (the reply budget);
 * - an edited or deleted comment never runs a command, even one that now reads `/trunk merge`;
 * - a queue with commandsEnabled false stays silent; a branch without a queue gets a reply;
 * - a submission bound to a head (`expectedHeadSha`, what `/trunk merge` sends) is admitted only at
 *   that head, whether the PR is read afresh or already queued at another one.
 */
import { randomUUID } from 'node:crypto';
import { commandUpdateId } from '../../../github/inbound/pr-command-handler';
import {
  getAdmissionsQuery,
  queueWorkflowId,
  submitUpdate,
  updateQueueUpdate,
  type AdmissionState,
} from '../../../contract';
import { signAppJwt, useFakeHub, type IssueComment } from '../../support/fakehub';
import { startGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';

const hub = useFakeHub();
let h: GitHubQueueHarness;
const WRITER = 'alice';
const READER = 'bob';

beforeAll(async () => {
  // CI never reports: submitted PRs stay in the queue (testing) for the length of a test.
  h = await startGitHubQueueHarness(hub(), { ci: () => null, logLevel: 'ERROR' });
  await h.createQueue({ concurrency: 1 }, { requiredStatuses: ['test'], commandsEnabled: true });
  hub().setPermission(h.repo.owner, h.repo.name, WRITER, 'write');
  hub().setPermission(h.repo.owner, h.repo.name, READER, 'read');
}, 120_000);

afterAll(async () => {
  await h?.close();
});

/** Comments as `author`, waits until the API has acted on the delivery, and returns its outcome. */
async function comment(
  pr: number,
  author: string,
  body: string,
): Promise<{ comment: IssueComment; outcome: string }> {
  const posted = hub().comment(h.repo.owner, h.repo.name, pr, { author, body });
  return { comment: posted, outcome: await outcomeOf(posted.id, 'created') };
}

/** The delivery fakehub sent for the comment's `action`, once railyard has recorded what it did. */
async function deliveryOf(commentId: number, action: string) {
  await hub().webhooks.idle();
  await h.receiver.idle();
  const delivery = hub().webhooks.deliveries.find(
    (d) =>
      d.event === 'issue_comment' &&
      d.action === action &&
      (d.payload.comment as { id: number }).id === commentId,
  );
  if (!delivery) throw new Error(`no issue_comment.${action} delivery of comment ${commentId}`);
  return delivery;
}

async function outcomeOf(commentId: number, action: string): Promise<string> {
  const { guid } = await deliveryOf(commentId, action);
  return stored(guid);
}

async function stored(deliveryId: string): Promise<string> {
  const { rows } = await h.pool.query<{ outcome: string | null }>(
    'SELECT outcome FROM github_webhook_deliveries WHERE delivery_id = $1',
    [deliveryId],
  );
  return rows[0]?.outcome ?? '(not stored)';
}

/** Delivers the stored bytes again under a new delivery id (not a GitHub redelivery: a new row). */
async function actAgain(commentId: number): Promise<string> {
  const { body, payload } = await deliveryOf(commentId, 'created');
  const deliveryId = randomUUID();
  expect(await h.receiver.receive({ deliveryId, event: 'issue_comment', body, payload })).toBe('stored');
  await h.receiver.idle();
  return stored(deliveryId);
}

/** Updates with `updateId` the queue's history accepted. */
async function acceptedUpdates(updateId: string): Promise<number> {
  const history = await h.client.workflow.getHandle(queueWorkflowId(h.key)).fetchHistory();
  return (history.events ?? []).filter(
    (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId === updateId,
  ).length;
}

const bot = () => `${hub().app.slug}[bot]`;
const botReplies = (pr: number) =>
  hub()
    .comments(h.repo.owner, h.repo.name, pr)
    .filter((c) => c.author.login === bot())
    .map((c) => c.body);

test('a command acted on under two delivery ids is applied once; a replayed merge does not undo a cancel', async () => {
  const pr = await h.openPr({ 'once.txt': '1\n' }, 'applied once');
  const merge = await comment(pr.number, WRITER, '/trunk merge');
  expect(merge.outcome).toBe(`submitted #${pr.number} to main`);
  const first = await h.pr(pr.number);
  expect(first?.state).toMatch(/pending|testing/);

  // The same comment acted on again under another delivery id: the queue answers the known update id.
  expect(await actAgain(merge.comment.id)).toBe(`submitted #${pr.number} to main`);
  const updateId = commandUpdateId(merge.comment.id, { kind: 'merge', priority: null, noBatch: false });
  expect(await acceptedUpdates(updateId)).toBe(1);
  expect((await h.pr(pr.number))?.id).toBe(first?.id);

  // GitHub's own redelivery (same delivery id) is stored once and not acted on again.
  const { id: attempt } = await deliveryOf(merge.comment.id, 'created');
  const redelivered = await fetch(`${hub().url}/app/hook/deliveries/${attempt}/attempts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${signAppJwt(hub().app)}` },
  });
  expect(redelivered.status).toBe(202);
  await hub().webhooks.idle();
  await h.receiver.idle();
  expect(await acceptedUpdates(updateId)).toBe(1);

  // Cancelled by a later comment; the merge comment acted on once more does not resubmit.
  const cancel = await comment(pr.number, WRITER, '/trunk cancel');
  expect(cancel.outcome).toBe(`cancelled #${pr.number} in main`);
  expect((await h.settled(pr.number)).state).toBe('cancelled');
  // The PR changed after the merge comment (the cancel comment), so the replay is refused as stale.
  expect(await actAgain(merge.comment.id)).toBe(
    'refused: the pull request changed after the comment (replied)',
  );
  const after = await h.pr(pr.number);
  expect(after).toMatchObject({ state: 'cancelled', id: first?.id });
  expect(await acceptedUpdates(updateId)).toBe(1);
  expect(merge.comment.reactions.map((r) => `${r.user.login} ${r.content}`)).toEqual([`${bot()} +1`]);
  expect(cancel.comment.reactions.map((r) => r.content)).toEqual(['+1']);
  expect(botReplies(pr.number)).toEqual([
    expect.stringMatching(/^`\/trunk merge` was not applied: the pull request changed after that comment/),
  ]);
}, 60_000);

test('a read-only user is refused with a reply; nothing is submitted', async () => {
  const pr = await h.openPr({ 'reader.txt': '1\n' }, 'reader');
  const refused = await comment(pr.number, READER, '/trunk merge');
  expect(refused.outcome).toBe('refused: bob has read access (replied)');
  expect(botReplies(pr.number)).toEqual([
    `@${READER} cannot command the merge queue: that needs write access to ${h.repo.owner}/${h.repo.name}, and GitHub reports read access.`,
  ]);
  expect(refused.comment.reactions).toEqual([]);
  expect(await h.pr(pr.number)).toBeNull();
  // Someone unknown to the repository is refused the same way, without a second reply on the PR
  // (issue 24: commenters cannot make the App post without bound).
  const stranger = await comment(pr.number, 'mallory', '/trunk merge');
  expect(stranger.outcome).toBe('refused: mallory has no access (reply withheld)');
  expect(await h.pr(pr.number)).toBeNull();
  for (let i = 0; i < 3; i++)
    expect((await comment(pr.number, READER, '/trunk merge')).outcome).toBe(
      'refused: bob has read access (reply withheld)',
    );
  expect(botReplies(pr.number)).toHaveLength(1);
}, 60_000);

test('an edited or deleted comment never runs a command', async () => {
  const pr = await h.openPr({ 'edited.txt': '1\n' }, 'edited');
  const plain = await comment(pr.number, WRITER, 'will merge later');
  expect(plain.outcome).toBe('not acted on');
  hub().editComment(h.repo.owner, h.repo.name, plain.comment.id, '/trunk merge');
  expect(await outcomeOf(plain.comment.id, 'edited')).toBe('not acted on');
  hub().deleteComment(h.repo.owner, h.repo.name, plain.comment.id);
  expect(await outcomeOf(plain.comment.id, 'deleted')).toBe('not acted on');
  expect(await h.pr(pr.number)).toBeNull();
  expect(botReplies(pr.number)).toEqual([]);
}, 60_000);

test('invalid commands get a reply with what is accepted; commands in quotes and code do nothing', async () => {
  const pr = await h.openPr({ 'invalid.txt': '1\n' }, 'invalid');
  expect((await comment(pr.number, WRITER, '/trunk merge --force')).outcome).toBe(
    'invalid command (replied)',
  );
  expect(botReplies(pr.number)).toHaveLength(1);
  expect(botReplies(pr.number)[0]).toMatch(
    /^`\/trunk merge --force` was not applied: `--force` is not a flag of `merge`; railyard accepts /,
  );
  expect((await comment(pr.number, WRITER, '> /trunk merge\n\n```\n/trunk merge\n```')).outcome).toBe(
    'not acted on',
  );
  expect(await h.pr(pr.number)).toBeNull();
}, 60_000);

test('a PR whose base has no queue gets a reply; a queue with commands off stays silent', async () => {
  // A PR onto another branch of the same repository: no queue there.
  await h.clone.git('fetch', '-q', 'origin');
  await h.clone.branch('release', 'origin/main');
  await h.clone.push(await h.clone.commit({ 'release.txt': 'r\n' }), 'release');
  await h.clone.branch('onto-release', 'release');
  await h.clone.push(await h.clone.commit({ 'x.txt': 'x\n' }), 'onto-release');
  const onRelease = await hub().openPullRequest({
    owner: h.repo.owner,
    repo: h.repo.name,
    head: 'onto-release',
    base: 'release',
  });
  expect((await comment(onRelease.number, WRITER, '/trunk merge')).outcome).toBe(
    'no merge queue for release (replied)',
  );
  expect(botReplies(onRelease.number)).toEqual([
    `railyard has no merge queue for \`release\` in ${h.repo.owner}/${h.repo.name}, so \`/trunk merge\` did nothing.`,
  ]);

  // Commands turned off for the queue of main: nothing is read beyond the queue, nothing is said.
  const pr = await h.openPr({ 'off.txt': '1\n' }, 'off');
  const handle = h.client.workflow.getHandle(queueWorkflowId(h.key));
  await handle.executeUpdate(updateQueueUpdate, {
    args: [{ config: {}, runner: { commandsEnabled: false } }],
  });
  try {
    expect((await comment(pr.number, WRITER, '/trunk merge')).outcome).toBe(
      'commands are off for the queue of main',
    );
    expect(botReplies(pr.number)).toEqual([]);
    expect(await h.pr(pr.number)).toBeNull();
  } finally {
    await handle.executeUpdate(updateQueueUpdate, {
      args: [{ config: {}, runner: { commandsEnabled: true } }],
    });
  }
}, 60_000);

test('the queue admits a bound submission only at its head (issue 24)', async () => {
  const handle = h.client.workflow.getHandle(queueWorkflowId(h.key));
  const admissionOf = async (submissionId: string): Promise<AdmissionState> => {
    for (;;) {
      const state = (await handle.query(getAdmissionsQuery, [submissionId]))[submissionId]!;
      if (state.state !== 'pending') return state;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const pr = await h.openPr({ 'bound.txt': '1\n' }, 'bound');
  const other = 'b'.repeat(40);
  // Read afresh: the PR's head is not the bound one, so it is refused and nothing is queued.
  const stale = await handle.executeUpdate(submitUpdate, {
    args: [{ pr: pr.number, priority: null, noBatch: false, expectedHeadSha: other }],
  });
  expect(await admissionOf(stale.submissionId)).toEqual({
    state: 'rejected',
    rejection: 'invalid',
    message: `The head of pull request #${pr.number} is now ${pr.headSha}, not ${other} that the submission was given for; a new submission is needed to queue the new head.`,
  });
  expect(await h.pr(pr.number)).toBeNull();
  // Bound to its head, it is admitted.
  const bound = await handle.executeUpdate(submitUpdate, {
    args: [{ pr: pr.number, priority: null, noBatch: false, expectedHeadSha: pr.headSha }],
  });
  expect(await admissionOf(bound.submissionId)).toEqual({ state: 'settled' });
  // Queued at its head, a submission bound to another is refused at once; the PR stays as it was.
  await expect(
    handle.executeUpdate(submitUpdate, {
      args: [{ pr: pr.number, priority: 10, noBatch: false, expectedHeadSha: other }],
    }),
  ).rejects.toThrow(/WorkflowUpdateFailedError|Workflow Update failed/);
  expect((await h.pr(pr.number))?.details?.priorityName).toBe('medium');
}, 60_000);
