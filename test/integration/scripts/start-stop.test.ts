/**
 * `npm start` stops completely however it is stopped (issue 16): the real npm, the real supervisor,
 * Temporal dev server, PostgreSQL, worker and API. Ctrl-C is played the way a terminal sends it: SIGINT
 * to npm's whole process group (npm, sh and the supervisor at once) — once; four times in a row, again
 * within a second and once more during the shutdown wait — and `npm run stop` ends one started in the
 * background (the start after a SIGKILLed one: each start costs ~7 CPU-seconds, so stories share them). After each, no process recorded while it ran is alive and every port is free; the next
 * start (same data folder) works. Also: `npm run status`, the banner's example request run as printed, a second `npm start`
 * refused while one runs, migrations reported once.
 *
 * The scratch folder is mode 0700 like /root: as root, PostgreSQL (run as an unprivileged user) cannot
 * enter it, so this also proves that its cluster is placed elsewhere (scripts/lib/pg-placement.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ProcessInfo } from '../../../scripts/lib/process-tree';
import {
  npmRun,
  npmStart,
  openPorts,
  startSettings,
  survivors,
  type NpmStart,
  type StartSettings,
} from '../../support/npm-start';

jest.setTimeout(150_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let dir: string;
let settings: StartSettings;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-start-'));
  fs.chmodSync(dir, 0o700);
  settings = await startSettings(dir);
});

afterAll(async () => {
  await npmRun(settings, 'stop'); // nothing should run; a safety net if a test failed half-way
  const pg = pgDataDir();
  if (pg && !pg.startsWith(dir)) fs.rmSync(path.dirname(pg), { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
});

function pgDataDir(): string | undefined {
  try {
    return fs.readFileSync(path.join(settings.dataDir, 'pg-data-dir'), 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Starts npm start and waits until the banner is printed and the worker polls. */
async function startReady(
  outFile?: string,
): Promise<{ run: NpmStart; procs: ProcessInfo[]; ports: number[] }> {
  const run = npmStart(settings, outFile);
  await run.waitFor(/railyard is running\./);
  await run.waitFor(/polling task queue/);
  const procs = run.snapshot();
  const pgPort = Number(fs.readFileSync(path.join(settings.dataDir, 'pg-port'), 'utf8'));
  const ports = [settings.ports.api, settings.ports.temporal, settings.ports.temporalUi, pgPort];
  expect(await openPorts(ports)).toEqual(ports);
  // npm, sh, the supervisor, temporal, postgres (and its backends), the worker and the API.
  expect(procs.length).toBeGreaterThanOrEqual(7);
  return { run, procs, ports };
}

async function expectNothingLeft(run: NpmStart, procs: ProcessInfo[], ports: number[]): Promise<void> {
  await run.exited;
  const deadline = Date.now() + 5_000;
  while (survivors(procs).length > 0 && Date.now() < deadline) await sleep(100);
  expect(survivors(procs).map((p) => p.pid)).toEqual([]);
  expect(await openPorts(ports)).toEqual([]);
  expect(fs.existsSync(path.join(settings.dataDir, 'instance.json'))).toBe(false);
}

it('a single Ctrl-C stops everything; status, the banner request and a second start before it', async () => {
  const { run, procs, ports } = await startReady();
  const out = run.output();
  expect(out.match(/applied migration 0001_/g)).toHaveLength(1);
  expect(out).not.toMatch(/migrated /);

  // As root, the cluster cannot live under the mode-0700 scratch folder; it is placed outside.
  if (process.getuid?.() === 0) {
    expect(out).toMatch(/cannot enter .*\(mode 700\); its data directory is \/(var\/)?tmp\/railyard-pg-/);
    expect(pgDataDir()).not.toContain(dir);
  }

  const status = await npmRun(settings, 'status');
  expect(status.code).toBe(0);
  expect(status.out).toContain(`http://127.0.0.1:${settings.ports.api}/v1`);
  expect(status.out).toContain(`Temporal Web UI   http://127.0.0.1:${settings.ports.temporalUi}`);
  expect(status.out).toMatch(
    new RegExp(`temporal +pid \\d+ +127\\.0\\.0\\.1:${settings.ports.temporal} open`),
  );
  expect(status.out).toMatch(/worker +pid \d+/);
  const key = fs.readFileSync(path.join(settings.dataDir, 'dev-api-key'), 'utf8').trim();
  expect(status.out).not.toContain(key);
  expect(out).not.toContain(key); // output is not a terminal: the banner names the key's file

  // The banner's example, executed exactly as printed (curl -f fails on an HTTP error status).
  const example = /Try +(curl .*)$/m.exec(out)![1]!;
  const answer = execFileSync('bash', ['-c', example], { encoding: 'utf8' });
  expect(JSON.parse(answer)).toEqual({ repositories: [] });

  const second = npmStart(settings);
  expect(await second.exited).not.toBe(0);
  expect(second.output()).toMatch(/railyard is already running .*`npm run stop`/);

  run.signalGroup('SIGINT');
  await expectNothingLeft(run, procs, ports);
  expect(run.output().match(/stopping everything/g)).toHaveLength(1);
});

it('repeated Ctrl-Cs (four at once, another within a second, a deliberate one later) neither cut the stop short nor leave anything', async () => {
  // One stack for both stories (each npm start costs ~7 CPU-s of the suite): a burst of four SIGINTs
  // to the group, then the same keypress again within a second, then a deliberate one during the wait.
  const { run, procs, ports } = await startReady();
  for (let i = 0; i < 4; i++) run.signalGroup('SIGINT');
  await sleep(300);
  run.signalGroup('SIGINT'); // within a second: the same keypress delivered twice, ignored
  // The stop announces its wait after a second; a deliberate second Ctrl-C then only restates it.
  await run.waitFor(/waiting for|stopped; nothing is left/, 30_000);
  const waited = run.child.exitCode === null && !/stopped; nothing is left/.test(run.output());
  if (waited) run.signalGroup('SIGINT');
  await expectNothingLeft(run, procs, ports);
  if (waited) expect(run.output()).toMatch(/still stopping \(waiting for .* to exit/);
  expect(run.output().match(/stopping everything/g)).toHaveLength(1);
  expect(run.output()).toMatch(/stopped; nothing is left running/);
});

it('what a SIGKILLed npm start left is reported by status and stopped by the next npm start, which npm run stop ends in the background', async () => {
  const first = await startReady();
  const supervisor = JSON.parse(fs.readFileSync(path.join(settings.dataDir, 'instance.json'), 'utf8')) as {
    pid: number;
  };
  first.run.signalGroup('SIGKILL'); // npm, sh and the supervisor die at once; their children remain
  await first.run.exited;
  const deadline = Date.now() + 5_000; // a SIGKILLed process takes a moment to be gone
  while (survivors(first.procs).some((p) => p.pid === supervisor.pid) && Date.now() < deadline)
    await sleep(50);
  expect(survivors(first.procs).some((p) => p.pid === supervisor.pid)).toBe(false);
  const status = await npmRun(settings, 'status');
  expect(status.code).toBe(2);
  expect(status.out).toMatch(/`npm run stop` ends them/);

  // The next start, in the background (its output to a file): it stops what the first one left, and
  // `npm run stop` and `npm run status` then work on it.
  const log = path.join(dir, 'background.log');
  const second = await startReady(log);
  expect(second.run.output()).toMatch(/a previous npm start was killed .* stopping them first/);
  expect(survivors(first.procs).map((p) => p.pid)).toEqual([]);
  expect((await npmRun(settings, 'status')).code).toBe(0);
  const stop = await npmRun(settings, 'stop');
  expect(stop.code).toBe(0);
  expect(stop.out).toMatch(/stopped; nothing is left running/);
  await expectNothingLeft(second.run, second.procs, second.ports);
  const after = await npmRun(settings, 'status');
  expect(after.code).toBe(1);
  expect(after.out).toMatch(/railyard is not running/);
  expect(fs.readFileSync(log, 'utf8')).toMatch(/SIGTERM: stopping everything/);
});
