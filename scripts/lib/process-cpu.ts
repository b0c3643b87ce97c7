/**
 * CPU time read from Linux's /proc, for the end of `npm test` to say where a run's CPU went: a process
 * tree's CPU-seconds (each live process's own time plus that of the children it reaped, so nothing is
 * counted twice: a reaped child's time is in its parent's cutime and it is no longer listed) and the
 * whole machine's busy and idle time between two readings. Without /proc (not Linux) every reading is
 * undefined and the caller says nothing.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { allProcesses, descendants } from './process-tree';

/** USER_HZ: what /proc's tick counts are in (100 on every Linux seen; getconf says for sure). */
function ticksPerSecond(): number {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/** utime + stime + cutime + cstime of one process, in ticks; 0 when it is gone. */
function processTicks(pid: number): number {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // Fields from the 3rd on, after the command name in parentheses; utime is the 14th field.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
}

/** CPU-seconds of `pid` and every live process below it, with the children each of them reaped. */
export function treeCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined || !fs.existsSync(`/proc/${pid}/stat`)) return undefined;
  const tree = [pid, ...descendants(pid, allProcesses()).map((p) => p.pid)];
  return tree.reduce((sum, p) => sum + processTicks(p), 0) / ticksPerSecond();
}

export interface MachineCpu {
  /** CPU-seconds this machine's processes ran (user, nice, system, interrupts), all cores together. */
  busy: number;
  /** CPU-seconds the hypervisor gave to other machines while ours waited to run. */
  steal: number;
  /** CPU-seconds idle (I/O wait included), all cores together. */
  idle: number;
}

/** The machine's CPU counters since boot (/proc/stat's first line); undefined without /proc. */
export function machineCpu(): MachineCpu | undefined {
  let line: string | undefined;
  try {
    line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
  } catch {
    return undefined;
  }
  const n = (line ?? '').trim().split(/\s+/).slice(1).map(Number);
  if (n.length < 5 || n.some((x) => !Number.isFinite(x))) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is already in user and nice).
  const [user, nice, system, idle, iowait, irq = 0, softirq = 0, steal = 0] = n;
  const hz = ticksPerSecond();
  return {
    busy: (user! + nice! + system! + irq + softirq) / hz,
    steal: steal / hz,
    idle: (idle! + iowait!) / hz,
  };
}
