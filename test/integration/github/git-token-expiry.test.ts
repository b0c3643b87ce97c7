/**
 * The `github` git host against fakehub when the installation token it holds stops working (expired
 * early or revoked) and the next thing it does is git, not REST (whose client drops a refused token
 * itself): a fetch of a commit the mirror lacks (reading a file, a checkout). It must work with a fresh
 * token, not fail on the dead one again and again on every retry of the activity. (Pushes always come
 * after a REST read of the same installation, which already replaced the token.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGitHubGitHost } from '../../../activities/git/github-git-host';
import type { GitHost } from '../../../activities/git/git-host';
import { createGitHubAppAuth } from '../../../activities/github/app-auth';
import { createGitHubClients } from '../../../activities/github/rest-client';
import type { RepositoryKey } from '../../../workflows/contract';
import { useFakeHub, workClone, type WorkClone } from '../../support/fakehub';

const hub = useFakeHub();
const repo: RepositoryKey = { host: 'github.com', owner: 'acme', name: 'tokens' };
let clone: WorkClone;
let host: GitHost;
let mirrorRoot: string;

beforeAll(async () => {
  const installationId = hub().createInstallation({ account: 'acme' }).id;
  await hub().createRepository({ installationId, owner: 'acme', name: 'tokens' });
  clone = await workClone(hub().gitUrl('acme', 'tokens'), () => hub().installationToken(installationId));
  await clone.push(await clone.commit({ 'README.md': 'tokens\n' }), 'main');
  const settings = { appId: hub().app.id, privateKey: hub().app.privateKey, apiUrl: hub().url };
  const auth = await createGitHubAppAuth(settings);
  mirrorRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-token-expiry-'));
  host = createGitHubGitHost({
    mirrorRoot,
    gitUrl: hub().url,
    installationOf: () => Promise.resolve(installationId),
    clients: await createGitHubClients(settings, auth),
    auth,
  });
  // The host holds a token now (and the mirror has main).
  expect((await host.readBranchTip(repo, 'main')).kind).toBe('found');
});

afterAll(() => {
  clone?.cleanup();
  if (mirrorRoot) fs.rmSync(mirrorRoot, { recursive: true, force: true });
});

/** Calls `fn` like an activity with retries: at most `attempts` times, returning the first success. */
async function withRetries<T>(
  attempts: number,
  fn: () => Promise<T>,
): Promise<{ value: T; failures: number }> {
  for (let failures = 0; ; failures++) {
    try {
      return { value: await fn(), failures };
    } catch (err) {
      if (failures + 1 >= attempts) throw err;
    }
  }
}

test('a fetch that meets an expired token gets a fresh one', async () => {
  const sha = await clone.commit({ 'new.txt': 'fetched with a fresh token\n' });
  await clone.push(sha, 'elsewhere');
  const from = hub().requests.length;
  hub().knobs.expireTokens();
  const read = await withRetries(3, () => host.readFileAtCommit(repo, sha, 'new.txt'));
  expect(read.value).toEqual({ kind: 'found', content: 'fetched with a fresh token\n' });
  expect(read.failures).toBe(0);
  const git = hub()
    .requests.slice(from)
    .filter((r) => r.kind === 'git');
  // git met the dead token (401), then fetched with a new one.
  expect(git.map((r) => r.status)).toContain(401);
  expect(git[git.length - 1]!.status).toBe(200);
});
