/**
 * The executor's job loop (executor/job-loop.ts) while a finished run's report waits for an API (issue
 * 27: the API that handed the job out died, the others are busy or restarting): the run's heartbeats go
 * on until the report is taken, so its attempt does not time out meanwhile, and a "stop" heard then
 * does not drop the report.
 */
import type { ExecutorApi, Delivery } from '../../../executor/api-client';
import { startJobLoop } from '../../../executor/job-loop';
import type { ClaimedJob, HeartbeatAnswer } from '../../../executor/protocol';

const JOB: ClaimedJob = {
  id: '0b5c3d52-6f0e-4d0c-9d55-0a4b7f1c2e01',
  attempt: 1,
  run: {
    runId: 'run-1',
    repo: { host: 'github.com', owner: 'acme', name: 'app' },
    branchName: 'railyard-merge/pr-1/run-1',
    headSha: 'a'.repeat(40),
    command: 'true',
    timeoutMs: 60_000,
  },
};

/** Resolves once `fn` holds; throws after `bound` ms so a broken loop fails rather than hangs the file. */
async function until(what: string, fn: () => boolean, bound = 10_000): Promise<void> {
  const end = Date.now() + bound;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** An API that hands out JOB once and holds its report until `deliver` is called. */
function holdingApi(answer: () => HeartbeatAnswer) {
  let claimed = false;
  let deliver: (d: Delivery) => void = () => undefined;
  const calls = { heartbeats: 0, reports: 0 };
  const api: ExecutorApi = {
    announce: () => Promise.resolve('exec-1'),
    claim(signal) {
      if (!claimed) {
        claimed = true;
        return Promise.resolve(JOB);
      }
      return new Promise((resolve) => signal?.addEventListener('abort', () => resolve(null)));
    },
    heartbeat() {
      calls.heartbeats += 1;
      return Promise.resolve(answer());
    },
    report() {
      calls.reports += 1;
      return new Promise((resolve) => (deliver = resolve));
    },
    fail: () => Promise.reject(new Error('the run did not fail')),
  };
  return { api, calls, deliver: (d: Delivery) => deliver(d) };
}

const packed = new Uint8Array([1, 2, 3]);

test('heartbeats go on while the report waits for an API', async () => {
  const t = holdingApi(() => ({ action: 'continue' }));
  const loop = startJobLoop({
    api: t.api,
    slots: 1,
    heartbeatMs: 10,
    runJob: () => Promise.resolve({ kind: 'report', packed }),
  });
  await until('the report is sent', () => t.calls.reports === 1);
  const atReport = t.calls.heartbeats;
  await until('three heartbeats while the report waits', () => t.calls.heartbeats >= atReport + 3);
  t.deliver({ kind: 'accepted' });
  await until('the slot is free again', () => loop.running() === 0);
  await loop.stop(0);
  expect(t.calls.reports).toBe(1);
});

test('a "stop" heard while the report waits neither aborts nor drops it', async () => {
  const logs: string[] = [];
  const t = holdingApi(() => ({ action: 'stop', reason: 'gone' }));
  const loop = startJobLoop({
    api: t.api,
    slots: 1,
    heartbeatMs: 10,
    log: (m) => logs.push(m),
    runJob: () => Promise.resolve({ kind: 'report', packed }),
  });
  await until('the report is sent', () => t.calls.reports === 1);
  const atReport = t.calls.heartbeats;
  await until('a heartbeat answered "stop" while the report waits', () => t.calls.heartbeats > atReport);
  t.deliver({ kind: 'accepted' });
  await until('the slot is free again', () => loop.running() === 0);
  await loop.stop(0);
  expect(logs.filter((m) => m.includes('stopped'))).toEqual([]);
});
