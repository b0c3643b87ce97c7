/**
 * Stable test-case ids: UUIDv5 over (repository, file, classname, parent, name, variant).
 *
 * Encoding: the fields go into a JSON array, `["railyard.test-case.v1", host, owner, repo, file,
 * classname, parent, name, variant]`, with absent fields as "". JSON quotes and escapes every
 * string, so no choice of field values can make two different tuples encode alike (unlike a
 * joined string, where `a|b` + `c` and `a` + `b|c` collide). The version tag in the array lets a
 * future encoding coexist without reusing ids.
 *
 * Namespace: {@link TEST_CASE_NAMESPACE} = UUIDv5("https://railyard.dev/ns/test-case/v1",
 * the RFC 4122 URL namespace). Changing the namespace or the encoding changes every id, which
 * would orphan all stored history: both are fixed, and a unit test pins them.
 *
 * Repository fields are used exactly as the API carries them (see docs/glossary.md).
 */
import type { RepositoryKey } from '../../workflows/contract';
import { namespaceBytes, uuidV5 } from './uuid5';

export const TEST_CASE_NAMESPACE = '243c6ca1-0eb9-5391-a1ef-5e042bd810b8';
const NAMESPACE = namespaceBytes(TEST_CASE_NAMESPACE);
const ENCODING_VERSION = 'railyard.test-case.v1';

export interface TestCaseKey {
  readonly repository: RepositoryKey;
  readonly file?: string;
  readonly classname?: string;
  readonly parent?: string;
  readonly name: string;
  /** The environment split (`linux`, `mac`, …); "" or absent when the upload names none. */
  readonly variant?: string;
}

export function encodeTestCaseKey(key: TestCaseKey): string {
  const { repository } = key;
  return JSON.stringify([
    ENCODING_VERSION,
    repository.host,
    repository.owner,
    repository.name,
    key.file ?? '',
    key.classname ?? '',
    key.parent ?? '',
    key.name,
    key.variant ?? '',
  ]);
}

export function testCaseId(key: TestCaseKey): string {
  return uuidV5(encodeTestCaseKey(key), NAMESPACE);
}
