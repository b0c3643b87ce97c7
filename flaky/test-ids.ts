/**
 * Test ids of the tests an upload names, remembered between uploads: CI sends the same tests on every
 * run, and an id costs a string join and one or two SHA-1s (identity.ts) — a few microseconds per
 * result, several percent of the API's CPU at full ingestion rate.
 *
 * Rule: an id is a pure function of (organisation slug, repository, variant, file, classname,
 * parent, name), so the cache is keyed by exactly those values (the first four as the scope; absent
 * file as "", as testCaseId encodes it) in nested maps: a hit builds no key string and hashes
 * nothing, and a remembered id is always the id testCaseId would compute. A test that carries its
 * own id (`id`) is computed every time: its id depends on that too, and such tests are rare.
 *
 * Bound: at most `maxEntries` ids, kept in two generations: ids go into the young one; when it holds
 * half the bound it becomes the old one and the previous old one is dropped; an id found in the old
 * generation moves back to the young one. So the ids of tests still being uploaded stay, and memory
 * stays under ~15 MB per 100,000 ids. The cache is per process and owned by whoever creates it (the
 * flaky store): no module state.
 *
 * Sizing: CI cycles through all of an organisation's tests, so an id is asked for again only after
 * every other test was. The young generation must hold that working set: with the bound at or below
 * twice the number of distinct tests, every lookup misses (bench/flaky at 100,000 tests with a bound
 * of 100,000: id computation was ~7 of the API's ~33 ms of CPU per 1,000 results, issue 26). The
 * default holds 200,000 distinct tests for at most ~60 MB.
 */
import type { RepositoryKey } from '../contract';
import { testCaseId } from './identity';

export interface TestIdentity {
  readonly file?: string;
  readonly classname: string;
  readonly parent: string;
  readonly name: string;
  /** The id the report gave the test itself (identity.ts: a `trunk:` id or a UUIDv5), if any. */
  readonly id?: string;
}

/** Whose tests: the organisation's url slug is part of every id (identity.ts). */
export interface UploadScope {
  readonly organisationSlug: string;
  readonly repository: RepositoryKey;
  /** Environment split of every test of the upload ('' when none). */
  readonly variant: string;
}

export interface TestIds {
  /** The id function for one upload's tests (one organisation, repository and variant). */
  forUpload(scope: UploadScope): (test: TestIdentity) => string;
}

/** No memory: every id computed. */
export const computedTestIds: TestIds = {
  forUpload: (scope) => (test) => idOf(scope, test),
};

export const DEFAULT_TEST_ID_CACHE_ENTRIES = 400_000;

type Names = Map<string, string>;
type Parents = Map<string, Names>;
type Classnames = Map<string, Parents>;
type Files = Map<string, Classnames>;

class Generation {
  size = 0;
  private readonly scopes = new Map<string, Files>();
  // The names map found last: consecutive tests of a file usually share scope, file, classname and
  // parent, so most lookups skip four map probes.
  private last: { scope: string; file: string; classname: string; parent: string; names: Names } | undefined;

  get(scope: string, test: TestIdentity): string | undefined {
    return this.names(scope, test, false)?.get(test.name);
  }

  set(scope: string, test: TestIdentity, id: string): void {
    const names = this.names(scope, test, true)!;
    if (!names.has(test.name)) this.size += 1;
    names.set(test.name, id);
  }

  private names(scope: string, test: TestIdentity, create: boolean): Names | undefined {
    const file = test.file ?? '';
    const last = this.last;
    if (
      last !== undefined &&
      last.parent === test.parent &&
      last.classname === test.classname &&
      last.file === file &&
      last.scope === scope
    )
      return last.names;
    let names: Names | undefined;
    if (create) {
      const files = entry(this.scopes, scope, (): Files => new Map());
      const classnames = entry(files, file, (): Classnames => new Map());
      const parents = entry(classnames, test.classname, (): Parents => new Map());
      names = entry(parents, test.parent, (): Names => new Map());
    } else {
      names = this.scopes.get(scope)?.get(file)?.get(test.classname)?.get(test.parent);
    }
    if (names !== undefined)
      this.last = { scope, file, classname: test.classname, parent: test.parent, names };
    return names;
  }
}

export function createTestIdCache(maxEntries = DEFAULT_TEST_ID_CACHE_ENTRIES): TestIds {
  if (!Number.isInteger(maxEntries) || maxEntries < 2)
    throw new RangeError(`a test id cache needs room for at least 2 ids, not ${maxEntries}`);
  let young = new Generation();
  let old = new Generation();
  const remember = (scope: string, test: TestIdentity, id: string) => {
    if (young.size >= maxEntries / 2) {
      old = young;
      young = new Generation();
    }
    young.set(scope, test, id);
  };
  return {
    forUpload(upload) {
      const { organisationSlug, repository, variant } = upload;
      const scope = JSON.stringify([
        organisationSlug,
        repository.host,
        repository.owner,
        repository.name,
        variant,
      ]);
      return (test) => {
        if (test.id !== undefined && test.id !== '') return idOf(upload, test);
        const known = young.get(scope, test);
        if (known !== undefined) return known;
        const id = old.get(scope, test) ?? idOf(upload, test);
        remember(scope, test, id);
        return id;
      };
    },
  };
}

function idOf(scope: UploadScope, test: TestIdentity): string {
  return testCaseId({
    organisationSlug: scope.organisationSlug,
    repository: scope.repository,
    ...(test.file === undefined ? {} : { file: test.file }),
    classname: test.classname,
    parent: test.parent,
    name: test.name,
    variant: scope.variant,
    ...(test.id === undefined ? {} : { existingId: test.id }),
  });
}

function entry<V>(map: Map<string, V>, key: string, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
