/**
 * Writes are paced per installation and per lane (rest-client.ts): a regression test for Octokit's
 * process-wide pacing, under which one installation's burst of writes delayed every other
 * installation's, and showing PRs delayed landings. Order of arrival at a real HTTP server is what
 * is asserted (no timing bounds): with a one-second pace, a write of another installation or lane
 * arrives before the paced installation's second write.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InstallationToken } from '../../../github/app/app-auth';
import { createGitHubClients } from '../../../github/app/rest-client';

let server: Server;
const arrivals: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    arrivals.push(`${req.headers.authorization?.slice('token '.length) ?? '?'} ${req.url ?? ''}`);
    res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => arrivals.splice(0));

const auth = {
  installationToken: (id: number) =>
    Promise.resolve(new InstallationToken(`t${id}`, id, new Date(Date.now() + 3_600_000))),
  forget: () => undefined,
};
const apiUrl = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const write = (client: { request: (r: string, p: Record<string, unknown>) => Promise<unknown> }, n: number) =>
  client.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
    owner: 'o',
    repo: 'r',
    sha: `s${n}`,
    state: 'success',
  });

test("one installation's paced writes do not delay another installation's", async () => {
  const clients = await createGitHubClients({ apiUrl: apiUrl() }, auth, { writeIntervalMs: 1_000 });
  const [a, b] = [await clients.forInstallation(1), await clients.forInstallation(2)];
  const first = write(a, 1);
  await first;
  await Promise.all([write(a, 2), write(b, 3)]);
  expect(arrivals).toEqual([
    't1 /repos/o/r/statuses/s1',
    't2 /repos/o/r/statuses/s3',
    't1 /repos/o/r/statuses/s2',
  ]);
});

test("the presenter's lane does not delay the queue's writes of the same installation", async () => {
  const core = await createGitHubClients({ apiUrl: apiUrl() }, auth, { writeIntervalMs: 1_000 });
  const shown = await createGitHubClients({ apiUrl: apiUrl() }, auth, {
    writeIntervalMs: 1_000,
    lane: 'presentation',
  });
  const [queue, presenter] = [await core.forInstallation(1), await shown.forInstallation(1)];
  await write(presenter, 1);
  await Promise.all([write(presenter, 2), write(queue, 3)]);
  expect(arrivals).toEqual([
    't1 /repos/o/r/statuses/s1',
    't1 /repos/o/r/statuses/s3',
    't1 /repos/o/r/statuses/s2',
  ]);
});

test('writes of one installation in one lane are paced in order', async () => {
  const clients = await createGitHubClients({ apiUrl: apiUrl() }, auth, { writeIntervalMs: 300 });
  const a = await clients.forInstallation(7);
  await Promise.all([write(a, 1), write(a, 2), write(a, 3)]);
  expect(arrivals).toEqual([
    't7 /repos/o/r/statuses/s1',
    't7 /repos/o/r/statuses/s2',
    't7 /repos/o/r/statuses/s3',
  ]);
});
