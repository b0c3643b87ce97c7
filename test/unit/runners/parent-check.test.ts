/**
 * A sandbox process armed to die with the executor (`setpriv --pdeathsig KILL`) runs only if the
 * executor is still its parent once armed (PARENT_CHECK): an executor killed before the signal was
 * armed would otherwise leave the run orphaned, its network and command going on (seen in the crash
 * story: a test command of the killed executor outlived it).
 */
import { spawnSync } from 'node:child_process';
import { parentChecked } from '../../../executor/sandbox-network';

const armed = (parentPid: number, ...line: string[]) =>
  spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', ...parentChecked(parentPid, line)], {
    encoding: 'utf8',
    timeout: 10_000,
  });

it('runs the command when the process that started it is still its parent', () => {
  const r = armed(process.pid, 'bash', '-c', 'echo ran; exit 3');
  expect([r.status, r.stdout]).toEqual([3, 'ran\n']);
});

it('stops at once, running nothing, when its parent is another process (it was orphaned before arming)', () => {
  const r = armed(process.pid + 1_000_000, 'bash', '-c', 'echo ran');
  expect([r.status, r.stdout]).toEqual([125, '']);
});
