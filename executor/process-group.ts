/**
 * A shell command in its own process group, so that stopping it stops everything it started: a test
 * command typically forks (npm → jest → workers, `sleep 100 &`), and killing only the shell would
 * leave the children running, holding ports and writing into a checkout that is being removed.
 *
 * Stopping is SIGTERM to the group, a grace period for the group to exit, then SIGKILL. The group is
 * also swept after a normal exit, because background processes outlive the shell that started them.
 * A process that makes its own session (setsid, daemons) escapes the group; the sandbox (sandbox.ts)
 * contains those: the group's leader is then bwrap, and its PID namespace dies with it.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { readdir, readFile } from 'node:fs/promises';

export interface Exit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

export interface GroupProcess {
  readonly pid: number;
  /** Resolves when the group leader exits. */
  readonly exited: Promise<Exit>;
  /** The leader's stdout and stderr, in the order each was written. */
  readonly output: readonly Readable[];
  /** Stops the whole group; resolves once it is gone (or was SIGKILLed after the grace period). */
  stop(graceMs: number): Promise<void>;
}

export interface SpawnOptions {
  /** The program and its arguments: `bash -c <command>`, or bwrap running it (sandbox.ts). */
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** The host uid/gid to run as (a root worker dropping to an unprivileged user). */
  ids?: { uid: number; gid: number };
  /** Open descriptors the child gets as 3, 4, … (the sandbox's bind sources). */
  extraFds?: readonly number[];
}

export function spawnInGroup(options: SpawnOptions): Promise<GroupProcess> {
  return new Promise((resolve, reject) => {
    // The command is the queue operator's configuration: running it through a shell is intended.
    const child = spawn(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...(options.extraFds ?? [])],
      ...(options.ids ?? {}),
    });
    child.once('error', reject);
    child.once('spawn', () => {
      const pid = child.pid;
      if (pid === undefined) {
        reject(new Error('the test command did not start'));
        return;
      }
      const exited = new Promise<Exit>((done) => {
        child.once('exit', (exitCode, signal) => done({ exitCode, signal }));
      });
      resolve({
        pid,
        exited,
        output: [child.stdout, child.stderr].filter((s): s is Readable => s !== null),
        stop: (graceMs) => stopGroup(pid, graceMs),
      });
    });
  });
}

async function stopGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await delay(25);
    if (!(await hasLiveMembers(pgid))) return;
  }
  signalGroup(pgid, 'SIGKILL');
}

/** Sends `signal` to every process of the group; false when the group no longer exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/**
 * Whether a process of the group still runs. Killed members stay in the group as zombies until their
 * parent reaps them, and the orphans' new parent (PID 1 of a container) often never does: on Linux
 * /proc tells zombies apart, so that stopping does not wait out the grace period for the dead.
 */
async function hasLiveMembers(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, 0)) return false;
  const pids = await readdir('/proc').catch(() => null);
  if (pids === null) return true;
  for (const pid of pids.filter((name) => /^\d+$/.test(name))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // Fields after the command name: state, ppid, pgrp, ...
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(group) === pgid && state !== 'Z') return true;
  }
  return false;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
