/**
 * An upload's runs per test for its fold queue row (flaky/ingest/pending-runs.ts): the object path
 * and the parser thread's rows must count the same runs and failures per test, and both must be the
 * attempts' own counts (what the COPY writes as raw rows), including tests with only skips.
 */
import { readdirSync } from 'node:fs';
import { runsOfRows, runsOfTests } from '../../../../flaky/ingest/pending-runs';
import { prepareUpload } from '../../../../flaky/ingest/prepare';
import { prepareRows } from '../../../../flaky/ingest/prepare-rows';
import { type UploadInput } from '../../../../flaky/ingest/types';
import { type ParsedJunitFile } from '../../../../flaky/junit';
import { resultFromWire, resultToRowsWire } from '../../../../flaky/junit/pool/protocol';
import { createTestIdCache } from '../../../../flaky/test-ids';
import { FIXTURES, parseFixture } from '../junit/fixtures';

function input(file: ParsedJunitFile): UploadInput {
  return {
    organisationId: 'org',
    organisationSlug: 'acme',
    repository: { host: 'github.com', owner: 'acme', name: 'shop' },
    metadata: { uploadId: 'u1', commitSha: 'abc', branch: 'main', attempt: 1, variant: '' },
    files: [file],
  };
}

const FIXTURE_FILES = readdirSync(FIXTURES).filter((f) => f.endsWith('.xml'));

test.each(FIXTURE_FILES)(
  '%s: both paths count each test’s runs and failures as its attempts',
  async (name) => {
    const file = await parseFixture(name);
    const objects = prepareUpload(input(file), createTestIdCache());
    const rows = prepareRows(
      input(resultFromWire(structuredClone(resultToRowsWire(file).wire))),
      createTestIdCache(),
    );
    expect(rows).not.toBeNull();
    const pks = objects.tests.map((_, i) => String(500 + i));
    const fromObjects = runsOfTests(objects.tests.map((test, i) => ({ pk: pks[i]!, test })));
    const fromRows = runsOfRows(rows!.rows, pks);
    expect(fromRows).toEqual(fromObjects);
    // The attempts' own counts, test by test.
    expect(fromObjects.testPks).toEqual(pks);
    expect(fromObjects.runs).toEqual(
      objects.tests.map((t) => t.attempts.filter((a) => a.outcome !== 'skip').length),
    );
    expect(fromObjects.fails).toEqual(
      objects.tests.map((t) => t.attempts.filter((a) => a.outcome === 'fail').length),
    );
    expect(fromObjects.runs.reduce((a, b) => a + b, 0)).toBe(objects.results);
    expect(fromObjects.fails.reduce((a, b) => a + b, 0)).toBe(objects.failures);
  },
);

test('a test with only skipped attempts is listed with no runs', () => {
  const outcomes = Uint8Array.from([0, 1, 2, 2, 1, 1]); // pass fail | skip skip | fail fail
  const runs = runsOfRows({ outcomes, firstTuple: Int32Array.from([0, 2, 4, 6]) }, ['1', '2', '3']);
  expect(runs).toEqual({ testPks: ['1', '2', '3'], runs: [2, 0, 2], fails: [1, 0, 2] });
});
