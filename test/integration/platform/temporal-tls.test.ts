/**
 * railyard against a secured Temporal (issue 27): the real worker process and the API's Temporal
 * gateway reach the real dev server through a TLS terminator that demands a client certificate from a
 * self-made CA (what a self-hosted cluster with mTLS does), with Temporal's own variables
 * (platform/temporal-security.ts). A client without a certificate, or trusting another CA, is refused.
 * API keys (Temporal Cloud): a TLS gRPC endpoint records what the API's client and the worker's native
 * connection send, and each sends `authorization: Bearer <key>`, never in clear.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http2 from 'node:http2';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import fs from 'node:fs';
import { NativeConnection } from '@temporalio/worker';
import { createTemporalGateway } from '../../../queue-client';
import { temporalSecurity, type TemporalSecuritySettings } from '../../../platform/temporal-security';
import { freePort } from '../../../scripts/lib/ports';
import { tsNode } from '../../../scripts/lib/ts-node';
import { requireTestEnv } from '../../support/env';
import { makeTestCerts, type TestCerts } from '../../support/tls-certs';

jest.setTimeout(120_000);
const ROOT = path.resolve(__dirname, '..', '..', '..');

let certs: TestCerts;
let terminator: tls.Server;
let terminatorAddress: string;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  certs = makeTestCerts(fs.mkdtempSync(path.join(requireTestEnv('TEST_TMP'), 'tls-')));
  const [host, port] = requireTestEnv('TEST_TEMPORAL_ADDRESS').split(':') as [string, string];
  // TLS in front, plaintext gRPC behind: the dev server itself speaks no TLS.
  terminator = tls.createServer(
    {
      key: fs.readFileSync(certs.serverKey),
      cert: fs.readFileSync(certs.serverCert),
      ca: fs.readFileSync(certs.ca),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (socket) => {
      const upstream = net.connect(Number(port), host);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    },
  );
  terminator.on('tlsClientError', () => undefined); // the refused clients below
  const tlsPort = await freePort();
  await new Promise<void>((resolve) => terminator.listen(tlsPort, '127.0.0.1', resolve));
  terminatorAddress = `127.0.0.1:${tlsPort}`;
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await new Promise((resolve) => terminator.close(resolve));
});

const mtls = (): TemporalSecuritySettings => ({
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca,
  TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
  TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
  TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
});

function gateway(settings: TemporalSecuritySettings, taskQueue = 'tls-none', callTimeoutMs = 60_000) {
  const g = createTemporalGateway({
    address: terminatorAddress,
    security: temporalSecurity(settings),
    namespace: 'default',
    taskQueue,
    callTimeoutMs,
  });
  closers.push(() => g.close());
  return g;
}

function startWorker(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let out = '';
  const child = spawn(...tsNode('worker/main.ts'), { cwd: ROOT, env: { ...process.env, ...env } });
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  closers.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  return { child, output: () => out };
}

test('the real worker and the API gateway work through mTLS: the ping workflow makes the round trip', async () => {
  const taskQueue = `tls-${Date.now()}`;
  const worker = startWorker({
    DATABASE_URL: requireTestEnv('TEST_DATABASE_URL'),
    TEMPORAL_ADDRESS: terminatorAddress,
    ...(mtls() as Record<string, string>),
    RAILYARD_TASK_QUEUE: taskQueue,
    RAILYARD_WORKER_METRICS_PORT: '0',
    RAILYARD_SHUTDOWN_GRACE_SECONDS: '2',
    RAILYARD_WORKFLOW_BUNDLE: requireTestEnv('TEST_WORKFLOW_BUNDLE'),
  });
  const g = gateway(mtls(), taskQueue);
  await g.ping();
  await expect(g.pingWorker()).resolves.toBeUndefined();
  expect(worker.output()).toContain(`Temporal at ${terminatorAddress} (TLS, own CA, client certificate)`);
});

test('without a client certificate, or trusting another CA, the connection is refused', async () => {
  const noCert = gateway(
    { TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca, TEMPORAL_TLS_SERVER_NAME: 'temporal.test' },
    'x',
    3_000,
  );
  await expect(noCert.ping()).rejects.toThrow();
  const otherCa = gateway({ ...mtls(), TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.otherCa }, 'x', 2_000);
  await expect(otherCa.ping()).rejects.toThrow();
});

test('a worker given only half a client certificate stops with a sentence naming the variable', async () => {
  const worker = startWorker({
    DATABASE_URL: 'postgres://x@127.0.0.1/x',
    TEMPORAL_ADDRESS: terminatorAddress,
    TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
  });
  const code = await new Promise<number | null>((resolve) => worker.child.on('exit', resolve));
  expect(code).toBe(1);
  expect(worker.output()).toContain(
    'TEMPORAL_TLS_CLIENT_CERT_PATH is set without TEMPORAL_TLS_CLIENT_KEY_PATH: a client certificate needs its key.',
  );
});

test('an API key is sent as a bearer token over TLS by the API client and by the worker connection', async () => {
  const seen: (string | undefined)[] = [];
  const endpoint = http2.createSecureServer({
    key: fs.readFileSync(certs.serverKey),
    cert: fs.readFileSync(certs.serverCert),
    ALPNProtocols: ['h2'],
  });
  endpoint.on('stream', (stream, headers) => {
    seen.push(headers.authorization);
    // A gRPC answer with no body: UNIMPLEMENTED, enough to end the call.
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () =>
      stream.sendTrailers({ 'grpc-status': '12', 'grpc-message': 'fake endpoint' }),
    );
    stream.end();
  });
  const port = await freePort();
  await new Promise<void>((resolve) => endpoint.listen(port, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => endpoint.close(() => resolve())));
  const settings = {
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca,
    TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
    TEMPORAL_API_KEY: 'the-api-key',
  };

  const g = createTemporalGateway({
    address: `127.0.0.1:${port}`,
    security: temporalSecurity(settings),
    namespace: 'default',
    taskQueue: 'x',
    callTimeoutMs: 3_000,
  });
  closers.push(() => g.close());
  await g.ping().catch(() => undefined); // the fake answers UNIMPLEMENTED: only the request matters
  expect(seen.length).toBeGreaterThan(0);
  expect(new Set(seen)).toEqual(new Set(['Bearer the-api-key']));

  seen.length = 0;
  await NativeConnection.connect({ address: `127.0.0.1:${port}`, ...temporalSecurity(settings) })
    .then((c) => c.close())
    .catch(() => undefined);
  expect(seen.length).toBeGreaterThan(0);
  expect(new Set(seen)).toEqual(new Set(['Bearer the-api-key']));
});
