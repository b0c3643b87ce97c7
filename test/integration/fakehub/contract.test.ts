/**
 * The contract check catches what it exists to catch: a response of the fake that GitHub's description
 * does not allow, and requests the description does not allow (bad body, undeclared query parameter,
 * unknown route, the wrong credential kind). Each case takes the violations it provoked, so the
 * afterEach of useFakeHub stays green; anything else recorded would fail the test.
 */
import { signAppJwt, useFakeHub, workClone } from '../../support/fakehub';

const hub = useFakeHub();
let token: string;
let sha: string;
let prNumber: number;

async function call(method: string, path: string, auth: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (auth) headers.authorization = auth;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${hub().url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  const installationId = hub().createInstallation({ account: 'acme' }).id;
  await hub().createRepository({ installationId, owner: 'acme', name: 'widgets' });
  token = hub().installationToken(installationId);
  const clone = await workClone(hub().gitUrl('acme', 'widgets'), token);
  try {
    sha = await clone.commit({ 'README.md': 'hello\n' });
    await clone.push(sha, 'main');
    await clone.branch('topic', sha);
    const head = await clone.commit({ 'topic.txt': 't\n' });
    await clone.push(head, 'topic');
  } finally {
    clone.cleanup();
  }
  prNumber = (await hub().openPullRequest({ owner: 'acme', repo: 'widgets', head: 'topic' })).number;
});

describe('responses', () => {
  it('records a response missing a required field', async () => {
    hub().knobs.corruptNextResponse((body) => {
      delete (body as { head: { sha?: string } }).head.sha;
      return body;
    });
    const answer = await call('GET', `/repos/acme/widgets/pulls/${prNumber}`, `token ${token}`);
    expect(answer.status).toBe(200);
    const found = hub().takeViolations();
    expect(found).toEqual([
      expect.stringMatching(
        /^response GET \/repos\/acme\/widgets\/pulls\/\d+: pulls\/get: 200 response body\/head must have required property 'sha'/,
      ),
    ]);
  });

  it('records a field of the wrong type or format, and fails the test through assertNoViolations', async () => {
    hub().knobs.corruptNextResponse((body) => ({
      ...(body as object),
      mergeable: 'yes',
      created_at: 'yesterday',
    }));
    await call('GET', `/repos/acme/widgets/pulls/${prNumber}`, `token ${token}`);
    let thrown = '';
    try {
      hub().assertNoViolations();
    } catch (error) {
      thrown = (error as Error).message;
    }
    expect(thrown).toContain('fakehub recorded 2 contract violation(s)');
    expect(thrown).toContain('200 response body/mergeable must be boolean');
    expect(thrown).toContain('200 response body/created_at must match format "date-time"');
    expect(hub().violations).toEqual([]);
  });
});

describe('requests', () => {
  it('answers 422 and records a body the description refuses', async () => {
    const answer = await call('POST', `/repos/acme/widgets/statuses/${sha}`, `token ${token}`, {
      state: 'green',
    });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe('Validation Failed');
    const found = hub().takeViolations();
    expect(found).toEqual([
      expect.stringContaining(
        'repos/create-commit-status: request body/state must be equal to one of the allowed values',
      ),
    ]);
    const merge = await call('PUT', `/repos/acme/widgets/pulls/${prNumber}/merge`, `token ${token}`, {
      merge_method: 'octopus',
    });
    expect(merge.status).toBe(422);
    expect(hub().takeViolations()).toEqual([
      expect.stringContaining('pulls/merge: request body/merge_method'),
    ]);
  });

  it('records undeclared query parameters, bad path parameters, bad JSON and unknown routes', async () => {
    expect(
      (await call('GET', '/repos/acme/widgets/pulls?state=open&labels=x', `token ${token}`)).status,
    ).toBe(422);
    expect((await call('GET', '/repos/acme/widgets/pulls?state=opened', `token ${token}`)).status).toBe(422);
    expect((await call('GET', '/repos/acme/widgets/pulls/abc', `token ${token}`)).status).toBe(422);
    expect(
      (await call('POST', `/repos/acme/widgets/statuses/${sha}`, `token ${token}`, '{"state":')).status,
    ).toBe(400);
    expect((await call('GET', '/repos/acme/widgets/branches', `token ${token}`)).status).toBe(404);
    const found = hub().takeViolations();
    expect(found).toEqual([
      expect.stringContaining('query parameter labels is not declared by pulls/list'),
      expect.stringContaining('query parameter state must be equal to one of the allowed values'),
      expect.stringContaining('path parameter pull_number must be integer'),
      expect.stringContaining('the request body is not JSON'),
      'GET /repos/acme/widgets/branches matches no operation of the contract subset',
    ]);
  });

  it('records the wrong credential kind, and never a credential in a violation', async () => {
    const jwt = signAppJwt(hub().app);
    await call('GET', '/repos/acme/widgets', `Bearer ${jwt}`);
    await call('GET', '/repos/acme/widgets/installation', `token ${token}`);
    const found = hub().takeViolations();
    expect(found).toEqual([
      "repos/get needs an installation token; the request carried the App's JWT",
      "apps/get-repo-installation needs the App's JWT; the request carried an installation token",
    ]);
    expect(found.join('\n')).not.toContain(token);
    expect(found.join('\n')).not.toContain(jwt);
  });
});
