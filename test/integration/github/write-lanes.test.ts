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

test('with two writing processes each paces an installation at twice the interval, also after the count changes', async () => {
  // Lane x: 1,000 ms, one writer. Lane y: 700 ms, a writer count that becomes 2 after its first write
  // (its limiter already exists then): 1,400 ms. y's second write must arrive after x's second; paced
  // at 700 ms it would arrive before it.
  let writers = 1;
  const x = await createGitHubClients({ apiUrl: apiUrl() }, auth, { writeIntervalMs: 1_000, lane: 'x' });
  const y = await createGitHubClients({ apiUrl: apiUrl() }, auth, {
    writeIntervalMs: 700,
    lane: 'y',
    writers: () => writers,
  });
  const [onX, onY] = [await x.forInstallation(1), await y.forInstallation(2)];
  await write(onY, 0);
  writers = 2;
  await new Promise((r) => setTimeout(r, 1_500)); // y's window from its first write has passed
  arrivals.splice(0);
  await Promise.all([
    (async () => {
      await write(onX, 1);
      await write(onX, 2);
    })(),
    (async () => {
      await write(onY, 3);
      await write(onY, 4);
    })(),
  ]);
  expect(arrivals.indexOf('t1 /repos/o/r/statuses/s2')).toBeLessThan(
    arrivals.indexOf('t2 /repos/o/r/statuses/s4'),
  );
});
