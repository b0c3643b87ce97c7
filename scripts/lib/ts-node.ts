/**
 * Runs a TypeScript entry point as a single Node process with tsx's loader (`node --import tsx`), not
 * through the tsx CLI: the CLI is a second process that relays signals and SIGKILLs its child when the
 * child does not acknowledge a signal within 30 ms, which cuts a graceful shutdown short under load.
 */
import { pathToFileURL } from 'node:url';
import module from 'node:module';

/** [command, args] for `spawn`; Node without module.register (before 20.6) gets tsx as `--loader`. */
export function tsNode(entry: string, ...args: string[]): [string, string[]] {
  const loader = pathToFileURL(require.resolve('tsx')).href;
  const flag = typeof (module as { register?: unknown }).register === 'function' ? '--import' : '--loader';
  return [process.execPath, [flag, loader, entry, ...args]];
}
