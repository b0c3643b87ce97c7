import { v5 as uuidv5, validate, version } from 'uuid';
import {
  encodeTestCaseKey,
  TEST_CASE_NAMESPACE,
  testCaseId,
  type TestCaseKey,
} from '../../../activities/flaky/identity';

const repository = { host: 'github.com', owner: 'acme', name: 'shop' };
const key: TestCaseKey = {
  repository,
  file: 'src/cart.test.ts',
  classname: 'cart',
  parent: 'cart',
  name: 'adds an item',
  variant: 'linux',
};

describe('test-case identity', () => {
  test('the namespace is UUIDv5 of the documented URL in the URL namespace', () => {
    expect(TEST_CASE_NAMESPACE).toBe(uuidv5('https://railyard.dev/ns/test-case/v1', uuidv5.URL));
  });

  test('ids are version-5 UUIDs and pinned (changing them orphans stored history)', () => {
    const id = testCaseId(key);
    expect(validate(id) && version(id)).toBe(5);
    expect(id).toBe(uuidv5(encodeTestCaseKey(key), TEST_CASE_NAMESPACE));
    expect(encodeTestCaseKey(key)).toBe(
      '["railyard.test-case.v1","github.com","acme","shop","src/cart.test.ts","cart","cart","adds an item","linux"]',
    );
  });

  test('the same key always gives the same id; absent fields equal empty ones', () => {
    expect(testCaseId({ ...key })).toBe(testCaseId(key));
    expect(testCaseId({ repository, name: 'n' })).toBe(
      testCaseId({ repository, name: 'n', file: '', classname: '', parent: '', variant: '' }),
    );
  });

  test.each<[string, Partial<TestCaseKey>]>([
    ['file', { file: 'src/other.test.ts' }],
    ['classname', { classname: 'other' }],
    ['parent', { parent: 'chromium' }],
    ['name', { name: 'removes an item' }],
    ['variant', { variant: 'mac' }],
    ['repository', { repository: { ...repository, name: 'shop2' } }],
  ])('a different %s is a different test', (_field, change) => {
    expect(testCaseId({ ...key, ...change })).not.toBe(testCaseId(key));
  });

  test.each<[Partial<TestCaseKey>, Partial<TestCaseKey>]>([
    [
      { classname: 'a|b', parent: 'c' },
      { classname: 'a', parent: 'b|c' },
    ],
    [
      { classname: 'a#b', parent: 'c' },
      { classname: 'a', parent: 'b#c' },
    ],
    [{ name: 'x","y' }, { name: 'x', variant: 'y' }],
    [
      { repository: { host: 'h', owner: 'a/b', name: 'c' } },
      { repository: { host: 'h', owner: 'a', name: 'b/c' } },
    ],
  ])('separators inside values cannot collide: %j vs %j', (a, b) => {
    expect(testCaseId({ ...key, ...a })).not.toBe(testCaseId({ ...key, ...b }));
  });
});
