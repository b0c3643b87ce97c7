/**
 * A network-on run's gate (executor/sandbox-network.ts, `helper` form, issue 23's crash-story flake):
 * the coordinator that starts bwrap is SIGKILLed while it sets the address rules, before it opens the
 * gate, as when its executor is killed while a run starts. Nothing of the run may outlive it: not the
 * outer bwrap, not the sandboxed one blocked on the gate, and the command never starts. Before the gate
 * was a pipe whose end of file reaches the command, bwrap's own `--block-fd` left the inner bwrap
 * blocked for good, reparented to init. Real bwrap, pasta and ip; `ip` is wrapped so that its rule
 * batch (the step before `go`) holds until the test has killed the coordinator.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { systemLinks } from '../../../executor/sandbox';
import { addressRules, currentPolicy } from '../../../executor/sandbox-addresses';
import { ipCommand, pastaForm, pastaSpawn } from '../../../executor/sandbox-network';
import { probeSandbox } from '../../../executor/sandbox-probe';
import { INSTALL, requireTool } from '../../support/required-tool';

jest.setTimeout(60_000);

const root = process.getuid?.() === 0;
const runAs = { uid: 65534, gid: 65534 };
const probe = probeSandbox('bwrap', 'pasta');
const bwrap = requireTool({
  tool: 'bwrap',
  probe,
  install: INSTALL.bwrap,
  neededBy: 'the sandbox gate test (sandbox-gate.test.ts)',
});
const pasta =
  bwrap &&
  probe.kind === 'available' &&
  requireTool({
    tool: 'pasta',
    probe: probe.isolatedNetwork,
    install: INSTALL.pasta,
    neededBy: 'the sandbox gate test (sandbox-gate.test.ts)',
  });
// The coordinator (`helper`) is the root executor's form; `wrap` sets the rules before bwrap starts.
const helper = pasta && root && pastaForm(root, runAs) === 'helper';
const withHelper = helper ? it : it.skip;
if (pasta && !helper)
  console.warn('sandbox-gate.test.ts: skipped, this machine runs pasta in `wrap` form (no coordinator)');

/** The processes whose arguments contain `needle`: pid and args. */
function running(needle: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(needle) && !l.includes('ps -eo'));
}

function killIfThere(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone already */
  }
}

async function until(what: string, done: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

withHelper('a coordinator killed before the gate opens leaves no process of the run behind', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'railyard-gate-'));
  chmodSync(dir, 0o755);
  const marker = `gate-${randomUUID().slice(0, 8)}`;
  const holding = join(dir, 'holding');
  const started = join(dir, 'started');
  // `ip` as the coordinator runs it, except that the rule batch holds (the coordinator is then between
  // starting bwrap and opening the gate).
  const ip = join(dir, 'ip');
  writeFileSync(
    ip,
    `#!/bin/bash\nfor a; do [ "$a" = -batch ] && { echo $$ > ${holding}; exec sleep 20; }; done\nexec ${ipCommand()} "$@"\n`,
  );
  chmodSync(ip, 0o755);
  const line = pastaSpawn('helper', {
    pasta: 'pasta',
    bwrap: 'bwrap',
    bwrapOptions: [
      '--unshare-user',
      '--unshare-pid',
      '--die-with-parent',
      ...['--ro-bind', '/usr', '/usr'],
      ...systemLinks(),
      ...['--proc', '/proc', '--dev', '/dev', '--bind', dir, dir],
    ],
    command: ['bash', '-c', `touch ${started}; exec sleep 30 # ${marker}`],
    runAs,
    root,
    ip,
    rules: addressRules(currentPolicy([], [])),
    log: false,
  });
  const coordinator = spawn(line.file, line.args, { stdio: 'ignore' });
  try {
    await until('the coordinator to reach the rules', () => existsSync(holding), 20_000);
    expect(running(marker).length).toBeGreaterThanOrEqual(2); // the outer bwrap and its sandboxed child
    coordinator.kill('SIGKILL');
    await until('every process of the run to be gone', () => running(marker).length === 0, 10_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}; still running:\n${running(marker).join('\n')}`);
      },
    );
    expect(existsSync(started)).toBe(false);
  } finally {
    for (const l of running(marker)) killIfThere(Number(l.trim().split(' ')[0]));
    const held = existsSync(holding) ? Number(readFileSync(holding, 'utf8')) : 0;
    if (held > 0) killIfThere(held);
    rmSync(dir, { recursive: true, force: true });
  }
});
