/**
 * One upload may carry several JUnit files, and the same test may appear in more than one (a CI
 * job that retries failed tests into a second report, shards that overlap). Attempts are unique
 * per (upload, test, attempt index), so the files' attempts of one test are joined here, in the
 * order the files were given, before ids are assigned.
 *
 * Invariant: the result depends only on the files and their order, so re-sending the same upload
 * yields the same attempts with the same indexes (idempotent ingestion relies on it).
 */
import { JunitParseError } from './errors';
import { type JunitLimits, resolveJunitLimits } from './limits';
import { identityKey } from './merge';
import { type ParsedJunitFile, type ParsedTestCase } from './types';

export interface UploadTestCase extends ParsedTestCase {
  /** The files this test's attempts came from, in attempt order, without repeats. */
  readonly fileNames: readonly string[];
}

export function combineUploadFiles(
  files: readonly ParsedJunitFile[],
  limits: Partial<JunitLimits> = {},
): UploadTestCase[] {
  const { maxAttemptsPerTest } = resolveJunitLimits(limits);
  const byKey = new Map<string, UploadTestCase>();
  for (const file of files) {
    for (const test of file.testCases) {
      const key = identityKey(test);
      const seen = byKey.get(key);
      if (seen === undefined) {
        byKey.set(key, { ...test, fileNames: [file.fileName] });
        continue;
      }
      const attempts = [...seen.attempts, ...test.attempts].map((attempt, index) => ({ ...attempt, index }));
      if (attempts.length > maxAttemptsPerTest) {
        throw new JunitParseError(file.fileName, {
          kind: 'too_many_attempts',
          test: test.name,
          limit: maxAttemptsPerTest,
        });
      }
      const fileNames = seen.fileNames.includes(file.fileName)
        ? seen.fileNames
        : [...seen.fileNames, file.fileName];
      byKey.set(key, { ...seen, attempts, status: test.status, fileNames });
    }
  }
  return [...byKey.values()];
}
