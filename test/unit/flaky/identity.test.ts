/**
 * Test ids are Trunk's: the vectors below are the expected values of trunk-io/analytics-cli's own
 * tests of gen_info_id / gen_info_id_base (commit fcbc1bd2a5f8d730f453f60e4b0b117fd12f93f8), so a
 * test id railyard stores is the id Trunk's CLI computes for the same fields.
 */
import { v5 as uuidv5, validate, version } from 'uuid';
import {
  encodeTestCaseKey,
  genInfoId,
  genInfoIdBase,
  type InfoIdFields,
  parseUuid,
  TRUNK_TEST_ID_NAMESPACE,
  testCaseId,
  type TestCaseKey,
} from '../../../flaky/identity';

// The fields every vector of context/src/meta/id.rs uses (e.g. id.rs:102-108).
const example: InfoIdFields = {
  organisationSlug: 'example_org',
  repositoryFullName: 'example_repo',
  file: 'src/lib.rs',
  classname: 'ExampleClass',
  parent: 'parent/fact/path',
  name: 'example_name',
  variant: '',
};

describe("Trunk's vectors (analytics-cli context/src/meta/id.rs and context-js/tests/meta.test.ts)", () => {
  test('no variant: both functions give the same id (id.rs:132-134)', () => {
    expect(genInfoId(example)).toBe('06cb6db5-f807-5198-b072-af67a0636f8a');
    expect(genInfoIdBase(example)).toBe('06cb6db5-f807-5198-b072-af67a0636f8a');
  });

  test('a variant is folded in twice (id.rs:171-173, id.rs:315; meta.test.ts:128-129)', () => {
    const unix = { ...example, variant: 'unix' };
    expect(genInfoId(unix)).toBe('1bf61475-b542-5faf-aa85-e66a691257a3');
    expect(genInfoIdBase(unix)).toBe('c869cb93-66e2-516d-a0ea-15ff4b413c3f');
  });

  test('a trunk: id hashes slug, repository, id and variant (id.rs:199; meta.test.ts:37-38)', () => {
    const trunk = { ...example, existingId: 'trunk:12345', variant: 'unix' };
    expect(genInfoIdBase(trunk)).toBe('4392f63c-8dc9-5cec-bbdc-e7b90c2e5a6b');
    expect(genInfoId(trunk)).toBe('db8c5727-0fe9-560f-863f-7f3ee68df425');
  });

  test("a test's own UUIDv5 is kept, and hashed with a variant (id.rs:258, id.rs:289; meta.test.ts:76-88)", () => {
    const own = { ...example, existingId: 'a6e84936-3ee9-57d5-b041-ae124896f654' };
    expect(genInfoId(own)).toBe('a6e84936-3ee9-57d5-b041-ae124896f654');
    expect(genInfoIdBase({ ...own, variant: 'unix' })).toBe('8057218b-95e4-5373-afbe-c366d4058615');
    expect(genInfoId({ ...own, variant: 'unix' })).toBe('931cae54-0fcd-56eb-8eac-afa833699e53');
  });

  test('a UUID of another version is ignored (id.rs:333-346)', () => {
    const v4 = { ...example, existingId: '08e1c642-3a55-45cf-8bf9-b9d0b21785dd', variant: 'unix' };
    expect(genInfoId(v4)).toBe(genInfoId({ ...example, variant: 'unix' }));
  });

  test("a test of Trunk's staging organisation, from a real repository (id.rs:219-232)", () => {
    const key: TestCaseKey = {
      organisationSlug: 'trunk-staging-org',
      repository: { host: 'github.com', owner: 'trunk-io', name: 'trunk' },
      classname: 'modules/settings/repoName/__tests__/ticketing-integration.vitest.tsx',
      parent: 'modules/settings/repoName/__tests__/ticketing-integration.vitest.tsx',
      name: 'Ticketing Integration > should allow you to select a ticketing system',
    };
    expect(testCaseId(key)).toBe('3f507aef-e834-523b-a8ad-edaba6b137be');
  });
});

describe('railyard test-case keys', () => {
  const key: TestCaseKey = {
    organisationSlug: 'acme',
    repository: { host: 'github.com', owner: 'acme', name: 'shop' },
    file: 'src/cart.test.ts',
    classname: 'cart',
    parent: 'cart',
    name: 'adds an item',
    variant: 'linux',
  };

  test('the join is the one pinned above: slug # host/owner/name # fields # JUNIT_TESTCASE # variant', () => {
    expect(encodeTestCaseKey(key)).toBe(
      'acme#github.com/acme/shop#src/cart.test.ts#cart#cart#adds an item#JUNIT_TESTCASE#linux',
    );
    const first = uuidv5(encodeTestCaseKey(key), TRUNK_TEST_ID_NAMESPACE);
    expect(testCaseId(key)).toBe(uuidv5(`${first}#linux`, uuidv5.URL));
    expect(TRUNK_TEST_ID_NAMESPACE).toBe(uuidv5.URL);
    expect(validate(testCaseId(key)) && version(testCaseId(key))).toBe(5);
  });

  test('absent fields equal empty ones; the organisation is part of the id', () => {
    const { repository } = key;
    expect(testCaseId({ organisationSlug: 'acme', repository, name: 'n' })).toBe(
      testCaseId({
        organisationSlug: 'acme',
        repository,
        name: 'n',
        file: '',
        classname: '',
        parent: '',
        variant: '',
      }),
    );
    expect(testCaseId({ ...key, organisationSlug: 'globex' })).not.toBe(testCaseId(key));
  });

  test.each<[string, Partial<TestCaseKey>]>([
    ['file', { file: 'src/other.test.ts' }],
    ['classname', { classname: 'other' }],
    ['parent', { parent: 'chromium' }],
    ['name', { name: 'removes an item' }],
    ['variant', { variant: 'mac' }],
    ['repository', { repository: { ...key.repository, name: 'shop2' } }],
  ])('a different %s is a different test', (_field, change) => {
    expect(testCaseId({ ...key, ...change })).not.toBe(testCaseId(key));
  });

  test("a '#' inside a field can join two tests, exactly as in Trunk (documented)", () => {
    expect(testCaseId({ ...key, classname: 'a#b', parent: 'c' })).toBe(
      testCaseId({ ...key, classname: 'a', parent: 'b#c' }),
    );
  });

  test("UUIDs in Rust's spellings are read, and stored lower-case and hyphenated", () => {
    const canonical = 'a6e84936-3ee9-57d5-b041-ae124896f654';
    for (const spelling of [
      canonical.toUpperCase(),
      canonical.replace(/-/g, ''),
      `{${canonical}}`,
      `urn:uuid:${canonical}`,
    ])
      expect(parseUuid(spelling)).toEqual({ version: 5, canonical });
    expect(parseUuid('not-a-uuid')).toBeUndefined();
    expect(testCaseId({ ...key, variant: '', existingId: canonical.toUpperCase() })).toBe(canonical);
  });
});
