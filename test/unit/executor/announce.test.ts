/**
 * The executor's announce at start (executor/announce.ts): asked again with backoff until the API
 * answers, a refused credential at once, given up with the reason; failures logged once in a while.
 */
import { announceUntilAnswered } from '../../../executor/announce';
import { ApiUnanswered, ExecutorRefused } from '../../../executor/api-client';

/** A clock that moves only when the announce sleeps, and the sleeps it asked for. */
function fakeTime() {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms: number) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

const down = new ApiUnanswered(
  'announcing this executor at http://lb:8080 failed: fetch failed (other side closed)',
);

test('an API that answers after failures: backoff 0.5 s to 5 s, the first failure and then one each 30 s logged with the reason', async () => {
  const time = fakeTime();
  const logs: string[] = [];
  let calls = 0;
  const name = await announceUntilAnswered({
    announce: () => (++calls < 12 ? Promise.reject(down) : Promise.resolve('exec-1')),
    apiUrl: 'http://lb:8080',
    log: (m) => logs.push(m),
    sleep: time.sleep,
    now: time.now,
  });
  expect(name).toBe('exec-1');
  expect(time.slept).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000, 5000, 5000]);
  expect(logs).toEqual([
    `not announced to http://lb:8080 yet (attempt 1, 0 s), asking again: ${down.message}`,
    `not announced to http://lb:8080 yet (attempt 10, 33 s), asking again: ${down.message}`,
    'announced to http://lb:8080 after 12 attempts',
  ]);
});

test('an API that answers at once: nothing logged', async () => {
  const logs: string[] = [];
  await expect(
    announceUntilAnswered({
      announce: () => Promise.resolve('exec-1'),
      apiUrl: 'http://a',
      log: (m) => logs.push(m),
    }),
  ).resolves.toBe('exec-1');
  expect(logs).toEqual([]);
});

test('a refused credential stops at once, unchanged', async () => {
  const time = fakeTime();
  const refused = new ExecutorRefused('The executor credential is not valid or has been revoked.');
  await expect(
    announceUntilAnswered({
      announce: () => Promise.reject(refused),
      apiUrl: 'http://a',
      log: () => undefined,
      ...time,
    }),
  ).rejects.toBe(refused);
  expect(time.slept).toEqual([]);
});

test('an API that never answers: given up after the attempts, saying how long and the last reason', async () => {
  const time = fakeTime();
  await expect(
    announceUntilAnswered({
      announce: () => Promise.reject(down),
      apiUrl: 'http://lb:8080',
      log: () => undefined,
      giveUpAfter: 60,
      ...time,
    }),
  ).rejects.toThrow(
    `the API at http://lb:8080 did not answer the announce in 60 attempts over 283 s; the last: ${down.message}`,
  );
  expect(time.slept).toHaveLength(59);
});
