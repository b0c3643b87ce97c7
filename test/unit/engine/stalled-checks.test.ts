/** The stalled-check rule (engine/stalled-checks.ts): a table of cases, and the rule's invariants. */
import { checkStall, type CheckStall, type CheckStallInput } from '../../../engine';

const MIN = 60_000;
const PUSHED = 1_000_000;
const base: CheckStallInput = {
  required: ['test'],
  reported: [],
  pushedAt: PUSHED,
  now: PUSHED,
  graceMinutes: 5,
};

describe('checkStall', () => {
  const table: [string, Partial<CheckStallInput>, CheckStall][] = [
    ['a grace of 0 turns the rule off', { graceMinutes: 0, now: PUSHED + 60 * MIN }, { kind: 'off' }],
    ['a negative grace is off too', { graceMinutes: -1, now: PUSHED + 60 * MIN }, { kind: 'off' }],
    ['no required checks: nothing can stall', { required: [], now: PUSHED + 60 * MIN }, { kind: 'off' }],
    ['the required check reported: started', { reported: ['test'] }, { kind: 'started' }],
    [
      'a pending report counts as started, also long after the grace',
      { reported: ['lint', 'test'], now: PUSHED + 60 * MIN },
      { kind: 'started' },
    ],
    [
      'nothing yet, inside the grace: wait until its end',
      { now: PUSHED + 4 * MIN },
      { kind: 'waiting', decideAt: PUSHED + 5 * MIN },
    ],
    [
      'nothing at all at the end of the grace: no CI on the test branch',
      { now: PUSHED + 5 * MIN },
      { kind: 'stalled', checks: ['test'], cause: 'nothing_reported', since: PUSHED + 5 * MIN },
    ],
    [
      'other checks reported, not the required one: not produced on branches',
      { reported: ['lint'], now: PUSHED + 6 * MIN },
      { kind: 'stalled', checks: ['test'], cause: 'not_produced', since: PUSHED + 5 * MIN },
    ],
    [
      'only the missing ones are named, in the order required, once each',
      { required: ['build', 'test', 'e2e', 'test'], reported: ['test'], now: PUSHED + 10 * MIN },
      { kind: 'stalled', checks: ['build', 'e2e'], cause: 'not_produced', since: PUSHED + 5 * MIN },
    ],
    [
      'a longer grace waits longer',
      { graceMinutes: 30, now: PUSHED + 10 * MIN },
      { kind: 'waiting', decideAt: PUSHED + 30 * MIN },
    ],
  ];
  it.each(table)('%s', (_name, patch, expected) => {
    expect(checkStall({ ...base, ...patch })).toEqual(expected);
  });

  it('never says stalled before the grace ends, and never names a check that reported', () => {
    const names = ['a', 'b', 'c'];
    for (let mask = 0; mask < 8; mask++) {
      const reported = names.filter((_, i) => mask & (1 << i));
      for (const minutes of [0, 1, 4.99, 5, 7, 500]) {
        const stall = checkStall({ ...base, required: names, reported, now: PUSHED + minutes * MIN });
        if (stall.kind === 'stalled') {
          expect(minutes).toBeGreaterThanOrEqual(5);
          expect(stall.checks.some((c) => reported.includes(c))).toBe(false);
          expect(stall.checks.length).toBeGreaterThan(0);
        }
        if (reported.length === names.length) expect(stall).toEqual({ kind: 'started' });
      }
    }
  });
});
