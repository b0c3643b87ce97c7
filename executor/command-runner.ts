/**
 * The `command` test runner: checks out the tested commit into a fresh folder under the work root,
 * runs the queue's test command there with `bash -c` in its own process group — inside the sandbox of
 * sandbox.ts when `sandbox` is given (the worker always gives it unless RAILYARD_EXECUTOR_UNSANDBOXED=1)
 * — and reports the verdict with the log and the JUnit XML files the command wrote.
 *
 * Invariants:
 *  - The checkout is removed when the run ends, whatever the outcome; no process of the run survives
 *    it (the group is stopped on timeout, on abort, and swept after a normal exit).
 *  - The log `<logRoot>/<runId>.log` holds a header, the command's stdout and stderr interleaved as
 *    written, and a trailer with the verdict; it stays after the run. Output past `maxLogBytes` is not
 *    written (the log says how much was left out) and stops the run as failed (log-capture.ts).
 *  - The checkout may use at most `maxDiskBytes` of disk and `maxDiskEntries` files and folders,
 *    measured every few seconds while the command runs (disk-quota.ts); past either the run stops as
 *    failed, the trailer saying "stopped: checkout over its disk quota (…)".
 *  - No run lasts longer than `maxRunMs`, the executor's maximum: a testing timeout of 0 ("none") or
 *    above it is cut there, with the outcome `timeout` and a trailer naming the executor's maximum.
 *  - The command gets a small environment (an allow-list from the worker's, plus RAILYARD_* and
 *    CI=true), not the worker's secrets: it runs code from pull requests. In the sandbox HOME is a
 *    private folder and the allow-list is PATH and LANG only.
 */
import { appendFile, mkdir, mkdtemp, open, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { GitHost } from '../git/git-host';
import {
  collectJunitFiles,
  DEFAULT_JUNIT_GLOBS,
  DEFAULT_JUNIT_LIMITS,
  type JunitLimits,
} from './junit-files';
import { chownTree, ownObjects, removeTree } from './checkout-folder';
import { createDirectProcessRunner, type ProcessRunner } from '../platform/process-runner';
import { describeBreach, watchDiskQuota, type QuotaBreach } from './disk-quota';
import { captureOutput } from './log-capture';
import { spawnInGroup, type Exit, type GroupProcess, type SpawnOptions } from './process-group';
import { SANDBOX_HOME, sandboxedCommand, type SandboxSettings } from './sandbox';
import { humanDuration } from '../platform/human-duration';
import {
  ONLY_TESTS_ENV,
  type TestOutcome,
  type TestRunInput,
  type TestRunner,
  type TestRunResult,
} from './test-runner';

export interface CommandRunnerOptions {
  gitHost: Pick<GitHost, 'checkout'>;
  /** Checkouts are made (and removed) under this folder. */
  workRoot: string;
  /** Logs are kept here, one per run id. */
  logRoot: string;
  /** Time between SIGTERM and SIGKILL when a run is stopped. */
  killGraceMs?: number;
  heartbeatIntervalMs?: number;
  maxLogBytes?: number;
  junitLimits?: Partial<JunitLimits>;
  /** Names of worker environment variables the command may see. */
  passEnv?: readonly string[];
  /** Extra variables for the command (e.g. a package cache location). */
  env?: Record<string, string>;
  /** Run every command in this sandbox (sandbox.ts); absent: in the worker's own process tree. */
  sandbox?: SandboxSettings;
  /** The checkout's disk quota in bytes (disk-quota.ts); default 4 GiB. */
  maxDiskBytes?: number;
  /** The most files, folders and links in the checkout (bounds each measuring walk); default 500 000. */
  maxDiskEntries?: number;
  /** Pause between two measurements of the checkout; default 5 s. */
  diskCheckIntervalMs?: number;
  /** The longest any run may last, whatever its testing timeout; default 24 h, at most 2^31 − 1 ms. */
  maxRunMs?: number;
  /** Runs the checkout folder's git and file commands; default: from this process. */
  processes?: ProcessRunner;
}

export const DEFAULT_MAX_DISK_BYTES = 4 * 1024 ** 3;
export const DEFAULT_MAX_DISK_ENTRIES = 500_000;
export const DEFAULT_MAX_RUN_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_PASS_ENV = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'TERM'];
/** What a sandboxed command gets from the worker's environment; HOME is the sandbox's own. */
export const SANDBOX_PASS_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ'];

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** The longest delay setTimeout keeps (2^31 − 1 ms); a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

type StopReason = 'timeout' | 'max_run_time' | 'cancelled' | 'log_limit' | 'disk_limit';

export function createCommandRunner(options: CommandRunnerOptions): TestRunner {
  const workRoot = resolve(options.workRoot);
  const logRoot = resolve(options.logRoot);
  const killGraceMs = options.killGraceMs ?? 5_000;
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 5_000;
  const maxLogBytes = options.maxLogBytes ?? 256 * 1024 * 1024;
  const junitLimits = { ...DEFAULT_JUNIT_LIMITS, ...options.junitLimits };
  const maxRunMs = options.maxRunMs ?? DEFAULT_MAX_RUN_MS;
  const processes = options.processes ?? createDirectProcessRunner();
  const quota = {
    maxBytes: options.maxDiskBytes ?? DEFAULT_MAX_DISK_BYTES,
    maxEntries: options.maxDiskEntries ?? DEFAULT_MAX_DISK_ENTRIES,
    intervalMs: options.diskCheckIntervalMs ?? 5_000,
  };
  if (!(Number.isInteger(maxRunMs) && maxRunMs > 0 && maxRunMs <= MAX_TIMER_MS))
    throw new Error(`maxRunMs must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`);
  const positive = {
    maxDiskBytes: quota.maxBytes,
    maxDiskEntries: quota.maxEntries,
    diskCheckIntervalMs: quota.intervalMs,
  };
  for (const [name, value] of Object.entries(positive))
    if (!(Number.isSafeInteger(value) && value > 0))
      throw new Error(`${name} must be a positive whole number`);

  const sandbox = options.sandbox;

  function commandEnv(input: TestRunInput): Record<string, string> {
    const env: Record<string, string> = sandbox ? { HOME: SANDBOX_HOME } : {};
    for (const name of options.passEnv ?? (sandbox ? SANDBOX_PASS_ENV : DEFAULT_PASS_ENV)) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    return {
      ...env,
      ...options.env,
      CI: 'true',
      RAILYARD: '1',
      RAILYARD_RUN_ID: input.runId,
      RAILYARD_REPO: `${input.repo.host}/${input.repo.owner}/${input.repo.name}`,
      RAILYARD_TEST_BRANCH: input.branchName,
      RAILYARD_SHA: input.headSha,
      // Issue 28: the tests a flaky retry or a bisection run may run alone; unset: the whole suite.
      ...(input.onlyTests && input.onlyTests.length > 0
        ? { [ONLY_TESTS_ENV]: input.onlyTests.join('\n') }
        : {}),
    };
  }

  function spawnOptions(input: TestRunInput, checkout: string): SpawnOptions {
    const env = commandEnv(input);
    if (!sandbox) return { file: 'bash', args: ['-c', input.command], cwd: checkout, env };
    const line = sandboxedCommand(sandbox, { command: input.command, checkout, env });
    // bwrap starts with the command's environment too: its PID 1 keeps it in /proc/1/environ.
    return { file: line.file, args: line.args, cwd: '/', env, ...(line.ids ? { ids: line.ids } : {}) };
  }

  /** Waits for the command, stopping it on timeout, abort, an oversized log or checkout. */
  async function supervise(child: GroupProcess, input: TestRunInput, logFd: number, checkout: string) {
    let reason: StopReason | null = null;
    let breach: QuotaBreach | null = null;
    let stopping: Promise<void> = Promise.resolve();
    const stop = (why: StopReason) => {
      if (reason !== null) return;
      reason = why;
      stopping = child.stop(killGraceMs);
    };
    // 0 is "no testing timeout": such a run, and one with a longer timeout, ends at maxRunMs (which is
    // within Node's timer range: a longer delay would fire at once).
    const timer =
      input.timeoutMs > 0 && input.timeoutMs <= maxRunMs
        ? setTimeout(() => stop('timeout'), input.timeoutMs)
        : setTimeout(() => stop('max_run_time'), maxRunMs);
    const disk = watchDiskQuota(checkout, quota, (found) => {
      breach = found;
      stop('disk_limit');
    });
    const onAbort = () => stop('cancelled');
    input.signal?.addEventListener('abort', onAbort, { once: true });
    // Aborted while the checkout was made: the listener above will not fire for a past event.
    if (input.signal?.aborted) onAbort();
    const capture = captureOutput(child.output, logFd, maxLogBytes, () => stop('log_limit'));
    let exit: Exit;
    try {
      exit = await child.exited;
    } finally {
      clearTimeout(timer);
      input.signal?.removeEventListener('abort', onAbort);
      await disk.stop();
    }
    await stopping;
    await child.stop(killGraceMs);
    await capture.done;
    const stopped = reason as StopReason | null;
    return { exit, reason: stopped, detail: describeExit(exit, stopped, why(breach)) };
  }

  /** The trailer's words for each stop reason. */
  function why(breach: QuotaBreach | null): Record<StopReason, string> {
    return {
      timeout: 'stopped at the testing timeout',
      max_run_time: `stopped at the executor's maximum run time (${humanDuration(maxRunMs)})`,
      cancelled: 'stopped: run cancelled',
      log_limit: 'stopped: log too large',
      disk_limit: `stopped: ${breach ? describeBreach(breach, quota) : 'checkout over its disk quota'}`,
    };
  }

  async function run(input: TestRunInput): Promise<TestRunResult> {
    if (!RUN_ID.test(input.runId)) throw new Error(`invalid runId ${JSON.stringify(input.runId)}`);
    if (!(input.timeoutMs >= 0)) throw new Error('timeoutMs must not be negative');
    await Promise.all([mkdir(workRoot, { recursive: true }), mkdir(logRoot, { recursive: true })]);
    const logPath = join(logRoot, `${input.runId}.log`);
    await writeFile(logPath, header(input, maxRunMs));
    if (input.signal?.aborted)
      return finish(logPath, 'cancelled', null, 0, { files: [], truncated: false }, 'aborted before start');

    const scratch = await mkdtemp(join(workRoot, `${input.runId}-`));
    const heartbeat = setInterval(() => input.heartbeat?.(), heartbeatIntervalMs);
    try {
      const checkout = join(scratch, 'checkout');
      await options.gitHost.checkout({ repo: input.repo, sha: input.headSha, directory: checkout });
      if (sandbox) {
        // The checkout borrows the bare repository's objects (clone --shared); the sandbox must not
        // see that repository at all, so the checkout gets its own copy first.
        await ownObjects(processes, checkout);
        if (process.getuid?.() === 0) await chownTree(processes, scratch, sandbox.runAs);
      }
      const log = await open(logPath, 'a');
      const started = Date.now();
      let supervised;
      try {
        const child = await spawnInGroup(spawnOptions(input, checkout));
        supervised = await supervise(child, input, log.fd, checkout);
      } finally {
        await log.close();
      }
      const durationMs = Date.now() - started;
      const { exit, reason, detail } = supervised;
      const junit = await collectJunitFiles(checkout, input.junitGlobs ?? DEFAULT_JUNIT_GLOBS, junitLimits);
      return await finish(logPath, outcomeOf(exit, reason), exit.exitCode, durationMs, junit, detail);
    } finally {
      clearInterval(heartbeat);
      await removeTree(processes, scratch);
    }
  }

  return { run };
}

function outcomeOf(exit: Exit, reason: StopReason | null): TestOutcome {
  switch (reason) {
    case 'timeout':
    case 'max_run_time':
      return 'timeout';
    case 'cancelled':
      return 'cancelled';
    case 'log_limit':
    case 'disk_limit':
      return 'failed';
    case null:
      return exit.exitCode === 0 ? 'passed' : 'failed';
    default: {
      const never: never = reason;
      throw new Error(`unknown stop reason ${String(never)}`);
    }
  }
}

function describeExit(exit: Exit, reason: StopReason | null, why: Record<StopReason, string>): string {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.exitCode}`;
  return reason === null ? how : `${why[reason]} (${how})`;
}

function header(input: TestRunInput, maxRunMs: number): string {
  const repo = `${input.repo.host}/${input.repo.owner}/${input.repo.name}`;
  return [
    `# railyard test run ${input.runId}`,
    `# repository ${repo}, branch ${input.branchName}, commit ${input.headSha}`,
    `# command: ${input.command.replace(/\n/g, '\n#          ')}`,
    `# started ${new Date().toISOString()}, timeout ${input.timeoutMs > 0 ? humanDuration(input.timeoutMs) : 'none'}` +
      (input.timeoutMs > 0 && input.timeoutMs <= maxRunMs
        ? ''
        : ` (executor maximum ${humanDuration(maxRunMs)})`),
    '',
  ].join('\n');
}

async function finish(
  logPath: string,
  outcome: TestOutcome,
  exitCode: number | null,
  durationMs: number,
  junit: { files: TestRunResult['junitFiles']; truncated: boolean },
  detail: string,
): Promise<TestRunResult> {
  const found = `${junit.files.length} JUnit file(s)${junit.truncated ? ', some left out (limits)' : ''}`;
  await appendFile(logPath, `\n# ${outcome}: ${detail} after ${humanDuration(durationMs)}; ${found}\n`);
  return { outcome, exitCode, durationMs, logPath, junitFiles: junit.files, junitTruncated: junit.truncated };
}
