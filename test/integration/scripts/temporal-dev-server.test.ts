/**
 * The Temporal dev server's start (scripts/lib/temporal.ts): a server that exits while starting is
 * started once more, and the supervisor forgets the first one (its exit is neither unexpected nor
 * waited for at the stop). Here the first attempt meets its frontend port taken (what a busy machine's
 * other process does to one of the ports the server picked), exits, and the port is freed before the
 * second. A start that fails twice is the setup error it was before.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../scripts/lib/ports';
import { Supervisor } from '../../../scripts/lib/supervisor';
import { startDevServer } from '../../../scripts/lib/temporal';

const listen = (port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
const close = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-temporal-start-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a dev server that exits while starting is started again, and the first one is forgotten', async () => {
  const lines: string[] = [];
  const sup = new Supervisor((m) => lines.push(m));
  const port = await freePort();
  const blocker = await listen(port);
  const starting = startDevServer(sup, { port, namespace: 'default', logFile: path.join(dir, 'once.log') });
  try {
    // The first attempt cannot bind its frontend port and exits; only then is the port freed.
    const deadline = Date.now() + 30_000;
    while (sup.managed.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const first = sup.managed[0]!;
    await first.exited;
    await close(blocker);
    const managed = await starting;
    expect(managed).not.toBe(first);
    expect(sup.managed).toEqual([managed]);
    expect(lines.some((l) => /; starting it again\.$/.test(l))).toBe(true);
  } finally {
    await close(blocker).catch(() => undefined);
    await starting.catch(() => undefined);
    await sup.stopAll(10_000);
  }
}, 120_000);

test('a dev server that exits on both attempts is a setup error naming its log', async () => {
  const sup = new Supervisor(() => undefined);
  const port = await freePort();
  const blocker = await listen(port);
  try {
    const logFile = path.join(dir, 'twice.log');
    await expect(startDevServer(sup, { port, namespace: 'default', logFile })).rejects.toThrow(
      new RegExp(
        `^The Temporal dev server exited .*; see ${logFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.$`,
      ),
    );
    expect(sup.managed).toHaveLength(1);
  } finally {
    await close(blocker);
    await sup.stopAll(10_000);
  }
}, 120_000);
