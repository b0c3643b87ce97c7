/**
 * A side-effects call's keys (workflows/queue/side-effect-calls.ts `occurrenceKeys`): unique within the
 * call, and each names its effect whatever the call's order, so a replay that holds the same effects in
 * another order reads a live result's keys as the live run did (PUMP_IN_TURN_PATCH).
 */
import fc from 'fast-check';
import { keyOf, occurrenceKeys } from '../../../workflows/queue/side-effect-calls';

const number = (keys: string[]) => {
  const key = occurrenceKeys();
  return keys.map(key);
};

test('equal keys are numbered by their occurrence, others keep 1', () => {
  expect(number(['append', 'delete:b', 'notify:s:3', 'delete:b'])).toEqual([
    '1:append',
    '1:delete:b',
    '1:notify:s:3',
    '2:delete:b',
  ]);
});

test('every call starts again at 1', () => {
  expect(number(['append'])).toEqual(['1:append']);
  expect(number(['append'])).toEqual(['1:append']);
});

test('keys are unique within a call, strip back to what was produced, and do not depend on the order of distinct keys', () => {
  const base = fc.constantFrom('append', 'delete:b', 'notify:s:3', 'refresh:s:2', 'notify:t:1');
  fc.assert(
    fc.property(fc.array(base, { maxLength: 30 }), fc.infiniteStream(fc.nat()), (keys, ranks) => {
      const sent = number(keys);
      expect(new Set(sent).size).toBe(sent.length);
      expect(sent.map(keyOf)).toEqual(keys);
      // Shuffled so that equal keys keep their order among themselves: each effect gets the same key.
      const order = keys.map((k, i) => ({ k, i, r: ranks.next().value as number }));
      const firstRank = new Map<string, number>();
      for (const o of order) if (!firstRank.has(o.k)) firstRank.set(o.k, o.r);
      const shuffled = [...order].sort((a, b) => firstRank.get(a.k)! - firstRank.get(b.k)! || a.i - b.i);
      const again = number(shuffled.map((o) => o.k));
      const byIndex = new Map(shuffled.map((o, j) => [o.i, again[j]]));
      expect(keys.map((_, i) => byIndex.get(i))).toEqual(sent);
    }),
  );
});
