/**
 * prepareUpload: unique test ids with ordered attempts, fingerprints on failures, owners, the D4
 * summary, and a digest that depends on content only (not on chunking or file encoding).
 */
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareUpload } from '../../../../flaky/ingest/prepare';
import { parseJunit, parseJunitText } from '../../../../flaky/junit';

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'junit');
const repository = { host: 'github.com', owner: 'acme', name: 'shop' };
const metadata = { uploadId: 'u1', commitSha: 'abc', branch: 'main', attempt: 1, variant: 'linux' };

async function prepared(
  name: string,
  chunk = 64,
  extra: Partial<typeof metadata> & { codeowners?: string } = {},
) {
  const file = await parseJunit(createReadStream(join(FIXTURES, name), { highWaterMark: chunk }), {
    fileName: name,
  });
  return prepareUpload({
    organisationId: 'org',
    organisationSlug: 'org',
    repository,
    metadata: { ...metadata, ...extra },
    files: [file],
  });
}

test('surefire reruns: one test, ordered failing attempts with one fingerprint', async () => {
  const upload = await prepared('surefire-rerun.xml');
  const ids = upload.tests.map((t) => t.id);
  expect(new Set(ids).size).toBe(ids.length);
  const tax = upload.tests.find((t) => t.name === 'computesTax')!;
  expect(tax.attempts.map((a) => [a.index, a.outcome])).toEqual([
    [0, 'fail'],
    [1, 'fail'],
    [2, 'fail'],
  ]);
  expect(new Set(tax.attempts.map((a) => a.failure?.fingerprint)).size).toBe(1);
  expect(tax.final).toBe('fail');
  expect(upload.results + upload.skipped).toBe(upload.tests.reduce((n, t) => n + t.attempts.length, 0));
});

test('the digest depends on content, not on chunking; metadata changes it', async () => {
  const a = await prepared('playwright-include-retries.xml', 16);
  const b = await prepared('playwright-include-retries.xml', 4096);
  expect(a.digest).toBe(b.digest);
  expect((await prepared('playwright-include-retries.xml', 64, { commitSha: 'other' })).digest).not.toBe(
    a.digest,
  );
});

test('the same test in two files of one upload is one test with joined attempts', async () => {
  const xml = readFileSync(join(FIXTURES, 'jest-junit-retries.xml'), 'utf8');
  const files = [
    await parseJunitText(xml, { fileName: 'one.xml' }),
    await parseJunitText(xml, { fileName: 'two.xml' }),
  ];
  const upload = prepareUpload({
    organisationId: 'org',
    organisationSlug: 'org',
    repository,
    metadata,
    files,
  });
  const single = prepareUpload({
    organisationId: 'org',
    organisationSlug: 'org',
    repository,
    metadata,
    files: [files[0]!],
  });
  expect(upload.tests).toHaveLength(single.tests.length);
  expect(upload.tests[0]!.attempts).toHaveLength(2 * single.tests[0]!.attempts.length);
});

test('owners come from the upload’s CODEOWNERS', async () => {
  const upload = await prepared('jest-junit-invocations.xml', 64, {
    codeowners: '* @acme/all\nsrc/ @acme/web\n',
  });
  expect(upload.tests.every((t) => t.codeowners.length > 0)).toBe(true);
});
