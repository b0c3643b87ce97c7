/**
 * Starts child processes, prefixes their output, and stops them all on Ctrl-C, SIGTERM, or when any of
 * them dies.
 *
 * Invariants:
 * - Each child runs in its own process group (and session), so a terminal's Ctrl-C reaches only the
 *   supervisor, and a stop signal sent to the group reaches what the child started too.
 * - `stopAll` is idempotent: every call returns the same promise, so repeated signals neither restart
 *   the stop nor let the caller exit before the children are gone. No child starts once it began.
 * - Children stop tier by tier, highest first (default: reverse start order); a tier's children are
 *   signalled together. Each gets its own grace; past it the supervisor SIGKILLs its group and every
 *   process and group below it, so nothing survives a stop. After a child exits, its group is swept
 *   with SIGKILL (members that outlived their leader).
 * - A wait longer than a second is announced (who, why, how long until the kill), then every 5 s.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import { killTree, signalGroup } from './process-tree';

export interface Managed {
  name: string;
  child: ChildProcess;
  /** Signal that makes this program shut down cleanly (PostgreSQL: SIGINT = fast shutdown). */
  stopSignal: NodeJS.Signals;
  exited: Promise<number | null>;
  /** Stop order: higher tiers stop first. */
  tier: number;
  /** Time a stop waits for a clean exit before the SIGKILL; undefined = the `stopAll` argument. */
  graceMs?: number;
  /** What the child does while the stop waits for it, said to the person waiting. */
  stopReason?: string;
}

export interface StartOptions extends SpawnOptions {
  logFile?: string;
  quiet?: boolean;
  stopSignal?: NodeJS.Signals;
  tier?: number;
  graceMs?: number;
  stopReason?: string;
}

const ANNOUNCE_AFTER_MS = 1_000;
const REPEAT_EVERY_MS = 5_000;

const alive = (m: Managed) =>
  m.child.pid !== undefined && m.child.exitCode === null && m.child.signalCode === null;

export class Supervisor {
  private children: Managed[] = [];
  private stopping: Promise<void> | null = null;
  private readonly deadlines = new Map<Managed, number>();

  constructor(private readonly log: (msg: string) => void = (m) => console.error(m)) {}

  start(name: string, command: string, args: string[], opts: StartOptions = {}): Managed {
    if (this.stopping) throw new Error(`not starting ${name}: stopping`);
    const { logFile, quiet, stopSignal, tier, graceMs, stopReason, ...spawnOpts } = opts;
    const child = spawn(command, args, { ...spawnOpts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const sink = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : undefined;
    const pipe = (stream: NodeJS.ReadableStream | null) => {
      stream?.on('data', (chunk: Buffer) => {
        // Output may still arrive after the sink was closed at exit: it is dropped, not a crash.
        if (sink && !sink.writableEnded) sink.write(chunk);
        if (!quiet) {
          for (const line of chunk.toString().split('\n'))
            if (line.trim()) process.stderr.write(`[${name}] ${line}\n`);
        }
      });
    };
    pipe(child.stdout);
    pipe(child.stderr);
    const exited = new Promise<number | null>((resolve) => {
      child.once('exit', (code, signal) => {
        sink?.end();
        resolve(code ?? (signal ? 128 : null));
      });
      child.once('error', (err) => {
        this.log(`${name} could not start: ${err.message}`);
        resolve(127);
      });
    });
    const managed: Managed = {
      name,
      child,
      stopSignal: stopSignal ?? 'SIGTERM',
      exited,
      tier: tier ?? this.children.length,
      ...(graceMs !== undefined ? { graceMs } : {}),
      ...(stopReason ? { stopReason } : {}),
    };
    this.children.push(managed);
    return managed;
  }

  /**
   * Forgets a child that exited while it was starting and is started again by its caller (the Temporal
   * dev server, scripts/lib/temporal.ts): its exit is then neither unexpected nor waited for.
   */
  forget(managed: Managed): void {
    if (managed.child.exitCode === null && managed.child.signalCode === null)
      throw new Error(`cannot forget ${managed.name}: it is running`);
    this.children = this.children.filter((c) => c !== managed);
  }

  /** Says a line the way the supervisor does (its log). */
  say(message: string): void {
    this.log(message);
  }

  /** The children started so far (running or not), in start order. */
  get managed(): readonly Managed[] {
    return this.children;
  }

  /** Resolves with the first child that exits while we are not stopping. */
  async firstUnexpectedExit(): Promise<{ name: string; code: number | null }> {
    return Promise.race(this.children.map(async (c) => ({ name: c.name, code: await c.exited })));
  }

  get isStopping(): boolean {
    return this.stopping !== null;
  }

  /** One sentence: which children a stop still waits for and how long until they are killed. */
  waitingFor(): string {
    const now = Date.now();
    const waiting = [...this.deadlines].filter(([m]) => alive(m));
    if (waiting.length === 0) return 'finishing';
    return `waiting for ${waiting
      .map(
        ([m, at]) =>
          `${m.name} to exit${m.stopReason ? ` (${m.stopReason})` : ''}, SIGKILL in ${Math.max(0, Math.ceil((at - now) / 1000))} s`,
      )
      .join('; ')}`;
  }

  /** Stops every child (see the invariants above); `graceMs` applies to children without their own. */
  stopAll(graceMs = 15_000): Promise<void> {
    this.stopping ??= this.stopTiers(graceMs);
    return this.stopping;
  }

  private async stopTiers(defaultGraceMs: number): Promise<void> {
    const tiers = [...new Set(this.children.map((c) => c.tier))].sort((a, b) => b - a);
    for (const tier of tiers) {
      const group = this.children.filter((c) => c.tier === tier && alive(c));
      if (group.length === 0) continue;
      for (const c of group) {
        this.deadlines.set(c, Date.now() + (c.graceMs ?? defaultGraceMs));
        if (!signalGroup(c.child.pid!, c.stopSignal)) this.deadlines.delete(c);
      }
      const announce = setTimeout(() => this.log(this.waitingFor()), ANNOUNCE_AFTER_MS);
      const repeat = setInterval(() => this.log(`still ${this.waitingFor()}`), REPEAT_EVERY_MS);
      try {
        await Promise.all(group.map((c) => this.awaitOrKill(c, c.graceMs ?? defaultGraceMs)));
      } finally {
        clearTimeout(announce);
        clearInterval(repeat);
      }
    }
  }

  private async awaitOrKill(c: Managed, graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const outcome = await Promise.race([c.exited.then(() => 'exited' as const), killed]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      this.log(`${c.name} did not stop within ${Math.round(graceMs / 1000)} s; killing it (SIGKILL)`);
      killTree(c.child.pid!);
      await c.exited;
    }
    this.deadlines.delete(c);
    // Members of its group that outlived the leader (the group id stays valid while any is alive).
    signalGroup(c.child.pid!, 'SIGKILL');
  }
}
