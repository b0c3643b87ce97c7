/**
 * Golden scenario 13 as a property: the same uploads in any order, or sent again (even later),
 * give the same statuses, reasons and timestamps. Also: skipped results never change anything,
 * and re-evaluating an unchanged history is not a transition.
 */
import fc from 'fast-check';
import {
  classifyAll,
  DEFAULT_CLASSIFICATION_PARAMS as params,
  mustRecord,
  transition,
  type BranchClass,
  type ObservedResult,
  type Outcome,
  type UploadSummary,
} from '../../../../flaky/classification';
import { DAY, HOUR, T0 } from './builders';

interface Upload {
  readonly uploadId: string;
  readonly results: ObservedResult[];
  readonly summary: UploadSummary;
}

const uploadArb = (index: number) =>
  fc
    .record({
      commit: fc.integer({ min: 0, max: 6 }),
      branchClass: fc.constantFrom<BranchClass>('stable', 'stable', 'merge_queue', 'pr', 'other'),
      hour: fc.integer({ min: 0, max: 40 * 24 }),
      tests: fc.array(
        fc.record({
          testId: fc.constantFrom('alpha', 'beta', 'gamma'),
          outcomes: fc.array(fc.constantFrom<Outcome>('pass', 'pass', 'fail', 'skip'), {
            minLength: 1,
            maxLength: 3,
          }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      crowd: fc.constantFrom(0, 0, 0, 25),
    })
    .map(({ commit, branchClass, hour, tests, crowd }): Upload => {
      const uploadId = `u${index}`;
      const seen = new Set<string>();
      const results = tests
        .filter(({ testId }) => !seen.has(testId) && seen.add(testId))
        .flatMap(({ testId, outcomes }) =>
          outcomes.map((outcome, attempt) => ({
            uploadId,
            testId,
            attempt,
            outcome,
            commitSha: `sha${commit}`,
            branchClass,
            at: new Date(T0 + hour * HOUR),
          })),
        );
      const ran = results.filter((r) => r.outcome !== 'skip');
      // `crowd` stands for other tests' failures in the same upload, sometimes enough for D4.
      const summary = {
        uploadId,
        results: ran.length + crowd,
        failures: ran.filter((r) => r.outcome === 'fail').length + crowd,
      };
      return { uploadId, results, summary };
    });

const historyArb: fc.Arbitrary<Upload[]> = fc
  .integer({ min: 1, max: 25 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => uploadArb(i))));

function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i -= 1) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function evaluate(uploads: readonly Upload[], now: number) {
  const verdicts = classifyAll(
    uploads.flatMap((u) => u.results),
    uploads.map((u) => u.summary),
    params,
    new Date(now),
  );
  return Object.fromEntries(verdicts);
}

const nowArb = fc.integer({ min: 0, max: 45 * 24 }).map((hour) => T0 + hour * HOUR + 1);

describe('classification does not depend on arrival order or duplicates (scenario 13)', () => {
  test('shuffled uploads give identical outputs', () => {
    fc.assert(
      fc.property(historyArb, nowArb, fc.integer(), (uploads, now, seed) => {
        const shuffled = shuffle(uploads, seed).map((u) => ({ ...u, results: shuffle(u.results, seed + 1) }));
        expect(evaluate(shuffled, now)).toEqual(evaluate(uploads, now));
      }),
      { numRuns: 150 },
    );
  });

  test('uploads sent twice, even hours later, give identical outputs', () => {
    fc.assert(
      fc.property(
        historyArb,
        nowArb,
        fc.integer(),
        fc.integer({ min: 0, max: 48 }),
        (uploads, now, seed, delayHours) => {
          const resent = shuffle(uploads, seed)
            .slice(0, Math.max(1, uploads.length >> 1))
            .map((u) => ({
              ...u,
              results: u.results.map((r) => ({ ...r, at: new Date(r.at.getTime() + delayHours * HOUR) })),
            }));
          expect(evaluate(shuffle([...uploads, ...resent], seed), now)).toEqual(evaluate(uploads, now));
        },
      ),
      { numRuns: 150 },
    );
  });

  test('adding skipped results changes nothing', () => {
    fc.assert(
      fc.property(historyArb, nowArb, (uploads, now) => {
        const skips = uploads.map((u, i) => ({
          uploadId: `skip${i}`,
          results: u.results.map((r) => ({
            ...r,
            uploadId: `skip${i}`,
            outcome: 'skip' as const,
            at: new Date(r.at.getTime() + DAY),
          })),
          summary: { uploadId: `skip${i}`, results: 0, failures: 0 },
        }));
        const withSkips = evaluate([...uploads, ...skips], now);
        const without = evaluate(uploads, now);
        for (const [testId, verdict] of Object.entries(without)) expect(withSkips[testId]).toEqual(verdict);
      }),
      { numRuns: 100 },
    );
  });

  test('re-evaluating the same history is never recorded as a transition', () => {
    fc.assert(
      fc.property(historyArb, nowArb, (uploads, now) => {
        for (const verdict of Object.values(evaluate(uploads, now))) {
          expect(mustRecord(transition(verdict, verdict))).toBe(false);
        }
      }),
      { numRuns: 50 },
    );
  });
});
