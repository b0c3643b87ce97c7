/**
 * CPU time spent by the benchmark's processes (Linux /proc), so the report can say where the cores
 * went: on a shared 2-core machine wall-clock rates move with the neighbours' load, CPU per result
 * does not. PostgreSQL's share is its postmaster tree: live processes plus the children it reaped.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100; // USER_HZ on Linux

interface Stat {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime, plus cutime + cstime (reaped children). */
  readonly own: number;
  readonly reaped: number;
}

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (i: number) => Number(fields[i - 3]);
    return { pid, ppid: n(4), own: (n(14) + n(15)) / TICKS, reaped: (n(16) + n(17)) / TICKS };
  } catch {
    return undefined;
  }
}

/** CPU seconds of one process (and its reaped children). */
export function processCpu(pid: number): number {
  const s = stat(pid);
  return s === undefined ? 0 : s.own + s.reaped;
}

/** CPU seconds of a process tree: the root with its reaped children, and every live descendant. */
export function treeCpu(root: number): number {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => stat(Number(name)))
    .filter((s): s is Stat => s !== undefined);
  const children = new Map<number, Stat[]>();
  for (const s of all) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  let total = processCpu(root);
  const queue = [...(children.get(root) ?? [])];
  for (let s = queue.pop(); s !== undefined; s = queue.pop()) {
    total += s.own;
    queue.push(...(children.get(s.pid) ?? []));
  }
  return total;
}

export function selfCpu(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}
