/**
 * readUploadedFailures without a worker: a repository whose CI never uploads is answered at once (no
 * wait after every failed run), one that uploads is waited for until its upload comes or the wait ends.
 */
import { createUploadedFailuresActivity } from '../../../activities/merge-queue/uploaded-failures';

const input = {
  organisationId: '00000000-0000-4000-8000-000000000001',
  repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
  sha: 'a'.repeat(40),
};
const failure = { testId: 't1', name: 'cart › adds', flaky: true };

function activity(opts: {
  ever: boolean;
  answers: ({ uploads: number; failed: (typeof failure)[] } | null)[];
}) {
  const reads: string[] = [];
  const slept: number[] = [];
  const { readUploadedFailures } = createUploadedFailuresActivity({
    read: (_org, _repo, sha) => {
      reads.push(sha);
      return Promise.resolve(opts.answers.shift() ?? null);
    },
    uploadsEver: () => Promise.resolve(opts.ever),
    waitMs: 1_000,
    pollMs: 400,
    sleep: (ms) => {
      slept.push(ms);
      return Promise.resolve();
    },
  });
  return { readUploadedFailures, reads, slept };
}

it('a repository that never received an upload is not waited for', async () => {
  const a = activity({ ever: false, answers: [] });
  await expect(a.readUploadedFailures(input)).resolves.toEqual({ kind: 'not_uploading' });
  expect(a.reads).toEqual([]);
  expect(a.slept).toEqual([]);
});

it('a repository that uploads is read again until the upload of the commit comes', async () => {
  const a = activity({ ever: true, answers: [null, { uploads: 1, failed: [failure] }] });
  const found = await a.readUploadedFailures(input);
  expect(found).toEqual({
    kind: 'uploaded',
    uploads: 1,
    tests: [{ name: 'cart › adds', status: 'failed', quarantined: false, flaky: true }],
  });
  expect(a.reads).toEqual([input.sha, input.sha]);
  expect(a.slept).toEqual([400]);
});

it('a repository that uploads but not for this commit within the wait: none, after the wait', async () => {
  let reads = 0;
  const { readUploadedFailures } = createUploadedFailuresActivity({
    read: () => {
      reads += 1;
      return Promise.resolve(null);
    },
    uploadsEver: () => Promise.resolve(true),
    waitMs: 300,
    pollMs: 100,
  });
  const started = Date.now();
  const found = await readUploadedFailures(input);
  expect(found).toEqual({ kind: 'none', waitedSeconds: 0 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  expect(reads).toBeGreaterThanOrEqual(3);
});

it('names the wait as set, not as measured, when slow reads overshoot it', async () => {
  const { readUploadedFailures } = createUploadedFailuresActivity({
    // Each read takes most of the wait: the second ends well past it (about 1.7 s for a 1 s wait).
    read: () => new Promise((resolve) => setTimeout(() => resolve(null), 800)),
    uploadsEver: () => Promise.resolve(true),
    waitMs: 1_000,
    pollMs: 100,
  });
  const started = Date.now();
  expect(await readUploadedFailures(input)).toEqual({ kind: 'none', waitedSeconds: 1 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
});
