/**
 * fakehub's REST side over real HTTP: App JWT → installation token → API calls, token expiry, ETags
 * and 304s, rate-limit headers, the secondary-limit and `mergeable: null` knobs, merging through the
 * API (200 / 405 / 409), multi-segment refs, check runs, statuses and branch rules. Every request and
 * response here passes the contract check (useFakeHub fails a test otherwise).
 */
import { signAppJwt, useFakeHub, workClone, type WorkClone } from '../../support/fakehub';
import { createFakeApp } from '../../support/fakehub/app-auth';

const hub = useFakeHub();
let installationId: number;
let token: string;
let clone: WorkClone;
let base: string;

/** A JSON body read loosely: tests pick the fields they check. */
type Body = Record<string, unknown> & { message?: string; sha?: string; token?: string; expires_at?: string };

async function api<T = Body>(
  method: string,
  path: string,
  options: { auth?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: T }> {
  const headers: Record<string, string> = { accept: 'application/vnd.github+json', ...options.headers };
  const auth = options.auth === undefined ? `token ${token}` : options.auth;
  if (auth) headers.authorization = auth;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${hub().url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : undefined) as T,
  };
}

beforeAll(async () => {
  installationId = hub().createInstallation({ account: 'acme' }).id;
  await hub().createRepository({ installationId, owner: 'acme', name: 'widgets' });
  token = hub().installationToken(installationId);
  clone = await workClone(hub().gitUrl('acme', 'widgets'), () => token);
  base = await clone.commit({ 'README.md': 'hello\n' });
  await clone.push(base, 'main');
});

afterAll(() => clone.cleanup());

async function openPr(branch: string, files: Record<string, string>, from = base) {
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

describe('App authentication', () => {
  it('trades a JWT for an installation token that reads the repository', async () => {
    const jwt = signAppJwt(hub().app);
    const installation = await api('GET', '/repos/acme/widgets/installation', { auth: `Bearer ${jwt}` });
    expect(installation.status).toBe(200);
    expect(installation.body).toMatchObject({ id: installationId, app_id: hub().app.id });

    const minted = await api('POST', `/app/installations/${installationId}/access_tokens`, {
      auth: `Bearer ${jwt}`,
    });
    expect(minted.status).toBe(201);
    expect(minted.body.token).toMatch(/^ghs_[A-Za-z0-9]{36}$/);
    expect(Date.parse(minted.body.expires_at!)).toBeGreaterThan(Date.now() + 59 * 60_000);

    const repo = await api('GET', '/repos/acme/widgets', { auth: `token ${minted.body.token!}` });
    expect(repo.status).toBe(200);
    expect(repo.body).toMatchObject({ full_name: 'acme/widgets', default_branch: 'main' });
    expect(JSON.stringify(hub().requests)).not.toContain(minted.body.token!);
  });

  it('refuses JWTs GitHub refuses: wrong key, expired, longer than 10 minutes, wrong issuer', async () => {
    const now = Math.floor(Date.now() / 1000);
    const stranger = createFakeApp(hub().app.id);
    for (const jwt of [
      signAppJwt(stranger),
      signAppJwt(hub().app, { iat: now - 700, exp: now - 60 }),
      signAppJwt(hub().app, { iat: now, exp: now + 3600 }),
      signAppJwt(hub().app, { iss: 1 }),
    ]) {
      const answer = await api('POST', `/app/installations/${installationId}/access_tokens`, {
        auth: `Bearer ${jwt}`,
      });
      expect(answer.status).toBe(401);
    }
  });

  it('answers 401 Bad credentials once the token expired', async () => {
    const shortLived = hub().installationToken(installationId);
    expect((await api('GET', '/repos/acme/widgets', { auth: `token ${shortLived}` })).status).toBe(200);
    hub().knobs.expireTokens();
    const expired = await api('GET', '/repos/acme/widgets', { auth: `token ${shortLived}` });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toBe('Bad credentials');
    token = hub().installationToken(installationId);
  });

  it('hides repositories the installation does not cover', async () => {
    const other = hub().createInstallation({ account: 'globex' }).id;
    const otherToken = hub().installationToken(other);
    expect((await api('GET', '/repos/acme/widgets', { auth: `token ${otherToken}` })).status).toBe(404);
  });
});

describe('conditional requests and rate limits', () => {
  it('gives an ETag and answers 304 to If-None-Match without spending the limit', async () => {
    const first = await api('GET', '/repos/acme/widgets');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[0-9a-f]+"$/);
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    expect(first.headers.get('x-ratelimit-limit')).toBe('5000');
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);

    const again = await api('GET', '/repos/acme/widgets', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(remaining);

    const spent = await api('GET', '/repos/acme/widgets');
    expect(Number(spent.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
  });

  it('answers the next N requests with a secondary rate limit and retry-after', async () => {
    hub().knobs.secondaryRateLimit(2, { retryAfterSeconds: 7 });
    for (let i = 0; i < 2; i++) {
      const limited = await api('GET', '/repos/acme/widgets');
      expect(limited.status).toBe(403);
      expect(limited.headers.get('retry-after')).toBe('7');
      expect(limited.body.message).toMatch(/secondary rate limit/);
    }
    expect((await api('GET', '/repos/acme/widgets')).status).toBe(200);
    hub().knobs.secondaryRateLimit(1, { status: 429, retryAfterSeconds: 1 });
    expect((await api('GET', '/repos/acme/widgets')).status).toBe(429);
  });
});

describe('pull requests', () => {
  it('reads a PR, lists open PRs by base, and reports mergeable null for N reads', async () => {
    const { pr, sha } = await openPr('feature/read', { 'read.txt': 'r\n' });
    hub().knobs.mergeableUnknown('acme', 'widgets', pr.number, 2);
    for (let i = 0; i < 2; i++) {
      const unknown = await api('GET', `/repos/acme/widgets/pulls/${pr.number}`);
      expect(unknown.body).toMatchObject({ mergeable: null, mergeable_state: 'unknown' });
    }
    const known = await api('GET', `/repos/acme/widgets/pulls/${pr.number}`);
    expect(known.body).toMatchObject({
      number: pr.number,
      state: 'open',
      merged: false,
      mergeable: true,
      mergeable_state: 'clean',
      head: { sha, ref: 'feature/read' },
      base: { ref: 'main', sha: base },
    });
    const listed = await api<{ number: number }[]>('GET', '/repos/acme/widgets/pulls?state=open&base=main');
    expect(listed.body.map((p) => p.number)).toContain(pr.number);
    expect((await api('GET', '/repos/acme/widgets/pulls?state=open&base=release')).body).toEqual([]);
  });

  it('merges through the API: 409 on a moved head, 405 when not mergeable, 200 with a real commit', async () => {
    const { pr, sha } = await openPr('feature/merge', { 'merge.txt': 'm\n' });
    const moved = await api('PUT', `/repos/acme/widgets/pulls/${pr.number}/merge`, {
      body: { sha: base, merge_method: 'squash' },
    });
    expect(moved.status).toBe(409);
    expect(moved.body.message).toBe('Head branch was modified. Review and try the merge again.');

    hub().setProtection('acme', 'widgets', 'main', { requiredStatusChecks: ['ci'] });
    const blocked = await api('PUT', `/repos/acme/widgets/pulls/${pr.number}/merge`, { body: { sha } });
    expect(blocked.status).toBe(405);
    expect(blocked.body.message).toBe('Required status check "ci" is expected.');
    hub().setCheckRun('acme', 'widgets', sha, { name: 'ci', conclusion: 'success' });

    const merged = await api('PUT', `/repos/acme/widgets/pulls/${pr.number}/merge`, {
      body: { sha, merge_method: 'squash' },
    });
    hub().setProtection('acme', 'widgets', 'main', null);
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ merged: true, message: 'Pull Request successfully merged' });
    await clone.git('fetch', '-q', 'origin');
    expect(await clone.git('rev-parse', 'origin/main')).toBe(merged.body.sha);
    expect(await clone.git('log', '-1', '--format=%s', 'origin/main')).toBe(
      `Add feature/merge (#${pr.number})`,
    );
    expect(await clone.git('show', 'origin/main:merge.txt')).toBe('m');
    base = merged.body.sha!;
    const after = await api('GET', `/repos/acme/widgets/pulls/${pr.number}`);
    expect(after.body).toMatchObject({ state: 'closed', merged: true, merge_commit_sha: base });

    const { pr: conflicting } = await openPr('feature/conflict', { 'README.md': 'theirs\n' }, base);
    await clone.branch('main-moves', base);
    const moves = await clone.commit({ 'README.md': 'ours\n' });
    await clone.push(moves, 'main');
    base = moves;
    const notMergeable = await api('PUT', `/repos/acme/widgets/pulls/${conflicting.number}/merge`, {
      body: {},
    });
    expect(notMergeable.status).toBe(405);
    expect((await api('GET', `/repos/acme/widgets/pulls/${conflicting.number}`)).body).toMatchObject({
      mergeable: false,
      mergeable_state: 'dirty',
    });
  });
});

describe('refs, checks, statuses and rules', () => {
  it('reads a multi-segment branch ref, and 404 for a missing one', async () => {
    const sha = await clone.commit({ 'deep.txt': 'd\n' });
    await clone.push(sha, 'release/2026/q4');
    const ref = await api('GET', '/repos/acme/widgets/git/ref/heads/release/2026/q4');
    expect(ref.body).toMatchObject({ ref: 'refs/heads/release/2026/q4', object: { sha, type: 'commit' } });
    expect((await api('GET', '/repos/acme/widgets/git/ref/heads/nope')).status).toBe(404);
  });

  it('lists check runs and the combined status of a commit, and takes new statuses', async () => {
    hub().setCheckRun('acme', 'widgets', base, { name: 'build', status: 'in_progress' });
    hub().setCheckRun('acme', 'widgets', base, { name: 'build', conclusion: 'failure' });
    const runs = await api<{ total_count: number; check_runs: unknown[] }>(
      'GET',
      `/repos/acme/widgets/commits/${base}/check-runs`,
    );
    expect(runs.body.total_count).toBe(1);
    expect(runs.body.check_runs[0]).toMatchObject({
      name: 'build',
      status: 'completed',
      conclusion: 'failure',
    });

    const pending = await api('GET', '/repos/acme/widgets/commits/main/status');
    expect(pending.body).toMatchObject({ state: 'pending', sha: base, total_count: 0 });
    const created = await api('POST', `/repos/acme/widgets/statuses/${base}`, {
      body: { state: 'success', context: 'railyard', description: 'Merged by the queue' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      state: 'success',
      context: 'railyard',
      creator: { login: 'railyard-test[bot]' },
    });
    const combined = await api('GET', `/repos/acme/widgets/commits/${base}/status`);
    expect(combined.body).toMatchObject({ state: 'success', total_count: 1 });
  });

  it('describes branch protection as rules', async () => {
    expect((await api('GET', '/repos/acme/widgets/rules/branches/main')).body).toEqual([]);
    hub().setProtection('acme', 'widgets', 'main', {
      requiredStatusChecks: ['ci', 'lint'],
      restrictUpdates: true,
      requiredApprovingReviewCount: 1,
    });
    const rules = await api<{ type: string; parameters?: { required_status_checks?: unknown } }[]>(
      'GET',
      '/repos/acme/widgets/rules/branches/main',
    );
    hub().setProtection('acme', 'widgets', 'main', null);
    expect(rules.body.map((r) => r.type)).toEqual([
      'deletion',
      'non_fast_forward',
      'update',
      'required_status_checks',
      'pull_request',
    ]);
    expect(rules.body[3]?.parameters?.required_status_checks).toEqual([
      { context: 'ci' },
      { context: 'lint' },
    ]);
  });
});
