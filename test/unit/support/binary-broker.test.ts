/**
 * The binary broker (test/support/binary-broker.ts) carries bytes both ways unchanged, reports the
 * exit code and standard error, fails a command it cannot start, and starts a new helper after close.
 */
import { createBinaryBroker } from '../../support/binary-broker';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

describe('binary broker', () => {
  const broker = createBinaryBroker();
  afterAll(() => broker.close());

  it('hands every byte over and back unchanged', async () => {
    const input = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7) % 256));
    const out = await broker.run({ file: 'cat', args: [], env, input });
    expect(out.code).toBe(0);
    expect(out.stdout.equals(input)).toBe(true);
  });

  it('reports the exit code, standard error and the environment given', async () => {
    const out = await broker.run({
      file: 'sh',
      args: ['-c', 'printf "$ONLY"; echo broken >&2; exit 4'],
      env: { ...env, ONLY: 'set' },
      input: Buffer.alloc(0),
    });
    expect(out).toMatchObject({ code: 4 });
    expect(out.stdout.toString()).toBe('set');
    expect(out.stderr.toString()).toBe('broken\n');
  });

  it('fails a command that cannot start, and starts again after close', async () => {
    await expect(
      broker.run({ file: '/nonexistent/program', args: [], env, input: Buffer.alloc(0) }),
    ).rejects.toThrow(/ENOENT/);
    broker.close();
    const out = await broker.run({ file: 'echo', args: ['again'], env, input: Buffer.alloc(0) });
    expect(out.stdout.toString()).toBe('again\n');
  });
});
