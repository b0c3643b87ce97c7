/**
 * The command runner's executor limits on real processes and real checkouts (no sandbox): the
 * per-checkout disk quota, the maximum run time, the removal of whatever a command leaves behind,
 * and the options' validation.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCommandRunner, type CommandRunnerOptions } from '../../../executor/command-runner';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

describe('command runner limits', () => {
  let fx: GitFixture & { base: string };
  let scratch: string;
  let runs = 0;

  beforeAll(async () => {
    fx = await createRepoWithMain();
    scratch = mkdtempSync(join(tmpdir(), 'railyard-limits-'));
  });
  afterAll(() => {
    fx.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  const run = (command: string, timeoutMs: number, options: Partial<CommandRunnerOptions> = {}) => {
    runs += 1;
    const runner = createCommandRunner({
      gitHost: fx.host,
      workRoot: join(scratch, 'work'),
      logRoot: join(scratch, 'logs'),
      killGraceMs: 300,
      ...options,
    });
    return runner.run({
      runId: `limits-${runs}`,
      repo: fx.repo,
      branchName: 'main',
      headSha: fx.base,
      command,
      timeoutMs,
    });
  };

  it('stops a command whose checkout outgrows its disk quota, as failed, and removes the checkout', async () => {
    const result = await run(
      'i=0; while true; do i=$((i+1)); head -c 1048576 /dev/urandom > "f$i"; done',
      20_000,
      { maxDiskBytes: 8 * 1024 ** 2, diskCheckIntervalMs: 100 },
    );
    expect(result.outcome).toBe('failed');
    expect(result.durationMs).toBeLessThan(10_000);
    expect(readFileSync(result.logPath, 'utf8')).toContain(
      '# failed: stopped: checkout over its disk quota (8 MiB)',
    );
    expect(readdirSync(join(scratch, 'work'))).toEqual([]);
  });

  it('counts files and folders too: many empty files breach the quota', async () => {
    const result = await run('mkdir m && cd m && seq 1 3000 | xargs touch && sleep 30', 20_000, {
      maxDiskEntries: 1_000,
      diskCheckIntervalMs: 100,
    });
    expect(result.outcome).toBe('failed');
    expect(readFileSync(result.logPath, 'utf8')).toContain(
      'stopped: checkout over its disk quota (more than 1000 files and folders)',
    );
  });

  it('leaves a run within its quota alone', async () => {
    const result = await run('head -c 1048576 /dev/urandom > small; sleep 0.5', 20_000, {
      maxDiskBytes: 64 * 1024 ** 2,
      diskCheckIntervalMs: 50,
    });
    expect(result.outcome).toBe('passed');
  });

  it.each([
    ['no testing timeout', 0, 'timeout none (executor maximum 600 ms)'],
    ['a testing timeout above the maximum', 60_000, 'timeout 1 min (executor maximum 600 ms)'],
  ])('stops a run with %s at the executor maximum, as timeout', async (_what, timeoutMs, header) => {
    const result = await run('sleep 30', timeoutMs, { maxRunMs: 600 });
    expect(result.outcome).toBe('timeout');
    expect(result.durationMs).toBeLessThan(5_000);
    const log = readFileSync(result.logPath, 'utf8');
    expect(log).toContain(header);
    expect(log).toContain("# timeout: stopped at the executor's maximum run time (600 ms)");
  });

  it('keeps a testing timeout below the maximum, and names the maximum in minutes', async () => {
    const result = await run('sleep 30', 300, { maxRunMs: 60 * 60_000 });
    expect(result.outcome).toBe('timeout');
    const log = readFileSync(result.logPath, 'utf8');
    expect(log).toContain('# timeout: stopped at the testing timeout');
    expect(log).not.toContain('executor maximum');
  });

  it('removes a checkout holding a tree deeper than PATH_MAX', async () => {
    const result = await run('for i in $(seq 150); do mkdir x$(printf "%040d" 0) && cd x*; done', 20_000);
    expect(result.outcome).toBe('passed');
    expect(readdirSync(join(scratch, 'work'))).toEqual([]);
  });

  it.each([
    [{ maxRunMs: 0 }, /maxRunMs must be a whole number of milliseconds from 1 to 2147483647/],
    [{ maxRunMs: 2 ** 31 }, /maxRunMs must be/],
    [{ maxDiskBytes: -1 }, /maxDiskBytes must be a positive whole number/],
    [{ maxDiskEntries: 1.5 }, /maxDiskEntries must be a positive whole number/],
    [{ diskCheckIntervalMs: 0 }, /diskCheckIntervalMs must be a positive whole number/],
  ])('refuses the option %p', (options, message) => {
    expect(() =>
      createCommandRunner({ gitHost: fx.host, workRoot: scratch, logRoot: scratch, ...options }),
    ).toThrow(message);
  });
});
