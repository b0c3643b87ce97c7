/**
 * fakehub's webhooks, each produced by the state change GitHub announces it for and received by a real
 * HTTP target: signed so that railyard's own check (github/inbound/webhook-signature.ts) accepts it,
 * with GitHub's headers, and valid against @octokit/openapi-webhooks (useFakeHub fails any test after
 * which a delivery did not validate). The events: push (created, updated, forced, deleted), the
 * pull_request lifecycle, check_run, status and installation_repositories.
 */
import { isValidSignature } from '../../../github/inbound/webhook-signature';
import { useFakeHub, workClone, type WorkClone } from '../../support/fakehub';
import { startWebhookReceiver, type Received, type WebhookReceiver } from './webhook-receiver';

const hub = useFakeHub();
const ZERO = '0'.repeat(40);
let receiver: WebhookReceiver;
let clone: WorkClone;
let token: string;
let installationId: number;
let main: string;

beforeAll(async () => {
  installationId = hub().createInstallation({ account: 'acme' }).id;
  await hub().createRepository({ installationId, owner: 'acme', name: 'widgets' });
  token = hub().installationToken(installationId);
  clone = await workClone(hub().gitUrl('acme', 'widgets'), token);
  main = await clone.commit({ 'README.md': 'hello\n' });
  await clone.push(main, 'main');
  receiver = await startWebhookReceiver();
  hub().webhooks.setTarget(receiver.url);
  await hub().webhooks.idle();
});

beforeEach(() => receiver.clear());

afterAll(async () => {
  clone.cleanup();
  await receiver.close();
});

/** Waits for every delivery, then returns what the target received: `event` or `event.action`. */
async function received(): Promise<string[]> {
  await hub().webhooks.idle();
  return receiver.received.map((r) => (r.payload.action ? `${r.event}.${r.payload.action}` : r.event));
}

function only(event: string, action?: string): Received {
  const found = receiver.received.filter(
    (r) => r.event === event && (action === undefined || r.payload.action === action),
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${hub().url}${path}`, {
    method,
    headers: {
      authorization: `token ${token}`,
      accept: 'application/vnd.github+json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('deliveries', () => {
  it("are signed so that railyard's isValidSignature accepts the exact bytes, with GitHub's headers", async () => {
    const sha = await clone.commit({ 'signed.txt': 's\n' });
    await clone.push(sha, 'main');
    main = sha;
    expect(await received()).toEqual(['push']);
    const push = receiver.received[0]!;
    const secret = hub().app.webhookSecret;
    expect(isValidSignature(secret, push.raw, push.headers['x-hub-signature-256'] as string)).toBe(true);
    expect(isValidSignature(`${secret}x`, push.raw, push.headers['x-hub-signature-256'] as string)).toBe(
      false,
    );
    const tampered = Buffer.from(push.raw.toString('utf8').replace('"forced":false', '"forced":true'));
    expect(tampered.equals(push.raw)).toBe(false);
    expect(isValidSignature(secret, tampered, push.headers['x-hub-signature-256'] as string)).toBe(false);
    expect(push.headers).toMatchObject({
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-hook-id': String(hub().webhooks.hookId),
      'x-github-hook-installation-target-id': String(hub().app.id),
      'x-github-hook-installation-target-type': 'integration',
    });
    expect(push.headers['user-agent']).toMatch(/^GitHub-Hookshot\/[0-9a-f]+$/);
    expect(push.guid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(hub().webhooks.deliveries.at(-1)).toMatchObject({
      guid: push.guid,
      event: 'push',
      action: null,
      installationId,
      outcome: 'delivered',
      statusCode: 200,
      status: 'OK',
      redelivery: false,
      body: push.raw.toString('utf8'),
    });
    expect(JSON.stringify(hub().webhooks.deliveries)).not.toContain(secret);
  });

  it('are checked against the webhook schemas: a payload that does not fit is a violation', async () => {
    hub().webhooks.corruptNext((payload) => ({ ...payload, ref: 42 }));
    const sha = await clone.commit({ 'corrupt.txt': 'c\n' });
    await clone.push(sha, 'main');
    main = sha;
    expect(await received()).toEqual(['push']);
    expect(hub().takeViolations()).toEqual(['webhook push: body/ref must be string (type: string)']);
  });
});

describe('push', () => {
  it('announces a new branch, an update, a forced update and a deletion, pushed over git', async () => {
    await clone.branch('topic/push', main);
    const first = await clone.commit({ 'push.txt': '1\n' }, 'first on topic');
    await clone.push(first, 'topic/push');
    expect(await received()).toEqual(['push']);
    const created = receiver.received[0]!.payload as { commits: { id: string }[] };
    expect(created).toMatchObject({
      ref: 'refs/heads/topic/push',
      before: ZERO,
      after: first,
      created: true,
      deleted: false,
      forced: false,
      head_commit: { id: first, message: 'first on topic', added: ['push.txt'] },
      installation: { id: installationId, node_id: expect.any(String) },
      repository: { full_name: 'acme/widgets' },
      sender: { login: `${hub().app.slug}[bot]`, type: 'Bot' },
      pusher: { name: `${hub().app.slug}[bot]` },
    });
    expect(created.commits.map((c) => c.id)).toEqual([first]);

    receiver.clear();
    const second = await clone.commit({ 'push.txt': '2\n' }, 'second on topic');
    await clone.push(second, 'topic/push');
    await received();
    expect(only('push').payload).toMatchObject({
      before: first,
      after: second,
      created: false,
      forced: false,
    });
    expect((only('push').payload as { head_commit: { modified: string[] } }).head_commit.modified).toEqual([
      'push.txt',
    ]);

    receiver.clear();
    await clone.branch('topic/push', first);
    const rewritten = await clone.commit({ 'other.txt': 'o\n' }, 'rewritten');
    await clone.git('push', '-q', '--force', 'origin', `${rewritten}:refs/heads/topic/push`);
    await received();
    expect(only('push').payload).toMatchObject({ before: second, after: rewritten, forced: true });

    receiver.clear();
    await clone.git('tag', '-a', 'v1.0.0', '-m', 'release 1.0.0', rewritten);
    await clone.git('push', '-q', 'origin', 'refs/tags/v1.0.0');
    await received();
    const tagObject = await clone.git('rev-parse', 'v1.0.0');
    expect(only('push').payload).toMatchObject({
      ref: 'refs/tags/v1.0.0',
      after: tagObject,
      created: true,
      head_commit: { id: rewritten },
    });

    receiver.clear();
    await clone.git('push', '-q', 'origin', ':refs/heads/topic/push');
    await received();
    expect(only('push').payload).toMatchObject({
      before: rewritten,
      after: ZERO,
      deleted: true,
      commits: [],
      head_commit: null,
    });
  });
});

describe('pull_request', () => {
  it('opened, synchronize, edited (base), closed, reopened, and closed merged by the API', async () => {
    await clone.branch('release', main);
    await clone.push(main, 'release');
    await clone.branch('feature/life', main);
    const head = await clone.commit({ 'life.txt': '1\n' });
    await clone.push(head, 'feature/life');
    await received();
    receiver.clear();

    const pr = await hub().openPullRequest({
      owner: 'acme',
      repo: 'widgets',
      head: 'feature/life',
      title: 'Life',
    });
    expect(await received()).toEqual(['pull_request.opened']);
    expect(only('pull_request', 'opened').payload).toMatchObject({
      number: pr.number,
      pull_request: {
        number: pr.number,
        state: 'open',
        head: { sha: head, ref: 'feature/life' },
        base: { ref: 'main', sha: main },
      },
      installation: { id: installationId },
      sender: { login: 'octocat' },
    });

    receiver.clear();
    const moved = await clone.commit({ 'life.txt': '2\n' });
    await clone.push(moved, 'feature/life');
    expect(await received()).toEqual(['push', 'pull_request.synchronize']);
    expect(only('pull_request', 'synchronize').payload).toMatchObject({
      before: head,
      after: moved,
      pull_request: { head: { sha: moved } },
    });

    receiver.clear();
    const releaseTip = await clone.commit({ 'release.txt': 'r\n' });
    await clone.push(releaseTip, 'release');
    await received();
    receiver.clear();
    await hub().retargetPullRequest('acme', 'widgets', pr.number, 'release');
    expect(await received()).toEqual(['pull_request.edited']);
    expect(only('pull_request', 'edited').payload).toMatchObject({
      changes: { base: { ref: { from: 'main' }, sha: { from: main } } },
      pull_request: { base: { ref: 'release', sha: releaseTip } },
    });
    await hub().retargetPullRequest('acme', 'widgets', pr.number, 'main');
    await received();

    receiver.clear();
    hub().closePullRequest('acme', 'widgets', pr.number);
    await hub().reopenPullRequest('acme', 'widgets', pr.number);
    expect(await received()).toEqual(['pull_request.closed', 'pull_request.reopened']);
    expect(only('pull_request', 'closed').payload).toMatchObject({
      pull_request: { state: 'closed', merged: false, merged_at: null },
    });
    expect(only('pull_request', 'reopened').payload).toMatchObject({ pull_request: { state: 'open' } });

    receiver.clear();
    const merged = await api('PUT', `/repos/acme/widgets/pulls/${pr.number}/merge`, { sha: moved });
    expect(merged.status).toBe(200);
    expect(await received()).toEqual(['push', 'pull_request.closed']);
    const bot = `${hub().app.slug}[bot]`;
    expect(only('push').payload).toMatchObject({
      ref: 'refs/heads/main',
      before: main,
      after: merged.body.sha,
    });
    expect(only('pull_request', 'closed').payload).toMatchObject({
      pull_request: { state: 'closed', merged: true, merge_commit_sha: merged.body.sha },
      sender: { login: bot, type: 'Bot' },
    });
    main = merged.body.sha as string;
  });

  it('closed, merged, when a push lands the head on the base; closed when the head branch is deleted', async () => {
    await clone.git('fetch', '-q', 'origin');
    await clone.branch('feature/ff', main);
    const head = await clone.commit({ 'ff.txt': 'f\n' });
    await clone.push(head, 'feature/ff');
    await clone.branch('feature/gone', main);
    const gone = await clone.commit({ 'gone.txt': 'g\n' });
    await clone.push(gone, 'feature/gone');
    const ff = await hub().openPullRequest({ owner: 'acme', repo: 'widgets', head: 'feature/ff' });
    const deleted = await hub().openPullRequest({ owner: 'acme', repo: 'widgets', head: 'feature/gone' });
    await received();
    receiver.clear();

    await clone.push(head, 'main');
    main = head;
    expect(await received()).toEqual(['push', 'pull_request.closed']);
    expect(only('pull_request', 'closed').payload).toMatchObject({
      number: ff.number,
      pull_request: { merged: true, merge_commit_sha: head },
    });

    receiver.clear();
    await clone.git('push', '-q', 'origin', ':refs/heads/feature/gone');
    expect(await received()).toEqual(['push', 'pull_request.closed']);
    expect(only('pull_request', 'closed').payload).toMatchObject({
      number: deleted.number,
      pull_request: { merged: false },
    });
  });
});

describe('check_run, status and installation_repositories', () => {
  it('check_run: created when a run starts, completed (same run) when it finishes', async () => {
    const started = hub().setCheckRun('acme', 'widgets', main, { name: 'build', status: 'in_progress' });
    const finished = hub().setCheckRun('acme', 'widgets', main, { name: 'build', conclusion: 'failure' });
    expect(finished.id).toBe(started.id);
    expect(await received()).toEqual(['check_run.created', 'check_run.completed']);
    expect(only('check_run', 'created').payload).toMatchObject({
      check_run: { id: started.id, name: 'build', head_sha: main, status: 'in_progress', conclusion: null },
    });
    expect(only('check_run', 'completed').payload).toMatchObject({
      check_run: { id: started.id, status: 'completed', conclusion: 'failure' },
      repository: { full_name: 'acme/widgets' },
      installation: { id: installationId },
    });

    receiver.clear();
    hub().setCheckRun('acme', 'widgets', main, { name: 'lint', conclusion: 'success' });
    expect(await received()).toEqual(['check_run.created', 'check_run.completed']);
  });

  it('status: from setStatus and from POST /statuses/{sha}, naming the branches at that commit', async () => {
    hub().setStatus('acme', 'widgets', main, {
      context: 'ci/test',
      state: 'pending',
      description: 'running',
    });
    const posted = await api('POST', `/repos/acme/widgets/statuses/${main}`, {
      state: 'success',
      context: 'railyard',
    });
    expect(posted.status).toBe(201);
    expect(await received()).toEqual(['status', 'status']);
    const [fromState, fromApi] = receiver.received as [Received, Received];
    expect(fromState.payload).toMatchObject({
      sha: main,
      context: 'ci/test',
      state: 'pending',
      description: 'running',
      name: 'acme/widgets',
      commit: { sha: main },
    });
    expect((fromState.payload as { branches: { name: string }[] }).branches.map((b) => b.name)).toContain(
      'main',
    );
    expect(fromApi.payload).toMatchObject({
      id: posted.body.id,
      context: 'railyard',
      state: 'success',
      sender: { login: `${hub().app.slug}[bot]` },
    });
  });

  it('installation_repositories: added when a repository joins an existing installation', async () => {
    const added = await hub().addRepositoryToInstallation({ installationId, owner: 'acme', name: 'gadgets' });
    expect(await received()).toEqual(['installation_repositories.added']);
    expect(only('installation_repositories').payload).toMatchObject({
      installation: { id: installationId, app_id: hub().app.id },
      repository_selection: 'selected',
      repositories_added: [{ id: added.id, full_name: 'acme/gadgets', private: true }],
      repositories_removed: [],
    });
    receiver.clear();
    await hub().createRepository({ installationId, owner: 'acme', name: 'silent' });
    expect(await received()).toEqual([]);
  });
});
