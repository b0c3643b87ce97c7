/**
 * The REST operations railyard's GitHub adapter needs beyond reading and merging: PATCH /pulls/{n}
 * (close, reopen, retarget: each with its webhook), the required status checks of a branch (GitHub's two
 * 404s), file contents at a ref, issue comments, rebase merges, and the git data writes (a commit, then
 * creating, updating and deleting a ref). Every request and response here passes the contract check.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useFakeHub, workClone, type WorkClone } from '../../support/fakehub';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

const hub = useFakeHub();
let clone: WorkClone;
let token: string;
let main: string;
let receiver: WebhookReceiver;

type Body = Record<string, unknown> & { message?: string };

async function api<T = Body>(method: string, path: string, body?: unknown) {
  const response = await fetch(`${hub().url}${path}`, {
    method,
    headers: {
      authorization: `token ${token}`,
      accept: 'application/vnd.github+json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : undefined) as T,
  };
}

async function openPr(branch: string, files: Record<string, string>, from = main) {
  await clone.branch(branch, from);
  const sha = await clone.commit(files);
  await clone.push(sha, branch);
  const pr = await hub().openPullRequest({
    owner: 'acme',
    repo: 'widgets',
    head: branch,
    title: `Add ${branch}`,
  });
  return { pr, sha };
}

async function events(): Promise<string[]> {
  await hub().webhooks.idle();
  const seen = receiver.received.map((r) => (r.payload.action ? `${r.event}.${r.payload.action}` : r.event));
  receiver.clear();
  return seen;
}

beforeAll(async () => {
  const installationId = hub().createInstallation({ account: 'acme' }).id;
  await hub().createRepository({ installationId, owner: 'acme', name: 'widgets' });
  token = hub().installationToken(installationId);
  clone = await workClone(hub().gitUrl('acme', 'widgets'), token);
  main = await clone.commit({ 'README.md': 'hello\n', 'railyard.yaml': 'version: 1\n' });
  await clone.push(main, 'main');
  await clone.branch('release', main);
  await clone.push(main, 'release');
  receiver = await startWebhookReceiver();
  hub().webhooks.setTarget(receiver.url);
});

afterAll(async () => {
  clone.cleanup();
  await receiver.close();
});

describe('PATCH /repos/{o}/{r}/pulls/{n}', () => {
  it('closes, reopens and retargets, each announced; refuses a missing base with 422', async () => {
    const { pr } = await openPr('feature/patch', { 'patch.txt': 'p\n' });
    await events();

    const closed = await api('PATCH', `/repos/acme/widgets/pulls/${pr.number}`, { state: 'closed' });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ number: pr.number, state: 'closed', merged: false });
    const reopened = await api('PATCH', `/repos/acme/widgets/pulls/${pr.number}`, { state: 'open' });
    expect(reopened.body).toMatchObject({ state: 'open' });
    expect(await events()).toEqual(['pull_request.closed', 'pull_request.reopened']);

    const retargeted = await api('PATCH', `/repos/acme/widgets/pulls/${pr.number}`, {
      base: 'release',
      title: 'Retargeted',
    });
    expect(retargeted.body).toMatchObject({ base: { ref: 'release' }, title: 'Retargeted' });
    await hub().webhooks.idle();
    expect(receiver.received.map((r) => r.payload)).toEqual([
      expect.objectContaining({
        action: 'edited',
        changes: {
          base: { ref: { from: 'main' }, sha: { from: main } },
          title: { from: 'Add feature/patch' },
        },
        sender: expect.objectContaining({ login: `${hub().app.slug}[bot]` }),
      }),
    ]);
    receiver.clear();
    expect(hub().pullRequest('acme', 'widgets', pr.number).base).toBe('release');

    const missing = await api('PATCH', `/repos/acme/widgets/pulls/${pr.number}`, { base: 'nope' });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toBe('Validation Failed');
    expect(await api('PATCH', '/repos/acme/widgets/pulls/9999', { state: 'closed' })).toMatchObject({
      status: 404,
    });
    expect(await events()).toEqual([]);
  });

  it('refuses to reopen a merged PR', async () => {
    const { pr, sha } = await openPr('feature/merged', { 'merged.txt': 'm\n' });
    const merged = await api('PUT', `/repos/acme/widgets/pulls/${pr.number}/merge`, { sha });
    expect(merged.status).toBe(200);
    main = merged.body.sha as string;
    await clone.git('fetch', '-q', 'origin');
    const reopen = await api('PATCH', `/repos/acme/widgets/pulls/${pr.number}`, { state: 'open' });
    expect(reopen.status).toBe(422);
    await events();
  });
});

describe('GET /repos/{o}/{r}/branches/{b}/protection/required_status_checks', () => {
  it("answers GitHub's 404s when unprotected or without checks, and the contexts otherwise", async () => {
    const unprotected = await api(
      'GET',
      '/repos/acme/widgets/branches/main/protection/required_status_checks',
    );
    expect(unprotected).toMatchObject({ status: 404, body: { message: 'Branch not protected' } });
    hub().setProtection('acme', 'widgets', 'main', { restrictUpdates: true });
    const noChecks = await api('GET', '/repos/acme/widgets/branches/main/protection/required_status_checks');
    expect(noChecks).toMatchObject({ status: 404, body: { message: 'Required status checks not enabled' } });
    hub().setProtection('acme', 'widgets', 'main', { requiredStatusChecks: ['ci', 'lint'], strict: true });
    const checks = await api('GET', '/repos/acme/widgets/branches/main/protection/required_status_checks');
    hub().setProtection('acme', 'widgets', 'main', null);
    expect(checks.status).toBe(200);
    expect(checks.body).toMatchObject({
      strict: true,
      contexts: ['ci', 'lint'],
      checks: [
        { context: 'ci', app_id: null },
        { context: 'lint', app_id: null },
      ],
    });
  });
});

describe('GET /repos/{o}/{r}/contents/{path}', () => {
  it('serves a file as base64 at the default branch or ?ref=, a directory as a list, and 404s', async () => {
    await clone.branch('config', main);
    await clone.git('rm', '-q', 'railyard.yaml');
    const changed = await clone.commit({ 'railyard.yaml': 'version: 2\n' });
    await clone.push(changed, 'config');

    const file = await api<{ type: string; content: string; encoding: string; path: string; sha: string }>(
      'GET',
      '/repos/acme/widgets/contents/railyard.yaml',
    );
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({
      type: 'file',
      encoding: 'base64',
      path: 'railyard.yaml',
      name: 'railyard.yaml',
    });
    expect(Buffer.from(file.body.content, 'base64').toString('utf8')).toBe('version: 1\n');
    expect(file.body.sha).toBe(await clone.git('rev-parse', `${main}:railyard.yaml`));

    const atRef = await api<{ content: string }>(
      'GET',
      '/repos/acme/widgets/contents/railyard.yaml?ref=config',
    );
    expect(Buffer.from(atRef.body.content, 'base64').toString('utf8')).toBe('version: 2\n');
    const atSha = await api<{ content: string }>(
      'GET',
      `/repos/acme/widgets/contents/railyard.yaml?ref=${main}`,
    );
    expect(Buffer.from(atSha.body.content, 'base64').toString('utf8')).toBe('version: 1\n');

    expect((await api('GET', '/repos/acme/widgets/contents/missing.txt')).status).toBe(404);
    expect((await api('GET', '/repos/acme/widgets/contents/README.md?ref=no-such-branch')).status).toBe(404);
    // An encoded `../` reaches the fake as a path parameter (fetch would resolve a literal one).
    expect((await api('GET', '/repos/acme/widgets/contents/%2E%2E%2FREADME.md')).status).toBe(404);
  });

  it('lists a directory', async () => {
    await clone.branch('tree', main);
    mkdirSync(join(clone.dir, 'ci'), { recursive: true });
    writeFileSync(join(clone.dir, 'ci', 'a.yml'), 'a\n');
    writeFileSync(join(clone.dir, 'ci', 'b.yml'), 'bb\n');
    await clone.git('add', 'ci');
    await clone.git('commit', '-q', '-m', 'ci dir');
    const tip = await clone.git('rev-parse', 'HEAD');
    await clone.push(tip, 'tree');
    const dir = await api<{ type: string; path: string; size: number }[]>(
      'GET',
      '/repos/acme/widgets/contents/ci?ref=tree',
    );
    expect(dir.status).toBe(200);
    expect(dir.body.map((e) => [e.type, e.path, e.size])).toEqual([
      ['file', 'ci/a.yml', 2],
      ['file', 'ci/b.yml', 3],
    ]);
  });
});

describe('POST /repos/{o}/{r}/issues/{n}/comments', () => {
  it('stores the comment, answers 201 with its Location, and hub().comments lists it', async () => {
    const { pr } = await openPr('feature/comment', { 'comment.txt': 'c\n' });
    const created = await api('POST', `/repos/acme/widgets/issues/${pr.number}/comments`, {
      body: 'Queued 🚂',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      body: 'Queued 🚂',
      user: { login: `${hub().app.slug}[bot]`, type: 'Bot' },
    });
    expect(created.headers.get('location')).toBe(created.body.url);
    expect(
      hub()
        .comments('acme', 'widgets', pr.number)
        .map((c) => c.body),
    ).toEqual(['Queued 🚂']);
    expect((await api('POST', '/repos/acme/widgets/issues/9999/comments', { body: 'x' })).status).toBe(404);
    await events();
  });
});

describe('PUT /repos/{o}/{r}/pulls/{n}/merge with merge_method rebase', () => {
  it('replays each commit onto the moved base, keeping authors and messages', async () => {
    await clone.git('fetch', '-q', 'origin');
    await clone.branch('feature/rebase', main);
    const one = await clone.commit({ 'one.txt': '1\n' }, 'first change');
    const two = await clone.commit({ 'two.txt': '2\n' }, 'second change');
    await clone.push(two, 'feature/rebase');
    const pr = await hub().openPullRequest({ owner: 'acme', repo: 'widgets', head: 'feature/rebase' });
    await clone.branch('main-moves', main);
    const moved = await clone.commit({ 'elsewhere.txt': 'e\n' }, 'base moved');
    await clone.push(moved, 'main');
    await events();

    const merged = await api('PUT', `/repos/acme/widgets/pulls/${pr.number}/merge`, {
      sha: two,
      merge_method: 'rebase',
    });
    expect(merged.status).toBe(200);
    const tip = merged.body.sha as string;
    await clone.git('fetch', '-q', 'origin');
    expect(await clone.git('rev-parse', 'origin/main')).toBe(tip);
    expect(await clone.git('log', '--format=%s|%an', `${moved}..${tip}`)).toBe(
      'second change|Ada Lovelace\nfirst change|Ada Lovelace',
    );
    expect(await clone.git('rev-parse', `${tip}~2`)).toBe(moved);
    expect(tip).not.toBe(two);
    expect(await clone.git('show', `${tip}:one.txt`)).toBe('1');
    expect(await clone.git('show', `${tip}:elsewhere.txt`)).toBe('e');
    expect(await clone.git('merge-base', '--is-ancestor', one, tip).catch(() => 'not an ancestor')).toBe(
      'not an ancestor',
    );
    expect(hub().pullRequest('acme', 'widgets', pr.number)).toMatchObject({
      merged: true,
      mergeCommitSha: tip,
    });
    expect(await events()).toEqual(['push', 'pull_request.closed']);
    main = tip;
  });

  it('refuses to rebase a branch holding a merge commit', async () => {
    await clone.branch('feature/side', main);
    const side = await clone.commit({ 'side.txt': 's\n' });
    await clone.branch('feature/with-merge', main);
    await clone.commit({ 'own.txt': 'o\n' });
    await clone.git('merge', '-q', '--no-ff', '-m', 'merge side', side);
    const head = await clone.git('rev-parse', 'HEAD');
    await clone.push(head, 'feature/with-merge');
    const pr = await hub().openPullRequest({ owner: 'acme', repo: 'widgets', head: 'feature/with-merge' });
    const refused = await api('PUT', `/repos/acme/widgets/pulls/${pr.number}/merge`, {
      merge_method: 'rebase',
    });
    expect(refused).toMatchObject({ status: 405, body: { message: "This branch can't be rebased" } });
    await events();
  });
});

describe('POST /git/commits and the ref writes (POST, PATCH, DELETE /git/refs)', () => {
  it('creates a commit and a branch, moves it, deletes it, each announced as a push; refuses as GitHub', async () => {
    const base = await api<{ tree: { sha: string } }>('GET', `/repos/acme/widgets/git/commits/${main}`);
    const made = await api<{ sha: string; parents: { sha: string }[]; tree: { sha: string } }>(
      'POST',
      '/repos/acme/widgets/git/commits',
      { message: 'preflight', tree: base.body.tree.sha, parents: [main] },
    );
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ tree: { sha: base.body.tree.sha }, parents: [{ sha: main }] });
    expect(made.body.sha).not.toBe(main);
    await events();

    const ref = 'refs/heads/trunk-merge/preflight/one';
    const created = await api('POST', '/repos/acme/widgets/git/refs', { ref, sha: made.body.sha });
    expect(created).toMatchObject({ status: 201, body: { ref, object: { sha: made.body.sha } } });
    expect(await events()).toEqual(['push']);
    expect(await api('POST', '/repos/acme/widgets/git/refs', { ref, sha: main })).toMatchObject({
      status: 422,
      body: { message: 'Reference already exists' },
    });
    expect(await api('POST', '/repos/acme/widgets/git/refs', { ref: 'heads/x', sha: main })).toMatchObject({
      status: 422,
    });

    // Back to main is not a fast-forward: refused without force, done with it.
    const path = '/repos/acme/widgets/git/refs/heads/trunk-merge/preflight/one';
    expect(await api('PATCH', path, { sha: main })).toMatchObject({
      status: 422,
      body: { message: 'Update is not a fast forward' },
    });
    expect(await api('PATCH', path, { sha: main, force: true })).toMatchObject({
      status: 200,
      body: { object: { sha: main } },
    });
    expect(await events()).toEqual(['push']);

    expect((await api('DELETE', path)).status).toBe(204);
    expect(await events()).toEqual(['push']);
    expect((await api('GET', '/repos/acme/widgets/git/ref/heads/trunk-merge/preflight/one')).status).toBe(
      404,
    );
    expect((await api('DELETE', path)).status).toBe(422);

    // A protected branch refuses the App's deletion as it refuses a push.
    hub().setProtection('acme', 'widgets', 'release', { restrictUpdates: true });
    expect((await api('DELETE', '/repos/acme/widgets/git/refs/heads/release')).status).toBe(422);
    expect((await api('GET', '/repos/acme/widgets/git/ref/heads/release')).status).toBe(200);
    hub().setProtection('acme', 'widgets', 'release', null);
    await events();
  });
});
