/**
 * The executor's API client when the API's connection is closed unanswered (issue 27: a load balancer
 * with no API behind it yet). Run in a process of its own, as the executor is: every request must
 * settle (ApiUnanswered, naming the request and why; a report given up) and hold the process until it
 * does. Before the fix the first fetch stayed unsettled with nothing holding the event loop, and the
 * process exited with code 0 having printed nothing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { tsNode } from '../../../scripts/lib/ts-node';

const ROOT = path.resolve(__dirname, '..', '..', '..');

// Each request against the address in argv, one line of outcome each; a short deadline, as the first
// request of a process can wait for it. CommonJS, as the executor runs: the requests in an async
// function nothing else holds, so a request left unsettled lets the process exit with nothing printed.
const SCRIPT = `
import { createExecutorApi } from ${JSON.stringify(path.join(ROOT, 'executor', 'api-client.ts'))};
const api = createExecutorApi({
  apiUrl: process.argv[2], credential: 'rye_x', requestTimeoutMs: 1_000, reportRetryMs: 0,
});
const said = (what, p) =>
  p.then((v) => console.log(what, 'settled', JSON.stringify(v)), (e) => console.log(what, 'threw', e.name, e.message));
void (async () => {
  await said('announce', api.announce({ host: 'h', slots: 1, sandbox: 'UNSANDBOXED', network: 'off' }));
  await said('claim', api.claim());
  await said('heartbeat', api.heartbeat('job-1'));
  await said('report', api.report('job-1', new Uint8Array([1])));
  await said('fail', api.fail('job-1', { kind: 'executor_error', message: 'x' }));
})();
`;

test('every request to an API whose connections close unanswered settles with the reason, holding the process until it does', async () => {
  const closer = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => closer.listen(0, '127.0.0.1', resolve));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-client-'));
  const script = path.join(dir, 'requests.ts');
  fs.writeFileSync(script, SCRIPT);
  try {
    const [command, args] = tsNode(script, `http://127.0.0.1:${(closer.address() as net.AddressInfo).port}`);
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const unanswered = (what: string) =>
      new RegExp(
        `^${what} threw ApiUnanswered ${what === 'announce' ? 'announcing this executor' : '.+'}` +
          '(: http://127\\.0\\.0\\.1:\\d+ gave no answer within \\d+ ms| at http://127\\.0\\.0\\.1:\\d+ failed: fetch failed \\(.+\\))$',
        'm',
      );
    expect(out).toMatch(unanswered('announce'));
    expect(out).toMatch(unanswered('claim'));
    expect(out).toMatch(unanswered('heartbeat'));
    expect(out).toMatch(
      /^report settled {"kind":"refused","status":0,"message":"the API did not take it in time"}$/m,
    );
    expect(out).toMatch(
      /^fail settled {"kind":"refused","status":0,"message":"the API did not take it in time"}$/m,
    );
    expect(code).toBe(0);
  } finally {
    closer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // A hang guard: 1.5 s alone; once past 30 s at load 12 beside a full run.
}, 90_000);
