/** Array literals without quoting: only for values that need none, anything else is refused. */
import { plainArray } from '../../../../flaky/store/pg-arrays';

test('integers, uuids, words, booleans and nulls', () => {
  expect(plainArray([1, '22', null, 'fail', true, false, '243c6ca1-0eb9-5391-a1ef-5e042bd810b8'])).toBe(
    '{1,22,NULL,fail,t,f,243c6ca1-0eb9-5391-a1ef-5e042bd810b8}',
  );
  expect(plainArray([])).toBe('{}');
});

test.each(['', 'a b', 'a,b', '"x"', 'null', '{1}', 'é'])('%j is refused', (value) => {
  expect(() => plainArray([value])).toThrow('not a plain array element');
});
