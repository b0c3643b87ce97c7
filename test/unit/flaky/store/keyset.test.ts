/**
 * The pure parts of the one-statement list pages: the page object's cursors from the anchor keys
 * (keysetPosition) and the placeholder numbering the statements are assembled with (sqlParams).
 */
import fc from 'fast-check';
import { keysetPosition } from '../../../../flaky/store/keyset';
import { sqlParams } from '../../../../flaky/store/sql-params';

/** Keys are the 1-based ranks themselves, so a cursor says where the next page starts. */
const position = (total: number, offset: number, size: number) =>
  keysetPosition(total, offset, size, (p) => (p >= 1 && p <= total ? p : undefined));

test.each([
  ['empty set', 0, 0, 10, {}],
  ['one page', 7, 0, 10, { last: null }],
  ['first of three', 25, 0, 10, { next: 10, last: 20 }],
  ['second of three: prev is the first page', 25, 10, 10, { next: 20, prev: null, last: 20 }],
  ['last of three', 25, 20, 10, { prev: 10, last: 20 }],
  ['a cursor between pages: prev from the start', 25, 5, 10, { next: 15, prev: null, last: 20 }],
])('%s', (_name, total, offset, size, cursors) => {
  expect(position(total, offset, size)).toEqual({ total, offset, ...cursors });
});

test('following next from the start visits every row once; prev walks back to the start', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 60 }), (total, size) => {
      const offsets: number[] = [];
      let page = position(total, 0, size);
      offsets.push(page.offset);
      while (page.next !== undefined) {
        page = position(total, page.next, size);
        offsets.push(page.offset);
      }
      expect(offsets).toEqual(
        Array.from({ length: Math.max(1, Math.ceil(total / size)) }, (_, i) => i * size),
      );
      expect(total === 0 ? undefined : (page.last ?? 0)).toBe(total === 0 ? undefined : page.offset);
      let steps = 0;
      while (page.prev !== undefined) {
        page = position(total, page.prev ?? 0, size);
        steps += 1;
      }
      expect([page.offset, steps]).toEqual([0, offsets.length - 1]);
    }),
  );
});

test('a missing anchor (the set moved under the cursor) falls back to the last page', () => {
  const keyAt = (p: number) => (p === 40 ? 'last' : undefined);
  expect(keysetPosition(45, 30, 10, keyAt)).toEqual({
    total: 45,
    offset: 30,
    next: 'last',
    prev: 'last',
    last: 'last',
  });
  expect(keysetPosition(45, 10, 10, keyAt).prev).toBeNull();
});

test('sqlParams numbers placeholders in the order values are added', () => {
  const p = sqlParams();
  expect([p.add('a'), p.add(2, 'int'), p.add(null, 'text')]).toEqual(['$1', '$2::int', '$3::text']);
  expect(p.values).toEqual(['a', 2, null]);
});
