/**
 * The forked-run check's answers when GitHub does not give one (the GitHub path itself is tested
 * against fakehub in test/integration/api/fork-auth.test.ts): GitHub refusing the App is
 * `not_permitted`, an error or no answer within the deadline is `unavailable`, never an acceptance.
 */
import { createForkedRunVerifier } from '../../../github/inbound/forked-runs';
import { GitHubApiError, type GitHubClients } from '../../../github/app/rest-client';

const claim = {
  installationId: 1,
  repo: { host: 'github.com', owner: 'acme', name: 'app' },
  runId: 42,
  pr: { number: 7, sha: 'a'.repeat(40) },
};

const clientsAnswering = (request: () => Promise<never>): GitHubClients => ({
  forInstallation: (installationId) => Promise.resolve({ installationId, request }),
});

test('GitHub refusing the App (403) is not_permitted', async () => {
  const verifier = createForkedRunVerifier(
    clientsAnswering(() => Promise.reject(new GitHubApiError('GET … 403', 403, 'Resource not accessible'))),
  );
  expect(await verifier.verify(claim)).toEqual({ kind: 'not_permitted' });
});

test('a GitHub error or silence is unavailable, naming no more than the status', async () => {
  const failing = createForkedRunVerifier(
    clientsAnswering(() => Promise.reject(new GitHubApiError('GET … 502', 502, null))),
  );
  expect(await failing.verify(claim)).toEqual({ kind: 'unavailable', reason: 'GitHub answered 502' });
  const silent = createForkedRunVerifier(
    clientsAnswering(() => new Promise<never>(() => undefined)),
    { deadlineMs: 50 },
  );
  expect(await silent.verify(claim)).toEqual({
    kind: 'unavailable',
    reason: 'GitHub did not answer in time',
  });
});
