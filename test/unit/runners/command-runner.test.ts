/**
 * The command runner on real processes and a real checkout: verdicts, the log, JUnit files, and that
 * nothing it started outlives a run (timeouts and aborts kill the whole process group).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCommandRunner } from '../../../executor/command-runner';
import type { TestRunInput } from '../../../executor/test-runner';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

/** True once `pid` is gone; a zombie waiting for a reaper that is not ours counts as gone. */
async function processGone(pid: number, withinMs = 3_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      process.kill(pid, 0);
      const state = /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
      if (state === 'Z') return true;
    } catch {
      return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('command runner', () => {
  let fx: GitFixture & { base: string };
  let scratch: string;
  let workRoot: string;
  let runs = 0;

  beforeAll(async () => {
    fx = await createRepoWithMain();
    scratch = mkdtempSync(join(tmpdir(), 'railyard-runner-'));
    workRoot = join(scratch, 'work');
  });
  afterAll(() => {
    fx.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  const start = (
    command: string,
    overrides: Partial<TestRunInput> = {},
    env: Record<string, string> = {},
  ) => {
    runs += 1;
    const r = createCommandRunner({
      gitHost: fx.host,
      workRoot,
      logRoot: join(scratch, 'logs'),
      killGraceMs: 300,
      heartbeatIntervalMs: 50,
      env: { PIDFILE: join(scratch, `pid-${runs}`), ...env },
    });
    const input: TestRunInput = {
      runId: `run-${runs}`,
      repo: fx.repo,
      branchName: 'main',
      headSha: fx.base,
      command,
      timeoutMs: 20_000,
      ...overrides,
    };
    return { result: r.run(input), pidFile: join(scratch, `pid-${runs}`) };
  };
  const pidFrom = (file: string) => Number(readFileSync(file, 'utf8').trim());

  it('passes when the command exits 0, keeps the log and removes the checkout', async () => {
    const result = await start('echo "out: $(head -1 lines.txt)"; echo "err line" >&2; test -f README.md')
      .result;
    expect(result).toMatchObject({ outcome: 'passed', exitCode: 0, junitFiles: [], junitTruncated: false });
    const log = readFileSync(result.logPath, 'utf8');
    expect(log).toContain('# railyard test run run-');
    expect(log).toContain('out: a\nerr line\n');
    // The header reads in a person's units (issue 29: it said `timeout 18000000 ms`).
    expect(log).toMatch(/^# started \S+, timeout 20 s$/m);
    expect(log).toMatch(/# passed: exit code 0 after \d+(\.\d)? (ms|s);/);
    expect(readdirSync(workRoot)).toEqual([]);
  });

  // Found by the fuzz run: updateQueue with testingTimeoutMinutes 0 ("off") made every run throw, and
  // one past setTimeout's range (about 24.8 days) would have timed out at once.
  it.each([
    ['no testing timeout (0)', 0, 'timeout none'],
    ['a timeout past the timer range', 525_600 * 60_000, 'timeout 8760 h (executor maximum 24 h)'],
  ])('runs to the end with %s', async (_what, timeoutMs, logged) => {
    const result = await start('sleep 0.3; echo done', { timeoutMs }).result;
    expect(result).toMatchObject({ outcome: 'passed', exitCode: 0 });
    expect(readFileSync(result.logPath, 'utf8')).toContain(logged);
  });

  it('fails with the exit code of a failing command', async () => {
    const result = await start('echo failing; exit 3').result;
    expect(result).toMatchObject({ outcome: 'failed', exitCode: 3 });
    expect(readFileSync(result.logPath, 'utf8')).toContain('# failed: exit code 3');
  });

  it('tests exactly the given commit, without a remote to push to, and without the worker secrets', async () => {
    fx.branchFrom('feature', fx.base);
    const head = fx.commit('Add notes', { 'notes.txt': 'tested\n' });
    fx.pushBranch('railyard-merge/pr-1/x', head);
    process.env.RAILYARD_TEST_SECRET = 'do-not-leak';
    try {
      const command = [
        'test "$(git rev-parse HEAD)" = "$RAILYARD_SHA"',
        'test -z "$(git remote)"',
        'test -z "$RAILYARD_TEST_SECRET"',
        'test "$CI" = true',
        'cat notes.txt',
      ].join(' && ');
      const result = await start(command, { headSha: head, branchName: 'railyard-merge/pr-1/x' }).result;
      expect(result.outcome).toBe('passed');
      expect(readFileSync(result.logPath, 'utf8')).toContain('tested');
    } finally {
      delete process.env.RAILYARD_TEST_SECRET;
    }
  });

  // Issue 28: a flaky retry or a bisection run tells the command which tests it may run alone.
  it('gives the command the tests to run alone in RAILYARD_ONLY_TESTS, one per line, and nothing otherwise', async () => {
    const only = await start('printf "[%s]" "$RAILYARD_ONLY_TESTS"', {
      onlyTests: ['calc › divides', 'net retries'],
    }).result;
    expect(readFileSync(only.logPath, 'utf8')).toContain('[calc › divides\nnet retries]');
    const all = await start('echo "set=${RAILYARD_ONLY_TESTS+yes}"').result;
    expect(readFileSync(all.logPath, 'utf8')).toContain('set=\n');
  });

  it('stops at the timeout and kills the whole process group (a background sleep does not survive)', async () => {
    const run = start('sleep 100 & echo $! > "$PIDFILE"; wait', { timeoutMs: 500 });
    const result = await run.result;
    expect(result.outcome).toBe('timeout');
    expect(result.durationMs).toBeLessThan(5_000);
    expect(await processGone(pidFrom(run.pidFile))).toBe(true);
    expect(readFileSync(result.logPath, 'utf8')).toContain('# timeout: stopped at the testing timeout');
  });

  it('kills a child that ignores SIGTERM once the grace period is over', async () => {
    const run = start(`bash -c 'trap "" TERM; sleep 100' & echo $! > "$PIDFILE"; wait`, { timeoutMs: 300 });
    const result = await run.result;
    expect(result.outcome).toBe('timeout');
    expect(await processGone(pidFrom(run.pidFile))).toBe(true);
  });

  it('is cancelled through its abort signal', async () => {
    const controller = new AbortController();
    const run = start('sleep 100 & echo $! > "$PIDFILE"; wait', { signal: controller.signal });
    await waitFor(() => existsSync(run.pidFile));
    controller.abort();
    const result = await run.result;
    expect(result).toMatchObject({ outcome: 'cancelled', exitCode: null });
    expect(await processGone(pidFrom(run.pidFile))).toBe(true);
  });

  it('is cancelled when the abort comes while the checkout is being made', async () => {
    const controller = new AbortController();
    const gitHost = {
      checkout: async (input: Parameters<typeof fx.host.checkout>[0]) => {
        await fx.host.checkout(input);
        controller.abort();
      },
    };
    const r = createCommandRunner({ gitHost, workRoot, logRoot: join(scratch, 'logs'), killGraceMs: 300 });
    const started = Date.now();
    const result = await r.run({
      runId: 'abort-during-checkout',
      repo: fx.repo,
      branchName: 'main',
      headSha: fx.base,
      command: 'sleep 100',
      timeoutMs: 20_000,
      signal: controller.signal,
    });
    expect(result.outcome).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('does not start a run whose signal is already aborted', async () => {
    const result = await start('touch "$PIDFILE"', { signal: AbortSignal.abort() }).result;
    expect(result.outcome).toBe('cancelled');
  });

  it('sweeps background processes left behind by a command that exited', async () => {
    const run = start('sleep 100 & echo $! > "$PIDFILE"; exit 0');
    expect((await run.result).outcome).toBe('passed');
    expect(await processGone(pidFrom(run.pidFile))).toBe(true);
  });

  it('stops a command whose log outgrows the limit, as failed', async () => {
    const r = createCommandRunner({
      gitHost: fx.host,
      workRoot,
      logRoot: join(scratch, 'logs'),
      maxLogBytes: 2_000,
      killGraceMs: 300,
    });
    const result = await r.run({
      runId: 'chatty',
      repo: fx.repo,
      branchName: 'main',
      headSha: fx.base,
      command: 'while true; do echo "0123456789012345678901234567890123456789"; sleep 0.01; done',
      timeoutMs: 20_000,
    });
    expect(result.outcome).toBe('failed');
    expect(readFileSync(result.logPath, 'utf8')).toContain('# failed: stopped: log too large');
  });

  it('heartbeats while the command runs', async () => {
    const heartbeat = jest.fn();
    await start('sleep 0.4', { heartbeat }).result;
    expect(heartbeat.mock.calls.length).toBeGreaterThanOrEqual(3);
  });

  it('collects the JUnit XML files the command wrote, and no links', async () => {
    const command = [
      'mkdir -p reports build/test-results/test node_modules/dep',
      'echo "<testsuites/>" > reports/junit.xml',
      'echo "<testsuite name=\\"a\\"/>" > build/test-results/test/TEST-a.xml',
      'echo "<x/>" > other.xml',
      'echo "<x/>" > node_modules/dep/junit.xml',
      'ln -s /etc/hostname junit-link.xml',
    ].join(' && ');
    const result = await start(command).result;
    expect(result.junitFiles).toEqual([
      { path: 'build/test-results/test/TEST-a.xml', xml: '<testsuite name="a"/>\n' },
      { path: 'reports/junit.xml', xml: '<testsuites/>\n' },
    ]);
    const custom = await start('mkdir -p out && echo "<r/>" > out/results.xml', { junitGlobs: ['out/*.xml'] })
      .result;
    expect(custom.junitFiles.map((f) => f.path)).toEqual(['out/results.xml']);
  });

  it('refuses a run id that is not a plain name', async () => {
    await expect(start('true', { runId: '../escape' }).result).rejects.toThrow(/invalid runId/);
  });

  it('throws when the commit cannot be checked out (infrastructure, retried by Temporal)', async () => {
    await expect(start('true', { headSha: 'a'.repeat(40) }).result).rejects.toThrow(/is not a commit/);
    expect(readdirSync(workRoot)).toEqual([]);
  });
});
