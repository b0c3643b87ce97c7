/** The preflight's verdict (engine/preflight.ts): a table of cases, and the rule's invariants. */
import fc from 'fast-check';
import {
  checkStall,
  judgePreflightChecks,
  type PreflightChecks,
  type PreflightChecksInput,
} from '../../../engine';

const NOW = 1_000_000;
const base: PreflightChecksInput = { required: ['test'], reported: [], now: NOW, deadline: NOW + 60_000 };

describe('judgePreflightChecks', () => {
  const table: [string, Partial<PreflightChecksInput>, PreflightChecks][] = [
    ['no required check: nothing to wait for', { required: [] }, { kind: 'nothing_required' }],
    [
      'the required check reported: started at once',
      { reported: ['test'] },
      { kind: 'started', started: ['test'] },
    ],
    [
      'any report counts, also one after the deadline',
      { reported: ['lint', 'test'], now: NOW + 120_000 },
      { kind: 'started', started: ['test'] },
    ],
    ['nothing yet before the deadline: wait on', {}, { kind: 'waiting', started: [], missing: ['test'] }],
    [
      'nothing at all at the deadline: no workflow runs on the test-branch prefix',
      { now: NOW + 60_000 },
      { kind: 'missing', started: [], missing: ['test'], cause: 'nothing_reported' },
    ],
    [
      'other checks reported, not the required one: not produced on branches',
      { reported: ['lint'], now: NOW + 61_000 },
      { kind: 'missing', started: [], missing: ['test'], cause: 'not_produced' },
    ],
    [
      'the started and the missing are both named, in the order required, once each',
      { required: ['build', 'test', 'e2e', 'test'], reported: ['test'], now: NOW + 60_000 },
      { kind: 'missing', started: ['test'], missing: ['build', 'e2e'], cause: 'not_produced' },
    ],
  ];
  it.each(table)('%s', (_name, patch, expected) => {
    expect(judgePreflightChecks({ ...base, ...patch })).toEqual(expected);
  });

  it('splits the required set exactly, and agrees with the stall rule on the cause', () => {
    const name = fc.constantFrom<string>('build', 'test', 'lint', 'e2e');
    fc.assert(
      fc.property(
        fc.array(name, { maxLength: 5 }),
        fc.array(name, { maxLength: 5 }),
        fc.boolean(),
        (required, reported, late) => {
          const now = late ? NOW + 60_000 : NOW;
          const v = judgePreflightChecks({ ...base, required, reported, now });
          const set = [...new Set(required)];
          if (set.length === 0) return expect(v.kind).toBe('nothing_required');
          if (v.kind === 'nothing_required') throw new Error('required checks were given');
          const missing = v.kind === 'started' ? [] : v.missing;
          expect([...v.started, ...missing].sort()).toEqual([...set].sort());
          expect(v.started.every((c) => reported.includes(c))).toBe(true);
          expect(missing.some((c) => reported.includes(c))).toBe(false);
          if (v.kind === 'missing') {
            expect(late).toBe(true);
            // The same answer the stalled-check rule gives a run whose grace just ended.
            const stall = checkStall({
              required,
              reported,
              pushedAt: NOW,
              now: NOW + 60_000,
              graceMinutes: 1,
            });
            expect(stall).toMatchObject({ kind: 'stalled', checks: v.missing, cause: v.cause });
          }
        },
      ),
    );
  });
});
