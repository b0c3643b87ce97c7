/**
 * The supervisor's stop on real processes: a child that ignores its stop signal and has a grandchild
 * in a session of its own is killed with everything below it once its grace is over; a stop announces
 * what it waits for; repeated stops are one stop; nothing starts after a stop began; tiers stop in order.
 */
import { Supervisor } from '../../../scripts/lib/supervisor';
import { descendants, isSameProcess, processInfo } from '../../../scripts/lib/process-tree';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(ok: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

describe('Supervisor.stopAll', () => {
  it('SIGKILLs a child that ignores its stop signal after its grace, with what it started in other sessions', async () => {
    const lines: string[] = [];
    const sup = new Supervisor((m) => lines.push(m));
    // Ignores SIGTERM; starts a sleeper in a session of its own (out of reach of a group kill).
    const stubborn = sup.start(
      'stubborn',
      'bash',
      ['-c', 'trap "" TERM; setsid sleep 300 & sleep 300 & wait'],
      { graceMs: 1_500, stopReason: 'finishing its work', quiet: true },
    );
    // Both sleepers started, the setsid one already in a session of its own (not just forked).
    await until(
      () =>
        descendants(stubborn.child.pid!).length >= 2 &&
        descendants(stubborn.child.pid!).some((p) => processInfo(p.pid)?.pgid !== stubborn.child.pid),
    );
    const below = descendants(stubborn.child.pid!).map((p) => ({ pid: p.pid, start: p.startTime }));
    const outOfGroup = below.filter((p) => processInfo(p.pid)?.pgid !== stubborn.child.pid);
    expect(outOfGroup.length).toBeGreaterThan(0);

    const started = Date.now();
    const first = sup.stopAll(10_000);
    expect(sup.stopAll(10_000)).toBe(first); // a repeated signal joins the same stop
    await sleep(1_200);
    expect(sup.waitingFor()).toMatch(
      /^waiting for stubborn to exit \(finishing its work\), SIGKILL in \d s$/,
    );
    await first;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(lines.join('\n')).toMatch(/waiting for stubborn to exit \(finishing its work\), SIGKILL in/);
    expect(lines.join('\n')).toMatch(/stubborn did not stop within 2 s; killing it \(SIGKILL\)/);
    await until(() => below.every((p) => !isSameProcess(p.pid, p.start)));
    expect(() => sup.start('late', 'sleep', ['1'])).toThrow(/stopping/);
  });

  it('stops higher tiers first and waits for each before the next', async () => {
    const order: string[] = [];
    const sup = new Supervisor(() => undefined);
    const infra = sup.start('infra', 'bash', ['-c', 'trap "exit 0" TERM; sleep 300 & wait'], {
      tier: 0,
      quiet: true,
    });
    const app = sup.start('app', 'bash', ['-c', 'trap "sleep 0.5; exit 0" TERM; sleep 300 & wait'], {
      tier: 1,
      quiet: true,
    });
    void infra.exited.then(() => order.push('infra'));
    void app.exited.then(() => order.push('app'));
    await sleep(300);
    await sup.stopAll(5_000);
    expect(order).toEqual(['app', 'infra']);
  });
});
