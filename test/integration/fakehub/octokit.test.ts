/**
 * The libraries railyard's GitHub adapter uses work against fakehub unchanged: `@octokit/auth-app`
 * signs the App JWT, finds the installation of a repository, mints an installation token, and
 * `@octokit/request` reads with it; every request they send passes the contract check.
 */
import { useFakeHub } from '../../support/fakehub';

const hub = useFakeHub();

it('authenticates as the App and reads a repository with the installation token', async () => {
  const installationId = hub().createInstallation({ account: 'acme' }).id;
  await hub().createRepository({ installationId, owner: 'acme', name: 'widgets' });
  const { createAppAuth } = await import('@octokit/auth-app');
  const { request } = await import('@octokit/request');
  const api = request.defaults({ baseUrl: hub().url });
  const auth = createAppAuth({ appId: hub().app.id, privateKey: hub().app.privateKey, request: api });

  const appToken = await auth({ type: 'app' });
  const installation = await api('GET /repos/{owner}/{repo}/installation', {
    owner: 'acme',
    repo: 'widgets',
    headers: { authorization: `bearer ${appToken.token}` },
  });
  expect(installation.data.id).toBe(installationId);

  const token = await auth({ type: 'installation', installationId });
  expect(token.token).toMatch(/^ghs_/);
  const repo = await api('GET /repos/{owner}/{repo}', {
    owner: 'acme',
    repo: 'widgets',
    headers: { authorization: `token ${token.token}` },
  });
  expect(repo.data.full_name).toBe('acme/widgets');
  expect(hub().requests.map((r) => `${r.operationId ?? '-'} ${r.status}`)).toEqual([
    'apps/get-repo-installation 200',
    'apps/create-installation-access-token 201',
    'repos/get 200',
  ]);
});
