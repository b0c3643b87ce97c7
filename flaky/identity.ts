/**
 * Test-case ids, in Trunk's scheme, so that Trunk's clients (trunk-analytics-cli, its language
 * plugins) find railyard's tests by the ids they compute themselves: a quarantined test is matched by
 * id on the client (docs/flaky-tests.md, "Test ids").
 *
 * The scheme (analytics-cli `context/src/meta/id.rs`, `gen_info_id`): a UUIDv5 in the RFC 4122 URL
 * namespace over the fields joined with `#`:
 *
 *   org url slug # host/owner/name # file # classname # parent # name # JUNIT_TESTCASE [# variant]
 *
 * absent fields as "", the variant appended only when non-empty. With a variant the result is hashed
 * once more as `id # variant`. A report may carry its own id for a test (`existingId`): an id
 * starting with `trunk:` is hashed as `slug # repo # id [# variant]`; a version-5 UUID is kept as is
 * (hashed as `id # variant` with a variant); anything else is ignored.
 *
 * Invariants: the id depends on the organisation's slug, so it is computed where the organisation is
 * known (ingest, the quarantine routes); the fields are used exactly as stored on the test case, so
 * migration 0013 recomputes every stored id from its row. A `#` inside a field can make two tests
 * share an id, as it does in Trunk: that is the price of matching Trunk's clients.
 */
import type { RepositoryKey } from '../contract';
import { namespaceBytes, uuidV5 } from './uuid5';

/** RFC 4122 appendix C, NameSpace_URL: Trunk's namespace for test ids. */
export const TRUNK_TEST_ID_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';
const NAMESPACE = namespaceBytes(TRUNK_TEST_ID_NAMESPACE);
/** The kind tag Trunk puts in every id ("compatibility with legacy code" in id.rs). */
const TEST_KIND = 'JUNIT_TESTCASE';

export interface TestCaseKey {
  /** The organisation's url slug (organisations.slug, Trunk's `orgUrlSlug`). */
  readonly organisationSlug: string;
  readonly repository: RepositoryKey;
  readonly file?: string;
  readonly classname?: string;
  readonly parent?: string;
  readonly name: string;
  /** The environment split (`linux`, `mac`, …); "" or absent when the upload names none. */
  readonly variant?: string;
  /** An id the report itself gave the test (a `trunk:` id or a UUIDv5), if any. */
  readonly existingId?: string;
}

/** Trunk's `repo_full_name`: `host/owner/name`, as the API carries them. */
export function repositoryFullName(repository: RepositoryKey): string {
  return `${repository.host}/${repository.owner}/${repository.name}`;
}

/** What Trunk hashes, as gen_info_id takes it: the repository already written `host/owner/name`. */
export interface InfoIdFields {
  readonly organisationSlug: string;
  readonly repositoryFullName: string;
  readonly file?: string;
  readonly classname?: string;
  readonly parent?: string;
  readonly name: string;
  readonly existingId?: string;
  readonly variant: string;
}

export function testCaseId(key: TestCaseKey): string {
  return genInfoId(infoIdFields(key));
}

/** The `#`-joined string hashed for a test without an id of its own (pinned by unit tests). */
export function encodeTestCaseKey(key: TestCaseKey): string {
  return encodeFields(infoIdFields(key));
}

function infoIdFields(key: TestCaseKey): InfoIdFields {
  const { repository, ...rest } = key;
  return { ...rest, repositoryFullName: repositoryFullName(repository), variant: key.variant ?? '' };
}

/** Trunk's gen_info_id. */
export function genInfoId(fields: InfoIdFields): string {
  const first = genInfoIdBase(fields);
  // With a variant, the first id is fed back as the test's own id, so the variant is folded in a
  // second time (id # variant).
  return fields.variant === '' ? first : genInfoIdBase({ ...fields, existingId: first });
}

/** Trunk's gen_info_id_base: one hash, with the special cases of a test's own id. */
export function genInfoIdBase(fields: InfoIdFields): string {
  const { existingId, variant } = fields;
  if (existingId !== undefined && existingId !== '') {
    if (existingId.startsWith('trunk:')) {
      const values = [fields.organisationSlug, fields.repositoryFullName, existingId];
      if (variant !== '') values.push(variant);
      return hash(values);
    }
    const own = parseUuid(existingId);
    if (own !== undefined && own.version === 5)
      return variant === '' ? own.canonical : hash([existingId, variant]);
  }
  return uuidV5(encodeFields(fields), NAMESPACE);
}

function encodeFields(fields: InfoIdFields): string {
  const values = [
    fields.organisationSlug,
    fields.repositoryFullName,
    fields.file ?? '',
    fields.classname ?? '',
    fields.parent ?? '',
    fields.name,
    TEST_KIND,
  ];
  if (fields.variant !== '') values.push(fields.variant);
  return values.join('#');
}

function hash(values: readonly string[]): string {
  return uuidV5(values.join('#'), NAMESPACE);
}

// The spellings Rust's `Uuid::parse_str` accepts: hyphenated, simple (32 digits), braced, urn.
const UUID_FORMS = [
  /^([0-9a-fA-F]{8})-([0-9a-fA-F]{4})-([0-9a-fA-F]{4})-([0-9a-fA-F]{4})-([0-9a-fA-F]{12})$/,
  /^([0-9a-fA-F]{8})([0-9a-fA-F]{4})([0-9a-fA-F]{4})([0-9a-fA-F]{4})([0-9a-fA-F]{12})$/,
  /^\{([0-9a-fA-F]{8})-([0-9a-fA-F]{4})-([0-9a-fA-F]{4})-([0-9a-fA-F]{4})-([0-9a-fA-F]{12})\}$/,
  /^urn:uuid:([0-9a-fA-F]{8})-([0-9a-fA-F]{4})-([0-9a-fA-F]{4})-([0-9a-fA-F]{4})-([0-9a-fA-F]{12})$/,
];

/**
 * A UUID in any of Rust's accepted spellings, with its version and its canonical form (lower-case,
 * hyphenated): Trunk keeps a client's UUIDv5 as written, railyard stores it in a uuid column.
 */
export function parseUuid(
  text: string,
): { readonly version: number; readonly canonical: string } | undefined {
  for (const form of UUID_FORMS) {
    const parts = form.exec(text);
    if (parts === null) continue;
    const canonical = parts.slice(1).join('-').toLowerCase();
    return { version: parseInt(canonical[14]!, 16), canonical };
  }
  return undefined;
}
