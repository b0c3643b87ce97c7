/**
 * Processes seen through Linux's /proc: who is alive, which processes descend from a pid, and the
 * identity of a process across pid reuse. Rule: a pid alone never authorises a kill — a pid written to a
 * file earlier is ours only while its start time (field 22 of /proc/<pid>/stat) is still the one
 * recorded. Without /proc (not Linux), descendants are unknown and identities fall back to `kill(pid, 0)`.
 */
import fs from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** Clock ticks since boot at which the process started; with the pid, a unique identity. */
  startTime: number;
}

/** Reads /proc/<pid>/stat; undefined when the process is gone, a zombie, or /proc is unavailable. */
export function processInfo(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return {
    pid,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: Number(fields[19]),
  };
}

export const hasProc = (): boolean => fs.existsSync('/proc/self/stat');

/** Every live process (empty without /proc). */
export function allProcesses(): ProcessInfo[] {
  if (!hasProc()) return [];
  const out: ProcessInfo[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = processInfo(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** The processes below `pid` (children, grandchildren, ...), whatever group or session they moved to. */
export function descendants(pid: number, all: ProcessInfo[] = allProcesses()): ProcessInfo[] {
  const byParent = new Map<number, ProcessInfo[]>();
  for (const p of all) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const out: ProcessInfo[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of byParent.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/** A process recorded earlier, still the same one (not a reused pid). */
export function isSameProcess(pid: number, startTime: number | undefined): boolean {
  if (!hasProc() || startTime === undefined) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  return processInfo(pid)?.startTime === startTime;
}

/** Sends `signal` to a process group; false when no such group is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGKILLs `pid`'s group and every group and process below it. The tree is read before anything is
 * killed: once a parent dies its orphans are re-parented and can no longer be found from it.
 */
export function killTree(pid: number): void {
  const below = descendants(pid);
  // Never our own group: a descendant could only be in it if it was started without its own group.
  const ownGroup = processInfo(process.pid)?.pgid;
  signalGroup(pid, 'SIGKILL');
  for (const p of below) {
    if (p.pgid !== ownGroup) signalGroup(p.pgid, 'SIGKILL');
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
