/**
 * The `github` git host against fakehub when the installation token it holds stops working (expired
 * early or revoked) and the next thing it does is git, not REST (whose client drops a refused token
 * itself): a fetch of a commit the mirror lacks (reading a file, a checkout). It must work with a fresh
 * token, not fail on the dead one again and again on every retry of the activity. (Pushes always come
 * after a REST read of the same installation, which already replaced the token.)
 */
import type { GitHost } from '../../../git/git-host';
import type { RepositoryKey } from '../../../contract';
import { useFakeHub, type WorkClone } from '../../support/fakehub';
import { useGitHubHostFixture } from '../../support/github-host-fixture';

const hub = useFakeHub();
const fixture = useGitHubHostFixture(hub, 'tokens');
let repo: RepositoryKey;
let clone: WorkClone;
let host: GitHost;

beforeAll(async () => {
  ({ repo, clone, host } = fixture());
  await clone.push(await clone.commit({ 'README.md': 'tokens\n' }), 'main');
  // The host holds a token now (and the mirror has main).
  expect((await host.readBranchTip(repo, 'main')).kind).toBe('found');
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
