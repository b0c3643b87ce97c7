/**
 * When calls.ts waits on an update again after its deadline: only while its workflow moves (`moving`
 * answers true), holding the update's slot, within the busy budget; a workflow that does not move, a
 * `moving` that fails or a caller without one is `unavailable` at once. The connection is the client's
 * own (Connection.lazy, never dialled): each attempt here fails the way @grpc/grpc-js fails a call
 * whose deadline passed, so the rule is checked without waiting.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { createTemporalCalls, UPDATE_SLOTS } from '../../../queue-client/calls';
import { isQueueProblem } from '../../../queue-client/errors';

const deadlineExceeded = () =>
  Object.assign(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded'), {
    code: status.DEADLINE_EXCEEDED,
    details: 'Deadline exceeded',
    metadata: new Metadata(),
  });

let client: Client;
beforeAll(() => {
  client = new Client({ connection: Connection.lazy() });
});

const calls = (busyBudgetMs = 60_000) =>
  createTemporalCalls(client, { namespace: 'default', callTimeoutMs: 10_000, busyBudgetMs });

/** An update that reaches its deadline `late` times, then answers 'applied'. */
function lateUpdate(late: number) {
  let attempts = 0;
  return {
    get attempts() {
      return attempts;
    },
    send: () => {
      attempts++;
      return attempts <= late ? Promise.reject(deadlineExceeded()) : Promise.resolve('applied');
    },
  };
}

/** `moving` answering in turn (the last answer repeats); an Error is a question Temporal failed. */
function answers(...seq: (boolean | Error)[]) {
  let asked = 0;
  return {
    get asked() {
      return asked;
    },
    moving: () => {
      const next = seq[Math.min(asked++, seq.length - 1)]!;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  };
}

const unavailable = (err: unknown) => isQueueProblem(err, 'unavailable');

test('an update past its deadline while its queue moves is waited on again, and answers', async () => {
  const update = lateUpdate(3);
  const queue = answers(true);
  const answer = await calls().call('submit', update.send, { updateOf: 'q', moving: queue.moving });
  expect(answer).toBe('applied');
  expect(update.attempts).toBe(4);
  // Asked once per deadline, never before one.
  expect(queue.asked).toBe(3);
});

test('a queue too busy to be described (RESOURCE_EXHAUSTED) is moving', async () => {
  const busy = Object.assign(new Error('8 RESOURCE_EXHAUSTED: Workflow is busy.'), {
    code: status.RESOURCE_EXHAUSTED,
    details: 'Workflow is busy.',
    metadata: new Metadata(),
  });
  const update = lateUpdate(2);
  const queue = answers(busy);
  await expect(calls().call('submit', update.send, { updateOf: 'q', moving: queue.moving })).resolves.toBe(
    'applied',
  );
  expect(queue.asked).toBe(2);
});

test('a queue that stops moving ends the wait: unavailable at that deadline', async () => {
  const update = lateUpdate(5);
  const queue = answers(true, true, false);
  const err = await calls()
    .call('submit', update.send, { updateOf: 'q', moving: queue.moving })
    .catch((e: unknown) => e);
  expect(unavailable(err)).toBe(true);
  expect(update.attempts).toBe(3);
});

test.each([
  ['a queue not moving (no worker took its task, or it keeps failing)', false],
  ['a queue that cannot be asked (Temporal is gone)', new Error('14 UNAVAILABLE: connection refused')],
])('%s is unavailable at the first deadline', async (_, answer) => {
  const update = lateUpdate(5);
  const err = await calls()
    .call('submit', update.send, { updateOf: 'q', moving: answers(answer).moving })
    .catch((e: unknown) => e);
  expect(unavailable(err)).toBe(true);
  expect(update.attempts).toBe(1);
});

test('a call without `moving` (a query, a start) is unavailable at its deadline, as before', async () => {
  const update = lateUpdate(5);
  const err = await calls()
    .call('getQueue', update.send, { queryOf: 'q' })
    .catch((e: unknown) => e);
  expect(unavailable(err)).toBe(true);
  expect(update.attempts).toBe(1);
});

test('the busy budget bounds the waiting: a budget too short for another wait ends it', async () => {
  // 10 s call timeout, so the budget is 10 s too; the first attempt leaves under a second of it.
  const started = Date.now();
  let attempts = 0;
  const send = () => {
    // The first attempt "took" most of the budget: the clock is moved on before it fails.
    if (++attempts === 1) jest.setSystemTime(started + 9_500);
    return Promise.reject(deadlineExceeded());
  };
  const queue = answers(true);
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'], now: started });
  try {
    const err = await calls(10_000)
      .call('submit', send, { updateOf: 'q', moving: queue.moving })
      .catch((e: unknown) => e);
    expect(unavailable(err)).toBe(true);
    expect(attempts).toBe(1);
    expect(queue.asked).toBe(0);
  } finally {
    jest.useRealTimers();
  }
});

test('a waited-on update keeps its slot: the calls behind it wait, and get it when it answers', async () => {
  const c = calls();
  let releaseLate!: () => void;
  const gate = new Promise<void>((r) => (releaseLate = r));
  const order: string[] = [];
  // UPDATE_SLOTS updates that each reach a deadline once, then wait on `gate`.
  const late = Array.from({ length: UPDATE_SLOTS }, (_, i) => {
    let n = 0;
    return c.call(
      'submit',
      async () => {
        if (++n === 1) throw deadlineExceeded();
        await gate;
        order.push(`late-${i}`);
        return i;
      },
      { updateOf: 'q', moving: answers(true).moving },
    );
  });
  const behind = c.call(
    'submit',
    () => {
      order.push('behind');
      return Promise.resolve(-1);
    },
    { updateOf: 'q' },
  );
  await new Promise((r) => setTimeout(r, 20));
  expect(order).toEqual([]);
  releaseLate();
  await Promise.all([...late, behind]);
  expect(order).toHaveLength(UPDATE_SLOTS + 1);
  expect(order.at(-1)).toBe('behind');
});
