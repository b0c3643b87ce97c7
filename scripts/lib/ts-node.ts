/**
 * Runs a TypeScript entry point as a single Node process with railyard's require hook
 * (`node --require scripts/lib/ts-require.cjs`; it says why not tsx's loader), not through the tsx CLI:
 * the CLI is a second process that relays signals and SIGKILLs its child when the child does not
 * acknowledge a signal within 30 ms, which cuts a graceful shutdown short under load.
 */
import path from 'node:path';

const HOOK = path.join(__dirname, 'ts-require.cjs');

/** [command, args] for `spawn`. */
export function tsNode(entry: string, ...args: string[]): [string, string[]] {
  return [process.execPath, ['--require', HOOK, entry, ...args]];
}
