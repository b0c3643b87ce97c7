/**
 * The fixtures' synchronous broker (test/support/sync-broker.ts) keeps execFileSync's contract: the
 * standard output comes back, a failing command throws with its status and standard error, input,
 * working directory and environment reach the command, and a closed broker starts a new helper.
 */
import os from 'node:os';
import { createSyncBroker } from '../../support/sync-broker';

describe('sync broker', () => {
  const broker = createSyncBroker();
  afterAll(() => broker.close());

  it('returns the standard output, with the working directory and environment given', () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', GREETING: 'hello' };
    expect(broker.run('sh', ['-c', 'echo "$GREETING from $(pwd)"'], { cwd: os.tmpdir(), env })).toBe(
      `hello from ${os.tmpdir()}\n`,
    );
  });

  it('hands the input over and carries large output whole', () => {
    const input = 'x'.repeat(300_000);
    expect(broker.run('cat', [], { input })).toBe(input);
  });

  it('throws on a failing command with its status and standard error, and goes on working', () => {
    let thrown: unknown;
    try {
      broker.run('sh', ['-c', 'echo out; echo broken >&2; exit 3']);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toMatchObject({ status: 3, stdout: 'out\n', stderr: 'broken\n' });
    expect(String((thrown as Error).message)).toMatch(/exit 3.*\n.*broken/s);
    expect(() => broker.run('/nonexistent/command', [])).toThrow(/ENOENT/);
    expect(broker.run('echo', ['still here'])).toBe('still here\n');
  });

  it('starts a new helper after close', () => {
    broker.close();
    expect(broker.run('echo', ['again'])).toBe('again\n');
  });
});
