/**
 * The parser thread's row encoder (flaky/ingest/row-encoder.ts) and the API thread's side of it
 * (prepare-rows.ts, fillEncodedRows): for the same parsed file they must give exactly what the object
 * path gives — the same COPY bytes tuple for tuple, the same test ids, counts and content digest, the
 * same fold-queue failures — including for text COPY would have to escape (tabs, newlines,
 * backslashes, NUL) and for names at the length bound; and they must decline what only the object
 * path handles (several files, two tests with one id, a file without rows).
 */
import { readdirSync } from 'node:fs';
import { attachEncodedRows, encodedRowsOf } from '../../../../flaky/ingest/encoded-files';
import { prepareUpload } from '../../../../flaky/ingest/prepare';
import { prepareRows } from '../../../../flaky/ingest/prepare-rows';
import { encodeParsedRows } from '../../../../flaky/ingest/row-encoder';
import { type UploadInput } from '../../../../flaky/ingest/types';
import { type ParsedJunitFile, type ParsedTestCase } from '../../../../flaky/junit';
import { resultFromWire, resultToRowsWire } from '../../../../flaky/junit/pool/protocol';
import { encodeResults, fillEncodedRows } from '../../../../flaky/store/copy-results';
import { createTestIdCache, computedTestIds } from '../../../../flaky/test-ids';
import { FIXTURES, parseFixture } from '../junit/fixtures';

const KEYS = { uploadPk: '9007199254740993', repositoryPk: '7', at: new Date('2026-11-20T12:34:56.789Z') };

function input(files: ParsedJunitFile[], codeowners?: string): UploadInput {
  return {
    organisationId: 'org',
    organisationSlug: 'acme',
    repository: { host: 'github.com', owner: 'acme', name: 'shop' },
    metadata: {
      uploadId: 'u1',
      commitSha: 'abc',
      branch: 'main',
      attempt: 1,
      variant: 'linux',
      ...(codeowners === undefined ? {} : { codeowners }),
    },
    files,
  };
}

/** The file as the API thread gets it from a parser thread: through the wire, buffers and all. */
function fromThread(file: ParsedJunitFile): ParsedJunitFile {
  const { wire } = resultToRowsWire(file);
  return resultFromWire(structuredClone(wire));
}

/** Both paths for one file: the object path's results and COPY bytes against the rows path's. */
function bothPaths(file: ParsedJunitFile, infra = false, codeowners?: string) {
  const objects = prepareUpload(input([file], codeowners), createTestIdCache());
  const rows = prepareRows(input([fromThread(file)], codeowners), createTestIdCache());
  if (rows === null) throw new Error('the rows path declined a one-file upload');
  const pks = objects.tests.map((_, i) => String(1000 + i * 7919));
  const keys = { ...KEYS, infra };
  return {
    objects,
    rows,
    objectBytes: encodeResults({ ...keys, tests: objects.tests.map((test, i) => ({ pk: pks[i]!, test })) }),
    rowBytes: fillEncodedRows(rows.rows, keys, pks),
  };
}

const AWKWARD = [
  'tab\there',
  'new\nline\r\n',
  'back\\slash\\N',
  'nul\u0000byte',
  'quote"\'',
  'unicode é 𝄞 🧪 ﷽',
  '\\.',
  '',
];

function awkwardFile(nameChars = 1_000): ParsedJunitFile {
  const testCases: ParsedTestCase[] = AWKWARD.map((text, i) => ({
    suite: text,
    classname: `${text}-class`,
    parent: text,
    name: i === 0 ? '𝄞'.repeat(nameChars / 2) : `${text}-${i}`,
    ...(i % 2 === 0 ? { file: `src/${text}.ts` } : {}),
    status: i % 3 === 0 ? 'failed' : i % 3 === 1 ? 'passed' : 'skipped',
    attempts: [
      {
        index: 0,
        status: 'error',
        origin: 'flakyError',
        durationMs: 2 ** 40,
        failure: {
          message: `${text} boom`,
          type: text,
          body: { text: `${text}\n  at x`, truncated: false, totalChars: text.length + 7 },
        },
      },
      ...(i % 3 === 0
        ? ([{ index: 1, status: 'failed', origin: 'testcase', durationMs: -5 }] as const)
        : i % 3 === 1
          ? ([{ index: 1, status: 'passed', origin: 'testcase', durationMs: 0.4 }] as const)
          : ([{ index: 1, status: 'skipped', origin: 'testcase', skip: { message: text } }] as const)),
    ],
  }));
  return {
    fileName: 'awkward.xml',
    dialect: 'generic',
    testCases,
    summary: {
      tests: testCases.length,
      attempts: 16,
      passed: 3,
      failed: 3,
      error: 0,
      skipped: 2,
      retried: 8,
    },
  };
}

const FIXTURE_FILES = readdirSync(FIXTURES).filter((f) => f.endsWith('.xml'));

test.each(FIXTURE_FILES)(
  '%s: the rows path writes the object path’s bytes, ids, counts and digest',
  async (name) => {
    const file = await parseFixture(name);
    for (const infra of [false, true]) {
      const { objects, rows, objectBytes, rowBytes } = bothPaths(file, infra);
      expect(rowBytes).not.toBeNull();
      expect(Buffer.compare(rowBytes!, objectBytes!)).toBe(0);
      expect(rows.ids).toEqual(objects.tests.map((t) => t.id));
      const { kind: _a, tests: _t, ...objectSummary } = objects;
      expect({
        files: rows.files,
        testCount: rows.testCount,
        results: rows.results,
        failures: rows.failures,
        skipped: rows.skipped,
        digest: rows.digest,
      }).toEqual(objectSummary);
    }
  },
);

test('awkward text (tabs, newlines, backslashes, NUL, Unicode) and names at the bound go through unchanged', () => {
  const file = awkwardFile();
  const { objects, rows, objectBytes, rowBytes } = bothPaths(file, false, '* @acme/all\n*.ts @acme/ts\n');
  expect(Buffer.compare(rowBytes!, objectBytes!)).toBe(0);
  expect(rows.digest).toBe(objects.digest);
  expect(rows.ids).toEqual(objects.tests.map((t) => t.id));
  // What a new test row is made of, string for string.
  expect(rows.identities).toEqual(
    file.testCases.flatMap((t) => [t.file ?? null, t.classname, t.parent, t.name]),
  );
  expect(rows.identities[3]).toHaveLength(1_000); // 500 astral characters: 1,000 UTF-16 units
  // Each failed attempt's fingerprint, summary and sample, in attempt order, as the object path has them.
  expect(rows.failureList.map(([, ...f]) => f)).toEqual(
    objects.tests.flatMap((t) =>
      t.attempts.flatMap((a) =>
        a.failure ? [[a.failure.fingerprint, a.failure.summary, a.failure.sample]] : [],
      ),
    ),
  );
  // Durations clamped to the int4 column either way.
  expect(objects.tests[0]!.attempts.map((a) => a.durationMs)).toEqual([2_147_483_647, 0]);
});

test('the filled COPY stream is the thread’s buffer, changed only in the keys and the infra byte', () => {
  const file = awkwardFile(20);
  const encoded = encodeParsedRows(file);
  const before = Buffer.from(encoded.copy);
  const filled = fillEncodedRows(
    encoded,
    { ...KEYS, infra: true },
    file.testCases.map((_, i) => String(i + 1)),
  )!;
  expect(filled.buffer).toBe(encoded.copy.buffer); // filled in place, not copied
  let changed = 0;
  for (let i = 0; i < before.length; i += 1) if (before[i] !== filled[i]) changed += 1;
  // At most the 4 int8 values (32 bytes) and the infra byte of each of the 16 tuples.
  expect(changed).toBeGreaterThan(16);
  expect(changed).toBeLessThanOrEqual(16 * 33);
  expect(
    fillEncodedRows(encodeParsedRows({ ...file, testCases: [] }), { ...KEYS, infra: false }, []),
  ).toBeNull();
  expect(() => fillEncodedRows(encoded, { ...KEYS, infra: false }, ['1'])).toThrow(/1 test keys for 8 tests/);
});

test('a file from a thread keeps its test cases, read on demand and equal to the parse', async () => {
  const file = await parseFixture('surefire-rerun.xml');
  const received = fromThread(file);
  expect(encodedRowsOf(received)).toBeDefined();
  expect(received).toEqual(file);
  expect(received.testCases).toBe(received.testCases); // parsed once
});

test('declines what only the object path handles', async () => {
  const a = fromThread(await parseFixture('surefire-rerun.xml'));
  const b = fromThread(await parseFixture('pytest-xunit2.xml'));
  // Several files: their tests are joined across files.
  expect(prepareRows(input([a, b]), computedTestIds)).toBeNull();
  // A file parsed on the event loop carries no rows.
  expect(prepareRows(input([await parseFixture('surefire-rerun.xml')]), computedTestIds)).toBeNull();
  // Two tests of one file with one id (the object path joins their attempts).
  const twin = awkwardFile(20);
  const doubled = { ...twin, testCases: [twin.testCases[1]!, { ...twin.testCases[1]!, suite: 'other' }] };
  const received = fromThread(doubled);
  expect(prepareRows(input([received]), computedTestIds)).toBeNull();
  expect(prepareUpload(input([received])).tests).toHaveLength(1);
});

test('rows attach to their file only', () => {
  const file = awkwardFile(20);
  const other = awkwardFile(20);
  attachEncodedRows(file, encodeParsedRows(file));
  expect(encodedRowsOf(file)).toBeDefined();
  expect(encodedRowsOf(other)).toBeUndefined();
});
