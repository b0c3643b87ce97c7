/**
 * The record of a running `npm start` (<data dir>/instance.json), read by `npm run status` and
 * `npm run stop` and by the next `npm start`.
 *
 * Invariants: every pid is recorded with its start time and counts as ours only while that still matches
 * (process-tree.ts), so a stale file never leads to signalling an unrelated process. Only the supervisor
 * that wrote the record removes it. A stop asks the supervisor (SIGTERM, the same clean shutdown as
 * Ctrl-C) and waits for it; processes it left (a supervisor killed with SIGKILL) are then killed with
 * their process trees, so after a stop no recorded process is left and the ports are free.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { dataDir } from './data-dir';
import { isSameProcess, killTree, processInfo, signalGroup } from './process-tree';

const processRecord = z.object({
  name: z.string(),
  pid: z.number().int().positive(),
  startTime: z.number().optional(),
  /** The signal that stops it cleanly (PostgreSQL: SIGINT). */
  stopSignal: z.enum(['SIGINT', 'SIGTERM']).optional(),
});

const instanceRecord = z.object({
  pid: z.number().int().positive(),
  startTime: z.number().optional(),
  startedAt: z.string(),
  state: z.enum(['starting', 'running', 'stopping']),
  /** How long the supervisor may need to stop everything (its children's graces). */
  stopWithinMs: z.number().int().positive(),
  ports: z.object({
    api: z.number().int(),
    temporal: z.number().int().optional(),
    temporalUi: z.number().int().optional(),
    postgres: z.number().int().optional(),
  }),
  urls: z.object({ api: z.string(), docs: z.string(), temporalUi: z.string().optional() }),
  postgresDataDir: z.string().optional(),
  dataDir: z.string(),
  children: z.array(processRecord),
});

export type InstanceProcess = z.infer<typeof processRecord>;
export type InstanceRecord = z.infer<typeof instanceRecord>;

const file = () => path.join(dataDir(), 'instance.json');

/** Identity of a live process to record (pid and start time). */
export function identify(
  name: string,
  pid: number,
  stopSignal?: InstanceProcess['stopSignal'],
): InstanceProcess {
  const startTime = processInfo(pid)?.startTime;
  return {
    name,
    pid,
    ...(startTime !== undefined ? { startTime } : {}),
    ...(stopSignal ? { stopSignal } : {}),
  };
}

export function writeInstance(record: InstanceRecord): void {
  const tmp = `${file()}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file());
}

/** The record, or undefined when there is none or it is unreadable (then nothing is trusted from it). */
export function readInstance(): InstanceRecord | undefined {
  try {
    return instanceRecord.parse(JSON.parse(fs.readFileSync(file(), 'utf8')));
  } catch {
    return undefined;
  }
}

/** Removes the record if it is the one `pid` wrote. */
export function removeInstance(pid: number): void {
  if (readInstance()?.pid === pid) fs.rmSync(file(), { force: true });
}

export const supervisorAlive = (r: InstanceRecord): boolean => isSameProcess(r.pid, r.startTime);

export const liveChildren = (r: InstanceRecord): InstanceProcess[] =>
  r.children.filter((c) => isSameProcess(c.pid, c.startTime));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Stops the recorded instance: SIGTERM to its supervisor and a wait (announced every 5 s) of up to
 * the record's stopWithinMs plus a margin; then every recorded process still there is killed. Resolves
 * once none is left.
 */
export async function stopInstance(r: InstanceRecord, say: (msg: string) => void): Promise<void> {
  if (supervisorAlive(r)) {
    const deadline = Date.now() + r.stopWithinMs + 10_000;
    say(
      `stopping railyard (pid ${r.pid}); it waits up to ${Math.ceil(r.stopWithinMs / 1000)} s for its processes to finish cleanly...`,
    );
    try {
      process.kill(r.pid, 'SIGTERM');
    } catch {
      /* exited meanwhile */
    }
    let nextNote = Date.now() + 5_000;
    while (supervisorAlive(r) && Date.now() < deadline) {
      await sleep(200);
      if (Date.now() >= nextNote) {
        nextNote += 5_000;
        const names = liveChildren(r).map((c) => c.name);
        say(`still waiting for ${names.length > 0 ? names.join(', ') : 'the supervisor'} to exit`);
      }
    }
    if (supervisorAlive(r)) {
      say(`railyard (pid ${r.pid}) did not stop in time; killing it and its processes (SIGKILL)`);
      killTree(r.pid);
    }
  }
  const left = liveChildren(r);
  if (left.length > 0) {
    // Orphans of a supervisor that was killed: the same clean stop it would have sent, then SIGKILL.
    say(`stopping processes railyard left behind: ${left.map((c) => `${c.name} (pid ${c.pid})`).join(', ')}`);
    for (const c of left) signalGroup(c.pid, c.stopSignal ?? 'SIGTERM');
    const deadline = Date.now() + r.stopWithinMs;
    while (liveChildren(r).length > 0 && Date.now() < deadline) await sleep(200);
    for (const c of liveChildren(r)) {
      say(
        `${c.name} (pid ${c.pid}) did not stop within ${Math.ceil(r.stopWithinMs / 1000)} s; killing it (SIGKILL)`,
      );
      killTree(c.pid);
    }
    for (let i = 0; i < 50 && liveChildren(r).length > 0; i++) await sleep(100);
  }
  if (!supervisorAlive(r)) fs.rmSync(file(), { force: true });
}
