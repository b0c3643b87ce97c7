/**
 * `npm run preflight` (scripts/preflight.ts): its arguments, and the start-then-poll conversation with
 * the API (a fake fetch answering as /v1/queues/preflight and /v1/queues/preflight/result do).
 */
import { parsePreflightArgs, runPreflight, UsageError } from '../../../scripts/preflight';

test('arguments: the repository as <host>/<owner>/<name> (owner may hold /), the branch, --wait in seconds', () => {
  expect(parsePreflightArgs(['github.com/acme/app', 'main'])).toEqual({
    repo: { host: 'github.com', owner: 'acme', name: 'app' },
    targetBranch: 'main',
  });
  expect(parsePreflightArgs(['gitlab.com/group/sub/app', 'release/1', '--wait', '120'])).toEqual({
    repo: { host: 'gitlab.com', owner: 'group/sub', name: 'app' },
    targetBranch: 'release/1',
    waitSeconds: 120,
  });
  for (const bad of [
    [],
    ['github.com/acme/app'],
    ['acme/app', 'main'],
    ['github.com/acme/app', 'main', '--wait', '1.5'],
  ])
    expect(() => parsePreflightArgs(bad)).toThrow(UsageError);
});

test('starts, polls until done, prints the sentence and the checks; exit 1 when a check did not start', async () => {
  const calls: { path: string; body: unknown }[] = [];
  const answers = [
    { state: 'running', waitsUntil: '2026-01-01T00:05:00.000Z', result: null },
    { state: 'running', waitsUntil: null, result: null },
    {
      state: 'done',
      waitsUntil: null,
      result: {
        kind: 'missing',
        sentence: 'Required check `test` did not start.',
        started: ['lint'],
        missing: ['test'],
        draftPullRequest: { number: 7, url: 'https://github.com/acme/app/pull/7' },
      },
    },
  ];
  const fakeFetch = ((url: string, init: { body: string }) => {
    calls.push({ path: new URL(url).pathname, body: JSON.parse(init.body) });
    return Promise.resolve(new Response(JSON.stringify(answers.shift()), { status: 200 }));
  }) as unknown as typeof fetch;
  const printed: string[] = [];
  const code = await runPreflight(
    {
      api: 'http://api.test',
      key: 'k',
      fetch: fakeFetch,
      sleep: () => Promise.resolve(),
      print: (l) => printed.push(l),
    },
    { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main', waitSeconds: 60 },
  );
  expect(code).toBe(1);
  expect(calls.map((c) => c.path)).toEqual([
    '/v1/queues/preflight',
    '/v1/queues/preflight/result',
    '/v1/queues/preflight/result',
  ]);
  expect(calls[0]!.body).toMatchObject({ targetBranch: 'main', waitSeconds: 60 });
  expect(printed).toEqual([
    'preflight running; it waits for the checks until 2026-01-01T00:05:00.000Z...',
    'Required check `test` did not start.',
    '  started:     lint',
    '  not started: test',
    '  draft PR:    #7 https://github.com/acme/app/pull/7',
  ]);
});

test("the API's refusal is a usage error with its sentence", async () => {
  const fakeFetch = (() =>
    Promise.resolve(
      new Response('No merge queue exists for branch "main" of github.com/acme/app.', { status: 404 }),
    )) as unknown as typeof fetch;
  await expect(
    runPreflight(
      { api: 'http://api.test', key: 'k', fetch: fakeFetch },
      { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' },
    ),
  ).rejects.toThrow('railyard answered 404: No merge queue exists');
});
