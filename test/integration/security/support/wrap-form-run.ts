/**
 * Runs one network-on sandboxed command in pasta's `wrap` form, for sandbox-network.test.ts on machines
 * whose /dev/net/tun is root's only (where the executor uses the `helper` form). Started by the test
 * under `unshare --mount` with a 0666 tun node bound over /dev/net/tun in that mount namespace only, so
 * that pastaForm picks `wrap`; nothing outside the namespace changes. Prints one JSON line: the form,
 * the exit status and the command's output.
 *
 *   tsx wrap-form-run.ts <checkout> <command> [allowed address]
 */
import { spawnSync } from 'node:child_process';
import { DEFAULT_SANDBOX, sandboxedCommand } from '../../../../executor/sandbox';
import { parseRange } from '../../../../executor/sandbox-addresses';
import { pastaForm } from '../../../../executor/sandbox-network';

const [checkout, command, allowed] = process.argv.slice(2);
const root = process.getuid?.() === 0;
const settings = {
  ...DEFAULT_SANDBOX,
  bwrap: 'bwrap',
  pasta: 'pasta',
  network: true,
  networkAllow: allowed ? [parseRange(allowed)!] : [],
};
const line = sandboxedCommand(settings, {
  command: command!,
  checkout: checkout!,
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
});
const result = spawnSync(line.file, line.args, {
  encoding: 'utf8',
  timeout: 60_000,
  cwd: '/',
  ...(line.ids ?? {}),
});
process.stdout.write(
  `${JSON.stringify({
    form: pastaForm(root, settings.runAs),
    status: result.status,
    output: `${result.stdout}${result.stderr}`,
  })}\n`,
);
