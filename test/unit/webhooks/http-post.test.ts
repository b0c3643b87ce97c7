/**
 * One HTTP attempt against a real local server: the answer is reported as data; loopback is refused
 * at connection time unless allowed (also behind a name, via the guarded DNS lookup); a redirect is
 * not followed; a receiver that does not answer in time is "unreachable".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../../../webhooks/http-post';

let server: http.Server;
let base: string;
const bodies: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      if (req.url === '/redirect') return res.writeHead(302, { location: '/ok' }).end();
      if (req.url === '/never') return;
      if (req.url === '/big') return res.writeHead(200).end('x'.repeat(5000));
      res.writeHead(req.url === '/ok' ? 204 : 418).end(`answer for ${req.url ?? ''}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

const opts = { timeoutMs: 2_000, allowPrivate: true, userAgent: 'test' };

test('the answer comes back as data, body included; the payload arrives as sent', async () => {
  expect(await postWebhook(`${base}/ok`, '{"a":"é"}', { 'svix-id': 'msg_1' }, opts)).toEqual({
    kind: 'answered',
    statusCode: 204,
    body: '',
  });
  expect(bodies.at(-1)).toBe('{"a":"é"}');
  expect(await postWebhook(`${base}/teapot`, '{}', {}, opts)).toEqual({
    kind: 'answered',
    statusCode: 418,
    body: 'answer for /teapot',
  });
});

test('only the first KiB of an answer is kept', async () => {
  const result = await postWebhook(`${base}/big`, '{}', {}, opts);
  expect(result.kind === 'answered' && result.body.length).toBe(1024);
});

test('a redirect is an answer, not followed', async () => {
  const before = bodies.length;
  expect(await postWebhook(`${base}/redirect`, '{}', {}, opts)).toMatchObject({
    kind: 'answered',
    statusCode: 302,
  });
  expect(bodies.length).toBe(before + 1);
});

test('loopback is refused unless allowed: as an IP literal and behind a name', async () => {
  const strict = { ...opts, allowPrivate: false };
  const before = bodies.length;
  expect(await postWebhook(`${base}/ok`, '{}', {}, strict)).toEqual({
    kind: 'refused',
    reason: 'The URL points at a private or loopback address, which this server does not allow.',
  });
  const port = (server.address() as AddressInfo).port;
  expect(await postWebhook(`http://localhost:${port}/ok`, '{}', {}, strict)).toEqual({
    kind: 'refused',
    reason: "The URL's host localhost resolves to a private address, which this server does not allow.",
  });
  expect(bodies.length).toBe(before);
});

test('no answer within the deadline → unreachable; a closed port → unreachable', async () => {
  expect(await postWebhook(`${base}/never`, '{}', {}, { ...opts, timeoutMs: 200 })).toEqual({
    kind: 'unreachable',
    error: 'No answer within 200 ms.',
  });
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  expect(await postWebhook(`http://127.0.0.1:${port}/`, '{}', {}, opts)).toMatchObject({
    kind: 'unreachable',
  });
});

test('the check runs at connect time on what the name resolves to, IPv6 forms of loopback included', async () => {
  const port = (server.address() as AddressInfo).port;
  const asked: string[] = [];
  const resolvingTo = (addresses: string[]) => (host: string) => {
    asked.push(host);
    return Promise.resolve(addresses);
  };
  // The socket connects where the given resolver says: hook.test exists nowhere else.
  const allowed = { ...opts, lookup: resolvingTo(['127.0.0.1']) };
  expect(await postWebhook(`http://hook.test:${port}/ok`, '{}', {}, allowed)).toMatchObject({
    kind: 'answered',
    statusCode: 204,
  });
  const before = bodies.length;
  for (const disguised of [
    ['::ffff:127.0.0.1'],
    ['::ffff:7f00:1'],
    ['::ffff:0:7f00:1'],
    ['64:ff9b::7f00:1'],
    ['64:ff9b:1::808:808'],
    ['2002:7f00:1::'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['93.184.216.34', '::ffff:7f00:1'],
  ]) {
    const strict = { ...opts, allowPrivate: false, lookup: resolvingTo(disguised) };
    expect(await postWebhook(`http://hook.test:${port}/ok`, '{}', {}, strict)).toEqual({
      kind: 'refused',
      reason: "The URL's host hook.test resolves to a private address, which this server does not allow.",
    });
  }
  expect(bodies.length).toBe(before);
  expect(asked).toEqual(Array<string>(9).fill('hook.test'));
});
