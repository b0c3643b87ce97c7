/** splitWindow: whole UTC days plus two edges that together cover exactly [from, to). */
import fc from 'fast-check';
import { dayOf, daysBefore, splitWindow } from '../../../../flaky/store/windows';

const at = (iso: string) => new Date(iso);
const DAY = 86_400_000;

test.each([
  [
    'a week from noon to noon',
    '2026-11-13T12:00:00Z',
    '2026-11-20T12:00:00Z',
    {
      fullFrom: '2026-11-14',
      fullTo: '2026-11-20',
      edges: [
        ['2026-11-13T12:00:00.000Z', '2026-11-14T00:00:00.000Z'],
        ['2026-11-20T00:00:00.000Z', '2026-11-20T12:00:00.000Z'],
      ],
    },
  ],
  [
    'aligned on midnights: no edges',
    '2026-11-13T00:00:00Z',
    '2026-11-15T00:00:00Z',
    {
      fullFrom: '2026-11-13',
      fullTo: '2026-11-15',
      edges: [
        ['2026-11-13T00:00:00.000Z', '2026-11-13T00:00:00.000Z'],
        ['2026-11-15T00:00:00.000Z', '2026-11-15T00:00:00.000Z'],
      ],
    },
  ],
  [
    'inside one day: one edge, no whole day',
    '2026-11-13T01:00:00Z',
    '2026-11-13T02:00:00Z',
    {
      fullFrom: '2026-11-14',
      fullTo: '2026-11-14',
      edges: [
        ['2026-11-13T01:00:00.000Z', '2026-11-13T02:00:00.000Z'],
        ['2026-11-13T02:00:00.000Z', '2026-11-13T02:00:00.000Z'],
      ],
    },
  ],
])('%s', (_name, from, to, expected) => {
  const split = splitWindow(at(from), at(to));
  expect({ ...split, edges: split.edges.map((e) => [e.start.toISOString(), e.end.toISOString()]) }).toEqual(
    expected,
  );
});

test('every instant of the window is in exactly one part, and nothing outside is', () => {
  const base = Date.UTC(2026, 0, 1);
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 10 * DAY }),
      fc.integer({ min: 0, max: 8 * DAY }),
      fc.integer({ min: -DAY, max: 10 * DAY }),
      (start, length, probe) => {
        const from = base + start;
        const to = from + length;
        const split = splitWindow(new Date(from), new Date(to));
        const instant = base + start + probe;
        const day = dayOf(new Date(instant));
        const inDays = day >= split.fullFrom && day < split.fullTo ? 1 : 0;
        const inEdges = split.edges.filter(
          (e) => instant >= e.start.getTime() && instant < e.end.getTime(),
        ).length;
        expect(inDays + inEdges).toBe(instant >= from && instant < to ? 1 : 0);
      },
    ),
  );
});

test('daysBefore counts UTC days', () => {
  expect(daysBefore(at('2026-11-20T23:59:59Z'), 0)).toBe('2026-11-20');
  expect(daysBefore(at('2026-11-20T00:00:00Z'), 29)).toBe('2026-10-22');
});
