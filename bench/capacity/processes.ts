/**
 * The stack's processes by role, found from this process's children in /proc: each service the
 * supervisor started is a direct child (its own process group), recognised by its command line. A role's
 * CPU is its process tree's (bench/flaky/cpu.ts: live descendants plus the children it reaped), so the
 * git commands a worker runs count for the worker and the test commands for the executor.
 *
 * Rule: figures are CPU-seconds and resident memory read from the kernel, never wall time, so a
 * neighbour's load on the shared machine slows the run without changing what each unit costs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { treeCpu } from '../flaky/cpu';

export const ROLES = ['api', 'worker', 'executor', 'temporal', 'postgres', 'driver'] as const;
export type Role = (typeof ROLES)[number];

export type CpuByRole = Record<Role, number>;

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function ppidOf(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** The role of a child of this process, from what it runs; undefined for anything else. */
export function roleOf(command: string): Role | undefined {
  if (command.includes('api/server.ts')) return 'api';
  if (command.includes('worker/executor.ts')) return 'executor';
  if (command.includes('worker/main.ts')) return 'worker';
  if (/\btemporal\b.*start-dev/.test(command)) return 'temporal';
  if (/postgres|pg_ctl|runuser|setpriv|\bsu\b/.test(command)) return 'postgres';
  return undefined;
}

/** This process's direct children, by role (a role may have several: replicas). */
export function childrenByRole(): Map<Role, number[]> {
  const out = new Map<Role, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (ppidOf(pid) !== process.pid) continue;
    const role = roleOf(cmdline(pid));
    if (role) out.set(role, [...(out.get(role) ?? []), pid]);
  }
  return out;
}

/** CPU-seconds of every role so far; the driver is this process itself (HTTP, git fixtures). */
export function cpuByRole(): CpuByRole {
  const cpu = Object.fromEntries(ROLES.map((r) => [r, 0])) as CpuByRole;
  for (const [role, pids] of childrenByRole()) for (const pid of pids) cpu[role] += treeCpu(pid);
  const own = process.cpuUsage();
  cpu.driver = (own.user + own.system) / 1e6;
  return cpu;
}

export const cpuDelta = (after: CpuByRole, before: CpuByRole): CpuByRole =>
  Object.fromEntries(ROLES.map((r) => [r, after[r] - before[r]])) as CpuByRole;

/** Resident memory of a process tree in bytes (VmRSS of the root and every live descendant). */
export function treeRss(root: number): number {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = ppidOf(Number(name));
    if (ppid !== undefined) parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
  }
  let total = 0;
  const queue = [root];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      total += Number(kb ?? 0) * 1024;
    } catch {
      /* gone meanwhile */
    }
    queue.push(...(parents.get(pid) ?? []));
  }
  return total;
}

/** The largest worker RSS seen, sampled every `everyMs` until `stop()`. */
export function sampleWorkerRss(everyMs: number): { stop(): number; now(): number } {
  let max = 0;
  const now = () => {
    const pids = childrenByRole().get('worker') ?? [];
    const rss = pids.reduce((n, pid) => n + treeRss(pid), 0);
    max = Math.max(max, rss);
    return rss;
  };
  const timer = setInterval(now, everyMs);
  timer.unref();
  return {
    now,
    stop() {
      clearInterval(timer);
      now();
      return max;
    },
  };
}
