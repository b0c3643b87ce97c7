/**
 * The CPU figures `npm test` prints at its end (scripts/lib/process-cpu.ts): a process tree's CPU counts
 * a grandchild that is still running and one its parent already reaped, and the machine's counters only
 * grow.
 */
import { spawn } from 'node:child_process';
import { machineCpu, treeCpuSeconds } from '../../../scripts/lib/process-cpu';

// A node process that burns `ms` of CPU (user time) in a child it waits for, then in another that it
// leaves running.
const PARENT = `
const { spawnSync, spawn } = require('node:child_process');
// Burns CPU time, not wall time: on a loaded machine a wall-clock loop gets a fraction of a core.
const burn = (ms) => \`while (process.cpuUsage().user < \${ms * 1000});\`;
spawnSync(process.execPath, ['-e', burn(Number(process.argv[1]))]);
spawn(process.execPath, ['-e', burn(Number(process.argv[1])) + 'setInterval(() => {}, 1000);'], { stdio: 'ignore' });
process.stdout.write('ready\\n');
setInterval(() => {}, 1000);
`;

test('a tree counts its live descendants and the children they reaped', async () => {
  // A group of its own, so that the kill at the end reaches the grandchild too.
  const parent = spawn(process.execPath, ['-e', PARENT, '600'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  try {
    await new Promise<void>((resolve) => parent.stdout.once('data', () => resolve()));
    // The live grandchild burns its 600 ms after "ready"; wait (up to 20 s on a loaded machine).
    let seconds = 0;
    for (let i = 0; i < 200 && seconds < 1.2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seconds = treeCpuSeconds(parent.pid)!;
    }
    // 0.6 s reaped by the parent + 0.6 s in the live grandchild (+ the processes' start-up).
    expect(seconds).toBeGreaterThanOrEqual(1.2);
  } finally {
    process.kill(-parent.pid!, 'SIGKILL');
  }
  expect(treeCpuSeconds(2 ** 22 + 1)).toBeUndefined();
}, 30_000);

test("the machine's counters only grow", () => {
  const a = machineCpu()!;
  const t = Date.now();
  while (Date.now() - t < 50);
  const b = machineCpu()!;
  expect(b.busy).toBeGreaterThan(a.busy);
  expect(b.idle).toBeGreaterThanOrEqual(a.idle);
  expect(b.steal).toBeGreaterThanOrEqual(a.steal);
});
