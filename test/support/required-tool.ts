/**
 * The rule for tests that need a tool of the machine (bwrap, pasta, ...): where the tool is missing or
 * cannot run, under CI (the `CI` variable set, as CI runners do for `.ci/run`) the suite FAILS, naming
 * the tool, why it cannot run and how to install it; anywhere else the cases that need it are skipped
 * and a warning says which, why and how to install it. Never a silent skip.
 *
 *   const bwrap = requireTool({ tool: 'bwrap', probe: probeSandbox('bwrap'), install: INSTALL.bwrap,
 *     neededBy: 'the sandbox attack suite' });
 *   (bwrap ? describe : describe.skip)('...', () => { ... });
 *
 * The probe is the caller's (probeSandbox's answer fits; a service such as the npm registry is probed
 * the same way): shadowing the tool with a failing executable first in PATH is how to see the rule act.
 */

export type ToolProbe = { kind: 'available' } | { kind: 'unavailable'; reason: string };

export interface ToolNeed {
  /** The tool as its command is named: "bwrap", "pasta". */
  tool: string;
  /** Whether it runs here, and why not. */
  probe: ToolProbe;
  /** How to get it: the command that installs it (or what a service needs: a network route). */
  install: string;
  /** What needs it (and is skipped without it): "the sandbox attack suite". */
  neededBy: string;
}

/** How to install the sandbox's tools: scripts/ensure-bwrap.sh, which `npm test` runs. */
export const INSTALL = {
  bwrap: 'bash scripts/ensure-bwrap.sh (Debian package bubblewrap; npm test runs it)',
  pasta: 'bash scripts/ensure-bwrap.sh (Debian package passt; npm test runs it)',
} as const;

export class MissingToolError extends Error {
  override name = 'MissingToolError';
}

/** Whether this run is CI's: `CI` set to anything but empty, 0 or false. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

const warned = new Set<string>();

/**
 * true when `need.tool` runs here. Otherwise: under CI throws a MissingToolError (at a suite's top
 * level, jest fails the suite with it); elsewhere warns (once per message and test file) and returns
 * false, so the caller skips what needs the tool.
 */
export function requireTool(
  need: ToolNeed,
  opts: { env?: NodeJS.ProcessEnv; warn?: (message: string) => void } = {},
): boolean {
  if (need.probe.kind === 'available') return true;
  const why = `${need.neededBy} cannot run without ${need.tool}: ${need.probe.reason}. To get it: ${need.install}.`;
  if (inCi(opts.env)) throw new MissingToolError(`${why} CI is set, so this fails instead of skipping.`);
  const message = `\n!!! SKIPPED: ${why}\n!!! (Under CI, with CI set, this is a failure.)\n`;
  if (!warned.has(message)) {
    warned.add(message);
    // Straight to stderr: jest prints no console output for a file whose every case was skipped.
    (opts.warn ?? ((m: string) => process.stderr.write(`${m}\n`)))(message);
  }
  return false;
}
