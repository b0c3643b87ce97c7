/**
 * fakehub's PR conversations as commands need them, through railyard's own REST client and a real
 * webhook target (useFakeHub fails any test after which a request, a response or a delivery did not
 * match GitHub's descriptions):
 * - `hub().comment` / `editComment` / `deleteComment` send `issue_comment` created / edited (the old
 *   body in `changes`) / deleted, signed, with the PR as the issue (`issue.pull_request`) and the
 *   person as the sender; the App's own comment (`POST /issues/{n}/comments`) is announced too, sent
 *   by its bot;
 * - `POST /issues/comments/{id}/reactions`: 201, then 200 with the same reaction (one per user and
 *   content), counted in the comment's payload; 404 for an unknown comment;
 * - `GET /collaborators/{u}/permission`: each role's base permission (maintain → write, triage →
 *   read), 404 for a login without a role and for a repository the token does not cover.
 */
import { createGitHubAppAuth } from '../../../github/app/app-auth';
import { createGitHubClients, GitHubApiError, type GitHubRest } from '../../../github/app/rest-client';
import { isValidSignature } from '../../../github/inbound/webhook-signature';
import { useFakeHub, workClone, type WorkClone } from '../../support/fakehub';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../fakehub/webhook-receiver';

const hub = useFakeHub();
let receiver: WebhookReceiver;
let clone: WorkClone;
let rest: GitHubRest;
let otherRest: GitHubRest;
let pr: number;

beforeAll(async () => {
  const installationId = hub().createInstallation({ account: 'acme' }).id;
  await hub().createRepository({ installationId, owner: 'acme', name: 'widgets' });
  const other = hub().createInstallation({ account: 'globex' }).id;
  await hub().createRepository({ installationId: other, owner: 'globex', name: 'gadgets' });
  clone = await workClone(hub().gitUrl('acme', 'widgets'), hub().installationToken(installationId));
  await clone.push(await clone.commit({ 'README.md': 'hello\n' }), 'main');
  await clone.branch('feature', 'HEAD');
  await clone.push(await clone.commit({ 'a.txt': 'a\n' }), 'feature');
  pr = (await hub().openPullRequest({ owner: 'acme', repo: 'widgets', head: 'feature', author: 'octocat' }))
    .number;
  const settings = { appId: hub().app.id, privateKey: hub().app.privateKey, apiUrl: hub().url };
  const clients = await createGitHubClients(settings, await createGitHubAppAuth(settings));
  rest = await clients.forInstallation(installationId);
  otherRest = await clients.forInstallation(other);
  receiver = await startWebhookReceiver();
  hub().webhooks.setTarget(receiver.url);
  await hub().webhooks.idle();
});

beforeEach(() => receiver.clear());

afterAll(async () => {
  hub().webhooks.setTarget(null);
  clone.cleanup();
  await receiver.close();
});

async function comments(): Promise<Received[]> {
  await hub().webhooks.idle();
  return receiver.received.filter((r) => r.event === 'issue_comment');
}

describe('issue_comment webhooks', () => {
  test('a person’s comment on a PR: created, signed, the PR as the issue, the person as the sender', async () => {
    const comment = hub().comment('acme', 'widgets', pr, { author: 'alice', body: '/trunk merge' });
    const [created, ...rest] = await comments();
    expect(rest).toEqual([]);
    expect(created!.payload).toMatchObject({
      action: 'created',
      issue: {
        number: pr,
        state: 'open',
        pull_request: { url: `${hub().url}/repos/acme/widgets/pulls/${pr}` },
      },
      comment: { id: comment.id, body: '/trunk merge', user: { login: 'alice', type: 'User' } },
      sender: { login: 'alice' },
      installation: { id: expect.any(Number) as number },
      repository: { full_name: 'acme/widgets' },
    });
    const signature = created!.headers['x-hub-signature-256'] as string;
    expect(isValidSignature(hub().app.webhookSecret, created!.raw, signature)).toBe(true);
  });

  test('edited (with the old body) and deleted, sent by the author', async () => {
    const comment = hub().comment('acme', 'widgets', pr, { author: 'alice', body: 'first' });
    hub().editComment('acme', 'widgets', comment.id, '/trunk cancel');
    hub().deleteComment('acme', 'widgets', comment.id);
    const got = await comments();
    expect(got.map((r) => r.payload.action)).toEqual(['created', 'edited', 'deleted']);
    expect(got[1]!.payload).toMatchObject({
      changes: { body: { from: 'first' } },
      comment: { id: comment.id, body: '/trunk cancel' },
      sender: { login: 'alice' },
    });
    expect(got[2]!.payload).toMatchObject({ comment: { id: comment.id } });
    expect(
      hub()
        .comments('acme', 'widgets', pr)
        .some((c) => c.id === comment.id),
    ).toBe(false);
  });

  test('the App’s own comment is announced too, sent by its bot', async () => {
    await rest.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner: 'acme',
      repo: 'widgets',
      issue_number: pr,
      body: 'a reply',
    });
    const [created] = await comments();
    expect(created!.payload).toMatchObject({
      action: 'created',
      comment: { body: 'a reply', user: { login: `${hub().app.slug}[bot]`, type: 'Bot' } },
      sender: { type: 'Bot' },
    });
  });

  test('a comment by a login ending in [bot] is a bot’s', async () => {
    hub().comment('acme', 'widgets', pr, { author: 'dependabot[bot]', body: 'hi' });
    const [created] = await comments();
    expect(created!.payload).toMatchObject({ comment: { user: { type: 'Bot' } } });
  });
});

describe('reactions', () => {
  test('201 with a new reaction, 200 with the same one again; counted on the comment', async () => {
    const comment = hub().comment('acme', 'widgets', pr, { author: 'alice', body: '/trunk merge' });
    const react = (content: string) =>
      rest.request<{ id: number; content: string; user: { login: string } }>(
        'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
        { owner: 'acme', repo: 'widgets', comment_id: comment.id, content },
      );
    const first = await react('+1');
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({ content: '+1', user: { login: `${hub().app.slug}[bot]` } });
    const again = await react('+1');
    expect(again.status).toBe(200);
    expect(again.data.id).toBe(first.data.id);
    expect((await react('eyes')).status).toBe(201);
    expect(comment.reactions.map((r) => r.content)).toEqual(['+1', 'eyes']);
    // The comment's payload counts them.
    hub().editComment('acme', 'widgets', comment.id, 'edited');
    const edited = (await comments()).find((r) => r.payload.action === 'edited')!;
    expect(edited.payload.comment).toMatchObject({
      reactions: { total_count: 2, '+1': 1, eyes: 1, heart: 0 },
    });
  });

  test('an unknown comment, or one of a repository the token does not cover, is 404', async () => {
    const comment = hub().comment('acme', 'widgets', pr, { author: 'alice', body: 'x' });
    await expect(
      rest.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
        owner: 'acme',
        repo: 'widgets',
        comment_id: 1,
        content: '+1',
      }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      otherRest.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
        owner: 'acme',
        repo: 'widgets',
        comment_id: comment.id,
        content: '+1',
      }),
    ).rejects.toMatchObject({ status: 404 });
    expect(comment.reactions).toEqual([]);
  });
});

describe('collaborator permission', () => {
  const permissionOf = (client: GitHubRest, owner: string, repo: string, username: string) =>
    client.request<{ permission: string; role_name: string; user: { login: string } | null }>(
      'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
      { owner, repo, username },
    );

  test.each([
    ['admin', 'admin'],
    ['maintain', 'write'],
    ['write', 'write'],
    ['triage', 'read'],
    ['read', 'read'],
    ['none', 'none'],
  ] as const)('role %s → permission %s', async (role, permission) => {
    hub().setPermission('acme', 'widgets', 'Bob', role);
    const { data } = await permissionOf(rest, 'acme', 'widgets', 'bob');
    expect(data).toMatchObject({ permission, role_name: role });
    expect(data.user === null).toBe(role === 'none');
  });

  test('a login without a role, a forgotten role, another installation’s repository: 404', async () => {
    await expect(permissionOf(rest, 'acme', 'widgets', 'nobody')).rejects.toBeInstanceOf(GitHubApiError);
    hub().setPermission('acme', 'widgets', 'carol', 'write');
    await expect(permissionOf(otherRest, 'acme', 'widgets', 'carol')).rejects.toMatchObject({ status: 404 });
    hub().setPermission('acme', 'widgets', 'carol', null);
    await expect(permissionOf(rest, 'acme', 'widgets', 'carol')).rejects.toMatchObject({ status: 404 });
  });
});
