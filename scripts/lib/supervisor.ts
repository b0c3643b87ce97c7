/**
 * Starts child processes, prefixes their output, and stops them all (in reverse start order) on
 * Ctrl-C, SIGTERM, or when any of them dies. Each child runs in its own process group so a stop reaches
 * the processes it spawned too.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';

export interface Managed {
  name: string;
  child: ChildProcess;
  /** Signal that makes this program shut down cleanly (PostgreSQL: SIGINT = fast shutdown). */
  stopSignal: NodeJS.Signals;
  exited: Promise<number | null>;
}

export class Supervisor {
  private readonly children: Managed[] = [];
  private stopping = false;

  constructor(private readonly log: (msg: string) => void = (m) => console.error(m)) {}

  start(
    name: string,
    command: string,
    args: string[],
    opts: SpawnOptions & { logFile?: string; quiet?: boolean; stopSignal?: NodeJS.Signals } = {},
  ): Managed {
    const child = spawn(command, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const sink = opts.logFile ? fs.createWriteStream(opts.logFile, { flags: 'a' }) : undefined;
    const pipe = (stream: NodeJS.ReadableStream | null) => {
      stream?.on('data', (chunk: Buffer) => {
        sink?.write(chunk);
        if (!opts.quiet) {
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
    const managed: Managed = { name, child, stopSignal: opts.stopSignal ?? 'SIGTERM', exited };
    this.children.push(managed);
    return managed;
  }

  /** Resolves with the first child that exits while we are not stopping. */
  async firstUnexpectedExit(): Promise<{ name: string; code: number | null }> {
    return Promise.race(this.children.map(async (c) => ({ name: c.name, code: await c.exited })));
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  async stopAll(graceMs = 15_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const c of [...this.children].reverse()) {
      if (c.child.exitCode !== null || c.child.signalCode !== null) continue;
      try {
        process.kill(-c.child.pid!, c.stopSignal);
      } catch {
        continue;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-c.child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, graceMs);
      await c.exited;
      clearTimeout(timer);
    }
  }
}
