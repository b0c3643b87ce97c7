/**
 * The command runners (platform/process-runner.ts): the broker decides every outcome exactly as the
 * direct runner does, starts again after it died, fails what was in flight when it died, keeps no idle
 * parent alive, and does not outlive its parent.
 */
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import {
  createProcessBroker,
  createDirectProcessRunner,
  type ProcessBroker,
  type ProcessOutcome,
  type ProcessRequest,
} from '../../../platform/process-runner';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const sh = (script: string, more: Partial<ProcessRequest> = {}): ProcessRequest => ({
  file: 'sh',
  args: ['-c', script],
  env,
  timeoutMs: 10_000,
  maxBuffer: 1024 * 1024,
  ...more,
});

let broker: ProcessBroker;
beforeAll(() => (broker = createProcessBroker()));
afterAll(() => broker.close());

const cases: [string, ProcessRequest, (o: ProcessOutcome) => void][] = [
  [
    'exit 0 with its output',
    sh('echo out; echo err >&2'),
    (o) => expect(o).toEqual({ kind: 'exited', exitCode: 0, stdout: 'out\n', stderr: 'err\n' }),
  ],
  [
    'another exit code is an answer, not a failure',
    sh('echo no >&2; exit 3'),
    (o) => expect(o).toEqual({ kind: 'exited', exitCode: 3, stdout: '', stderr: 'no\n' }),
  ],
  [
    'standard input is written and closed',
    { ...sh(''), file: 'cat', args: [], input: 'a message\n' },
    (o) => expect(o).toEqual({ kind: 'exited', exitCode: 0, stdout: 'a message\n', stderr: '' }),
  ],
  [
    'only the given environment',
    sh('echo "[$HOME][$ONLY]"', { env: { ...env, ONLY: 'this' } }),
    (o) => expect(o).toMatchObject({ kind: 'exited', stdout: '[][this]\n' }),
  ],
  [
    'the time limit kills',
    sh('sleep 5', { timeoutMs: 200 }),
    (o) => expect(o).toEqual({ kind: 'failed', reason: 'was killed (timeout or output limit)' }),
  ],
  [
    'the output limit kills',
    sh('head -c 100000 /dev/zero', { maxBuffer: 1000 }),
    (o) => expect(o).toMatchObject({ kind: 'failed' }),
  ],
  [
    'a missing program fails with the reason',
    { ...sh(''), file: 'no-such-program-here', args: [] },
    (o) => expect(o).toMatchObject({ kind: 'failed', reason: expect.stringContaining('ENOENT') }),
  ],
];

describe.each([
  ['direct', () => createDirectProcessRunner()],
  ['broker', () => broker],
])('%s runner', (_name, runner) => {
  test.each(cases)('%s', async (_case, request, expectation) => {
    expectation(await runner().run(request));
  });
});

test('the broker runs in a process of its own', async () => {
  const o = await broker.run(sh('echo $PPID'));
  expect(o.kind).toBe('exited');
  expect(Number(o.kind === 'exited' && o.stdout.trim())).not.toBe(process.pid);
});

test('requests in flight fail when the broker dies, and the next one starts it again', async () => {
  const own = createProcessBroker();
  const first = await own.run(sh('echo $PPID'));
  const brokerPid = Number(first.kind === 'exited' && first.stdout.trim());
  const inFlight = own.run(sh('sleep 5'));
  await new Promise((r) => setTimeout(r, 100));
  process.kill(brokerPid, 'SIGKILL');
  expect(await inFlight).toEqual({
    kind: 'failed',
    reason: expect.stringMatching(/^the process broker exited \(SIGKILL\)/),
  });
  const again = await own.run(sh('echo $PPID'));
  expect(again.kind).toBe('exited');
  expect(Number(again.kind === 'exited' && again.stdout.trim())).not.toBe(brokerPid);
  own.close();
});

it('a request made right after close goes to a new broker and is not failed by the old one ending', async () => {
  const own = createProcessBroker();
  expect((await own.run(sh('true'))).kind).toBe('exited');
  own.close(); // the old broker's exit is reported a moment later, while the next request runs
  expect(await own.run(sh('sleep 0.2; echo fine'))).toMatchObject({ kind: 'exited', stdout: 'fine\n' });
  own.close();
});

/** A node process using a broker (through tsx, as the worker does), printing the broker's pid. */
function parentScript(thenWhat: string): string {
  return [
    `const { createProcessBroker } = require(${JSON.stringify(path.join(ROOT, 'platform/process-runner.ts'))});`,
    'const b = createProcessBroker();',
    `b.run({ file: 'sh', args: ['-c', 'echo $PPID'], env: { PATH: process.env.PATH }, timeoutMs: 5000, maxBuffer: 1e6 })`,
    `  .then((o) => { console.log(o.stdout.trim()); ${thenWhat} });`,
  ].join('\n');
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('an idle broker does not keep its parent alive', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', parentScript('')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(Number(out.trim())).toBeGreaterThan(0);
});

test('the broker ends when its parent is killed', async () => {
  const parent = spawn(
    process.execPath,
    ['--import', 'tsx', '-e', parentScript('setInterval(() => {}, 1000);')],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const brokerPid = await new Promise<number>((resolve) =>
    parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
  );
  expect(alive(brokerPid)).toBe(true);
  parent.kill('SIGKILL');
  const until = Date.now() + 10_000;
  while (alive(brokerPid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  expect(alive(brokerPid)).toBe(false);
});
