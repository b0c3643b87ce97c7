/**
 * The test id cache answers exactly what testCaseId computes, whatever was asked before: fields that
 * differ anywhere (repository, variant, file, classname, parent, name) never share an id, an absent
 * file is the empty one (as testCaseId encodes it), and ids evicted by the bound come back the same.
 */
import fc from 'fast-check';
import { testCaseId } from '../../../activities/flaky/identity';
import { computedTestIds, createTestIdCache, type TestIdentity } from '../../../activities/flaky/test-ids';

const repository = { host: 'github.com', owner: 'acme', name: 'shop' };

const expected = (repo: typeof repository, variant: string, test: TestIdentity) =>
  testCaseId({ repository: repo, ...test, variant });

test('a remembered id is the computed id', () => {
  const ids = createTestIdCache(100);
  const test1 = { file: 'a.ts', classname: 'c', parent: 'p', name: 'n' };
  const idOf = ids.forUpload(repository, 'linux');
  expect(idOf(test1)).toBe(expected(repository, 'linux', test1));
  expect(idOf({ ...test1 })).toBe(expected(repository, 'linux', test1));
  expect(computedTestIds.forUpload(repository, 'linux')(test1)).toBe(expected(repository, 'linux', test1));
});

test('an absent file and an empty one are the same test, as in testCaseId', () => {
  const idOf = createTestIdCache(100).forUpload(repository, '');
  const withFile = idOf({ file: '', classname: 'c', parent: 'p', name: 'n' });
  expect(idOf({ classname: 'c', parent: 'p', name: 'n' })).toBe(withFile);
  expect(withFile).toBe(testCaseId({ repository, classname: 'c', parent: 'p', name: 'n' }));
});

test('any field that differs gives the id testCaseId gives (property)', () => {
  const part = fc.constantFrom('', 'a', 'b', 'a|b', '"', 'x/y.ts');
  const identity = fc.record(
    { file: part, classname: part, parent: part, name: part },
    { requiredKeys: ['classname', 'parent', 'name'] },
  );
  const repo = fc.record({ host: fc.constantFrom('github.com', 'gitlab.com'), owner: part, name: part });
  const ids = createTestIdCache(8);
  fc.assert(
    fc.property(repo, part, identity, (r, variant, test) => {
      expect(ids.forUpload(r, variant)(test)).toBe(expected(r, variant, test));
    }),
    { numRuns: 2000 },
  );
});

test('ids evicted by the bound are computed again, the same', () => {
  const ids = createTestIdCache(10);
  const idOf = ids.forUpload(repository, '');
  const tests = Array.from({ length: 50 }, (_, i) => ({ classname: 'c', parent: 'p', name: `t${i}` }));
  const first = tests.map(idOf);
  const again = [...tests].reverse().map(idOf).reverse();
  expect(again).toEqual(first);
  expect(first).toEqual(tests.map((t) => expected(repository, '', t)));
});

test('the bound must leave room', () => {
  expect(() => createTestIdCache(1)).toThrow(RangeError);
});
