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
 *  - The command gets a small environment (an allow-list from the worker's, plus RAILYARD_* and
 *    CI=true), not the worker's secrets: it runs code from pull requests. In the sandbox HOME is a
 *    private folder and the allow-list is PATH and LANG only.
 */
import { appendFile, chown, mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { GitHost } from '../git/git-host';
import {
  collectJunitFiles,
  DEFAULT_JUNIT_GLOBS,
  DEFAULT_JUNIT_LIMITS,
  type JunitLimits,
} from './junit-files';
import { captureOutput } from './log-capture';
import { spawnInGroup, type Exit, type GroupProcess, type SpawnOptions } from './process-group';
import { SANDBOX_HOME, sandboxedCommand, type SandboxSettings } from './sandbox';
import type { TestOutcome, TestRunInput, TestRunner, TestRunResult } from './test-runner';

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
}

export const DEFAULT_PASS_ENV = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'TERM'];
/** What a sandboxed command gets from the worker's environment; HOME is the sandbox's own. */
export const SANDBOX_PASS_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ'];

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** The longest delay setTimeout keeps (2^31 − 1 ms); a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

type StopReason = 'timeout' | 'cancelled' | 'log_limit';

export function createCommandRunner(options: CommandRunnerOptions): TestRunner {
  const workRoot = resolve(options.workRoot);
  const logRoot = resolve(options.logRoot);
  const killGraceMs = options.killGraceMs ?? 5_000;
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 5_000;
  const maxLogBytes = options.maxLogBytes ?? 256 * 1024 * 1024;
  const junitLimits = { ...DEFAULT_JUNIT_LIMITS, ...options.junitLimits };

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
    };
  }

  function spawnOptions(input: TestRunInput, checkout: string): SpawnOptions {
    const env = commandEnv(input);
    if (!sandbox) return { file: 'bash', args: ['-c', input.command], cwd: checkout, env };
    const line = sandboxedCommand(sandbox, { command: input.command, checkout, env });
    // bwrap starts with the command's environment too: its PID 1 keeps it in /proc/1/environ.
    return { file: line.file, args: line.args, cwd: '/', env, ...(line.ids ? { ids: line.ids } : {}) };
  }

  /** Waits for the command, stopping it on timeout, abort or an oversized log. */
  async function supervise(child: GroupProcess, input: TestRunInput, logFd: number) {
    let reason: StopReason | null = null;
    let stopping: Promise<void> = Promise.resolve();
    const stop = (why: StopReason) => {
      if (reason !== null) return;
      reason = why;
      stopping = child.stop(killGraceMs);
    };
    // 0 is "no testing timeout"; one past Node's timer range (about 24.8 days) would fire at once, so
    // it is left, like none, to the queue's durable timer, which enforces the testing timeout anyway.
    const timer =
      input.timeoutMs > 0 && input.timeoutMs <= MAX_TIMER_MS
        ? setTimeout(() => stop('timeout'), input.timeoutMs)
        : undefined;
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
    }
    await stopping;
    await child.stop(killGraceMs);
    await capture.done;
    return { exit, reason: reason as StopReason | null };
  }

  async function run(input: TestRunInput): Promise<TestRunResult> {
    if (!RUN_ID.test(input.runId)) throw new Error(`invalid runId ${JSON.stringify(input.runId)}`);
    if (!(input.timeoutMs >= 0)) throw new Error('timeoutMs must not be negative');
    await Promise.all([mkdir(workRoot, { recursive: true }), mkdir(logRoot, { recursive: true })]);
    const logPath = join(logRoot, `${input.runId}.log`);
    await writeFile(logPath, header(input));
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
        await ownObjects(checkout);
        if (process.getuid?.() === 0) await chownTree(scratch, sandbox.runAs);
      }
      const log = await open(logPath, 'a');
      const started = Date.now();
      let supervised;
      try {
        const child = await spawnInGroup(spawnOptions(input, checkout));
        supervised = await supervise(child, input, log.fd);
      } finally {
        await log.close();
      }
      const durationMs = Date.now() - started;
      const { exit, reason } = supervised;
      const junit = await collectJunitFiles(checkout, input.junitGlobs ?? DEFAULT_JUNIT_GLOBS, junitLimits);
      return await finish(
        logPath,
        outcomeOf(exit, reason),
        exit.exitCode,
        durationMs,
        junit,
        describeExit(exit, reason),
      );
    } finally {
      clearInterval(heartbeat);
      await rm(scratch, { recursive: true, force: true });
    }
  }

  return { run };
}

/** Copies the borrowed objects into the checkout and forgets the repository they came from. */
async function ownObjects(checkout: string): Promise<void> {
  await exec('git', ['-C', checkout, 'repack', '-a', '-d', '-q']);
  await rm(join(checkout, '.git', 'objects', 'info', 'alternates'), { force: true });
}

function exec(file: string, args: string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} ${args[0] ?? ''} exited with ${code}`)),
    );
  });
}

/** A root worker hands the checkout to the sandbox's unprivileged user (bwrap runs as it). */
async function chownTree(dir: string, ids: { uid: number; gid: number }): Promise<void> {
  await chown(dir, ids.uid, ids.gid);
  await exec('chown', ['-R', '--no-dereference', `${ids.uid}:${ids.gid}`, '--', dir]);
}

function outcomeOf(exit: Exit, reason: StopReason | null): TestOutcome {
  switch (reason) {
    case 'timeout':
      return 'timeout';
    case 'cancelled':
      return 'cancelled';
    case 'log_limit':
      return 'failed';
    case null:
      return exit.exitCode === 0 ? 'passed' : 'failed';
    default: {
      const never: never = reason;
      throw new Error(`unknown stop reason ${String(never)}`);
    }
  }
}

function describeExit(exit: Exit, reason: StopReason | null): string {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.exitCode}`;
  const why = {
    timeout: 'stopped at the testing timeout',
    cancelled: 'stopped: run cancelled',
    log_limit: 'stopped: log too large',
  };
  return reason === null ? how : `${why[reason]} (${how})`;
}

function header(input: TestRunInput): string {
  const repo = `${input.repo.host}/${input.repo.owner}/${input.repo.name}`;
  return [
    `# railyard test run ${input.runId}`,
    `# repository ${repo}, branch ${input.branchName}, commit ${input.headSha}`,
    `# command: ${input.command.replace(/\n/g, '\n#          ')}`,
    `# started ${new Date().toISOString()}, timeout ${input.timeoutMs > 0 ? `${input.timeoutMs} ms` : 'none'}`,
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
  await appendFile(logPath, `\n# ${outcome}: ${detail} after ${durationMs} ms; ${found}\n`);
  return { outcome, exitCode, durationMs, logPath, junitFiles: junit.files, junitTruncated: junit.truncated };
}
