/**
 * The rule of test/support/required-tool.ts: a tool that runs lets the suite run; a missing one fails
 * it under CI, naming the tool, the reason and how to install it, and elsewhere skips it with a warning
 * saying the same. Never a silent skip.
 */
import { inCi, INSTALL, MissingToolError, requireTool, type ToolNeed } from '../../support/required-tool';

const missing: ToolNeed = {
  tool: 'bwrap',
  probe: { kind: 'unavailable', reason: 'bwrap is not installed (Debian package bubblewrap)' },
  install: INSTALL.bwrap,
  neededBy: 'the sandbox attack suite',
};

it('reads CI as CI runners set it', () => {
  expect([undefined, '', '0', 'false', 'FALSE', ' '].map((CI) => inCi({ CI }))).toEqual(Array(6).fill(false));
  expect(['true', '1', 'yes', 'TRUE'].map((CI) => inCi({ CI }))).toEqual(Array(4).fill(true));
});

it('lets the suite run when the tool runs, CI or not, without a word', () => {
  const warn = jest.fn();
  const here = { ...missing, probe: { kind: 'available' } as const };
  expect(requireTool(here, { env: { CI: 'true' }, warn })).toBe(true);
  expect(requireTool(here, { env: {}, warn })).toBe(true);
  expect(warn).not.toHaveBeenCalled();
});

it('under CI throws for a missing tool, naming it, why and how to install it', () => {
  const warn = jest.fn();
  const call = () => requireTool(missing, { env: { CI: 'true' }, warn });
  expect(call).toThrow(MissingToolError);
  expect(call).toThrow(
    'the sandbox attack suite cannot run without bwrap: bwrap is not installed (Debian package bubblewrap). ' +
      'To get it: bash scripts/ensure-bwrap.sh (Debian package bubblewrap; npm test runs it). ' +
      'CI is set, so this fails instead of skipping.',
  );
  expect(warn).not.toHaveBeenCalled();
});

it('outside CI skips, saying what is skipped, why and how to install the tool, once', () => {
  const warn = jest.fn();
  const need = { ...missing, neededBy: 'the pasta cases', tool: 'pasta', install: INSTALL.pasta };
  expect(requireTool(need, { env: {}, warn })).toBe(false);
  expect(requireTool(need, { env: { CI: 'false' }, warn })).toBe(false);
  expect(warn).toHaveBeenCalledTimes(1);
  const message = warn.mock.calls[0]![0] as string;
  expect(message).toContain('SKIPPED: the pasta cases cannot run without pasta: ');
  expect(message).toContain('bwrap is not installed (Debian package bubblewrap)');
  expect(message).toContain('To get it: bash scripts/ensure-bwrap.sh (Debian package passt');
  expect(message).toContain('Under CI, with CI set, this is a failure.');
});
