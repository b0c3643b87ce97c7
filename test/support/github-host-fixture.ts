/**
 * The `github` git host against fakehub, for integration tests of the adapter alone: an installation
 * and a repository on the fake, a developer's clone of it, and the host with its own mirror folder
 * (removed after the file). Call at the top of a test file, after `useFakeHub()`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGitHubGitHost } from '../../github/host/git-host';
import type { GitHost } from '../../git/git-host';
import { createGitHubAppAuth } from '../../github/app/app-auth';
import { createGitHubClients } from '../../github/app/rest-client';
import type { RepositoryKey } from '../../contract';
import type { FakeHub } from './fakehub';
import { workClone, type WorkClone } from './fakehub/work-clone';

export interface GitHubHostFixture {
  repo: RepositoryKey;
  installationId: number;
  clone: WorkClone;
  host: GitHost;
}

export function useGitHubHostFixture(hub: () => FakeHub, name: string): () => GitHubHostFixture {
  let fixture: GitHubHostFixture | undefined;
  let mirrorRoot: string | undefined;
  beforeAll(async () => {
    const installationId = hub().createInstallation({ account: 'acme' }).id;
    await hub().createRepository({ installationId, owner: 'acme', name });
    const clone = await workClone(hub().gitUrl('acme', name), () => hub().installationToken(installationId));
    const settings = { appId: hub().app.id, privateKey: hub().app.privateKey, apiUrl: hub().url };
    const auth = await createGitHubAppAuth(settings);
    mirrorRoot = fs.mkdtempSync(path.join(os.tmpdir(), `railyard-${name}-`));
    const host = createGitHubGitHost({
      mirrorRoot,
      gitUrl: hub().url,
      installationOf: () => Promise.resolve(installationId),
      clients: await createGitHubClients(settings, auth),
      auth,
    });
    fixture = { repo: { host: 'github.com', owner: 'acme', name }, installationId, clone, host };
  });
  afterAll(() => {
    fixture?.clone.cleanup();
    if (mirrorRoot) fs.rmSync(mirrorRoot, { recursive: true, force: true });
  });
  return () => {
    if (!fixture)
      throw new Error('the GitHub host fixture is not set up: call useGitHubHostFixture at the top');
    return fixture;
  };
}
