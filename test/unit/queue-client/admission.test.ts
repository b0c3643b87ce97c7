/**
 * The admission watcher batches every submission waiting on one queue into one query per tick, keeps
 * asking about the pending ones, and never strands a waiter that arrives while a query is in flight.
 */
import { createAdmissionWatcher } from '../../../queue-client/admission';
import type { AdmissionState } from '../../../contract';

function stub(answer: (ids: string[], call: number) => Record<string, AdmissionState>, queryMs = 0) {
  const calls: string[][] = [];
  const temporal = {
    busyBudgetMs: 5_000,
    call: <T>(_what: string, fn: () => Promise<T>) => fn(),
    client: {
      workflow: {
        getHandle: () => ({
          query: async (_def: unknown, ids: string[]) => {
            calls.push(ids);
            const n = calls.length;
            if (queryMs > 0) await new Promise((r) => setTimeout(r, queryMs));
            return answer(ids, n);
          },
        }),
      },
    },
  };
  return { watcher: createAdmissionWatcher(temporal as never), calls };
}

const all = (ids: string[], state: AdmissionState) => Object.fromEntries(ids.map((id) => [id, state]));

test('twenty waiters on one queue are answered by one query', async () => {
  const { watcher, calls } = stub((ids) => all(ids, { state: 'settled' }));
  const ids = Array.from({ length: 20 }, (_, i) => `s-${i}`);
  const outcomes = await Promise.all(ids.map((id) => watcher.wait('queue/a', id)));
  expect(outcomes.every((o) => o.state === 'settled')).toBe(true);
  expect(calls).toEqual([ids]);
});

test('different queues are polled separately', async () => {
  const { watcher, calls } = stub((ids) => all(ids, { state: 'settled' }));
  await Promise.all([watcher.wait('queue/a', 'x'), watcher.wait('queue/b', 'y')]);
  expect(calls.sort()).toEqual([['x'], ['y']]);
});

test('pending submissions are asked about again; settled and rejected ones answer at once', async () => {
  const { watcher, calls } = stub((ids, n) =>
    Object.fromEntries(
      ids.map((id): [string, AdmissionState] => [
        id,
        id === 'slow' && n < 3
          ? { state: 'pending' }
          : id === 'bad'
            ? { state: 'rejected', rejection: 'not_found', message: 'no such PR' }
            : { state: 'settled' },
      ]),
    ),
  );
  const [slow, bad, ok] = await Promise.all([
    watcher.wait('queue/a', 'slow'),
    watcher.wait('queue/a', 'bad'),
    watcher.wait('queue/a', 'ok'),
  ]);
  expect(slow).toEqual({ state: 'settled' });
  expect(bad).toEqual({ state: 'rejected', rejection: 'not_found', message: 'no such PR' });
  expect(ok).toEqual({ state: 'settled' });
  expect(calls).toEqual([['slow', 'bad', 'ok'], ['slow'], ['slow']]);
});

test('a waiter arriving while a query is in flight is asked about on the next tick', async () => {
  const { watcher, calls } = stub((ids) => all(ids, { state: 'settled' }), 50);
  const first = watcher.wait('queue/a', 'one');
  await new Promise((r) => setTimeout(r, 40)); // the first query is now in flight
  const second = watcher.wait('queue/a', 'two');
  await expect(Promise.all([first, second])).resolves.toHaveLength(2);
  expect(calls).toEqual([['one'], ['two']]);
});

test('a waiter arriving after the poller stopped starts a new one', async () => {
  const { watcher, calls } = stub((ids) => all(ids, { state: 'settled' }));
  await watcher.wait('queue/a', 'one');
  await watcher.wait('queue/a', 'two');
  expect(calls).toEqual([['one'], ['two']]);
});
