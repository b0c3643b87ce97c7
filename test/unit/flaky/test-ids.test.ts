/**
 * The test id cache answers exactly what testCaseId computes, whatever was asked before: fields that
 * differ anywhere (organisation, repository, variant, file, classname, parent, name, own id) never
 * share an id unless testCaseId says so, an absent file is the empty one (as testCaseId encodes it),
 * and ids evicted by the bound come back the same. A working set under half the bound (the young
 * generation) is remembered whole: CI cycles through all its tests, so a smaller bound misses always.
 */
import fc from 'fast-check';
import { testCaseId } from '../../../flaky/identity';
import type * as Identity from '../../../flaky/identity';
import {
  computedTestIds,
  createTestIdCache,
  DEFAULT_TEST_ID_CACHE_ENTRIES,
  type TestIdentity,
  type UploadScope,
} from '../../../flaky/test-ids';

// Counts the ids computed (not remembered); every call still computes the real id.
jest.mock('../../../flaky/identity', () => {
  const actual = jest.requireActual<typeof Identity>('../../../flaky/identity');
  return { ...actual, testCaseId: jest.fn(actual.testCaseId) };
});

const repository = { host: 'github.com', owner: 'acme', name: 'shop' };
const scope = (variant: string, organisationSlug = 'acme', repo = repository): UploadScope => ({
  organisationSlug,
  repository: repo,
  variant,
});

const expected = (s: UploadScope, test: TestIdentity) => {
  const { id, ...fields } = test;
  return testCaseId({ ...s, ...fields, ...(id === undefined ? {} : { existingId: id }) });
};

test('a remembered id is the computed id', () => {
  const ids = createTestIdCache(100);
  const test1 = { file: 'a.ts', classname: 'c', parent: 'p', name: 'n' };
  const idOf = ids.forUpload(scope('linux'));
  expect(idOf(test1)).toBe(expected(scope('linux'), test1));
  expect(idOf({ ...test1 })).toBe(expected(scope('linux'), test1));
  expect(computedTestIds.forUpload(scope('linux'))(test1)).toBe(expected(scope('linux'), test1));
});

test('the cache is kept per organisation: the same test of another organisation has its own id', () => {
  const ids = createTestIdCache(100);
  const test1 = { classname: 'c', parent: 'p', name: 'n' };
  const acme = ids.forUpload(scope('', 'acme'))(test1);
  const globex = ids.forUpload(scope('', 'globex'))(test1);
  expect(globex).not.toBe(acme);
  expect(globex).toBe(expected(scope('', 'globex'), test1));
});

test('an absent file and an empty one are the same test, as in testCaseId', () => {
  const idOf = createTestIdCache(100).forUpload(scope(''));
  const withFile = idOf({ file: '', classname: 'c', parent: 'p', name: 'n' });
  expect(idOf({ classname: 'c', parent: 'p', name: 'n' })).toBe(withFile);
  expect(withFile).toBe(testCaseId({ ...scope(''), classname: 'c', parent: 'p', name: 'n' }));
});

test('any field that differs gives the id testCaseId gives (property)', () => {
  const part = fc.constantFrom('', 'a', 'b', 'a|b', '"', 'x/y.ts', 'a#b');
  const ownId = fc.constantFrom('trunk:1', 'a6e84936-3ee9-57d5-b041-ae124896f654', 'x');
  const identity = fc.record(
    { file: part, classname: part, parent: part, name: part, id: ownId },
    { requiredKeys: ['classname', 'parent', 'name'] },
  );
  const repo = fc.record({ host: fc.constantFrom('github.com', 'gitlab.com'), owner: part, name: part });
  const slug = fc.constantFrom('acme', 'globex');
  const ids = createTestIdCache(8);
  fc.assert(
    fc.property(slug, repo, part, identity, (s, r, variant, test) => {
      expect(ids.forUpload(scope(variant, s, r))(test)).toBe(expected(scope(variant, s, r), test));
    }),
    { numRuns: 2000 },
  );
});

test('ids evicted by the bound are computed again, the same', () => {
  const ids = createTestIdCache(10);
  const idOf = ids.forUpload(scope(''));
  const tests = Array.from({ length: 50 }, (_, i) => ({ classname: 'c', parent: 'p', name: `t${i}` }));
  const first = tests.map(idOf);
  const again = [...tests].reverse().map(idOf).reverse();
  expect(again).toEqual(first);
  expect(first).toEqual(tests.map((t) => expected(scope(''), t)));
});

test('the bound must leave room', () => {
  expect(() => createTestIdCache(1)).toThrow(RangeError);
});

test('a working set under half the bound is never computed twice; the default holds the benchmark world', () => {
  const bound = 1_000;
  const idOf = createTestIdCache(bound).forUpload(scope(''));
  const tests = Array.from({ length: bound / 2 - 1 }, (_, i) => ({
    classname: 'c',
    parent: '',
    name: `t${i}`,
  }));
  const computed = jest.mocked(testCaseId);
  const first = tests.map(idOf);
  computed.mockClear();
  expect(tests.map(idOf)).toEqual(first);
  expect(tests.map(idOf)).toEqual(first);
  expect(computed).not.toHaveBeenCalled();
  // bench/flaky's world cycles through 100,000 tests; at a bound of 100,000 every lookup missed.
  expect(DEFAULT_TEST_ID_CACHE_ENTRIES / 2).toBeGreaterThan(100_000);
});
