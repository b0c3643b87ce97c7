/**
 * activities/heartbeat.ts: an activity heartbeats while its work runs and stops when it ends (so a
 * killed worker's call is retried after the heartbeat timeout), work shorter than one interval sends
 * none, and outside an activity the work just runs.
 */
import { DefaultLogger } from '@temporalio/worker';
import { MockActivityEnvironment } from '@temporalio/testing';
import { heartbeating, whileHeartbeating } from '../../../activities/heartbeat';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function environment() {
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  let beats = 0;
  const waiting: { n: number; resolve: () => void }[] = [];
  env.on('heartbeat', () => {
    beats++;
    for (const w of waiting.filter((w) => beats >= w.n)) w.resolve();
  });
  return {
    env,
    beats: () => beats,
    /** Resolves once `n` beats were sent. */
    beaten: (n: number) => new Promise<void>((resolve) => waiting.push({ n, resolve })),
  };
}

test('beats while the work runs, and not after it ended', async () => {
  const { env, beats, beaten } = environment();
  // The work ends only after three beats.
  const result = await env.run(() => whileHeartbeating(() => beaten(3).then(() => 'done'), 10));
  expect(result).toBe('done');
  const atEnd = beats();
  expect(atEnd).toBeGreaterThanOrEqual(3);
  await sleep(60);
  expect(beats()).toBe(atEnd);
});

test('work shorter than one interval sends no heartbeat; a failure passes through', async () => {
  const { env, beats } = environment();
  await expect(env.run(() => whileHeartbeating(() => Promise.resolve(7), 60_000))).resolves.toBe(7);
  await expect(
    env.run(() => whileHeartbeating(() => Promise.reject(new Error('git failed')), 60_000)),
  ).rejects.toThrow('git failed');
  expect(beats()).toBe(0);
});

test('outside an activity the work just runs; heartbeating() keeps the arguments and the result', async () => {
  const add = heartbeating((a: number, b: number) => Promise.resolve(a + b), 10);
  await expect(add(2, 3)).resolves.toBe(5);
});
