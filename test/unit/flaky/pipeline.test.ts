/**
 * The pure pieces together, as ingestion and the classification schedule will use them: parse an
 * upload's files, give each test its id, owners and failure fingerprints, classify.
 */
import {
  classifyAll,
  DEFAULT_CLASSIFICATION_PARAMS as params,
  outcomeOfStatus,
  summariseUpload,
} from '../../../flaky/classification';
import { createOwnersResolver } from '../../../flaky/codeowners';
import { fingerprintFailure } from '../../../flaky/fingerprint';
import { testCaseId } from '../../../flaky/identity';
import { combineUploadFiles } from '../../../flaky/junit';
import { parseFixture } from './junit/fixtures';

const repository = { host: 'github.com', owner: 'acme', name: 'shop' };
const at = new Date('2026-11-21T22:00:00Z');

test('a gotestsum upload with a rerun makes the rerun-passing test flaky', async () => {
  const tests = combineUploadFiles([await parseFixture('gotestsum-rerun-fails.xml')]);
  const rows = tests.flatMap((test) =>
    test.attempts.map((attempt) => ({
      uploadId: 'upload-1',
      testId: testCaseId({ organisationSlug: 'acme', repository, ...test, variant: 'linux' }),
      attempt: attempt.index,
      outcome: outcomeOfStatus(attempt.status),
      commitSha: '9fceb02',
      branchClass: 'stable' as const,
      at,
    })),
  );
  const summary = summariseUpload(
    'upload-1',
    rows.map((r) => r.outcome),
  );
  const verdicts = classifyAll(rows, [summary], params, new Date(at.getTime() + 1));
  const statusOf = (name: string) =>
    verdicts.get(
      testCaseId({
        organisationSlug: 'acme',
        repository,
        ...tests.find((t) => t.name === name)!,
        variant: 'linux',
      }),
    )?.status;
  expect(statusOf('TestFlakyInventory')).toBe('flaky');
  expect(statusOf('TestTotal')).toBe('healthy');
  expect(statusOf('TestWarehouse')).toBe('healthy');
});

test('failures of one test across attempts share a fingerprint; owners come from CODEOWNERS', async () => {
  const [test] = combineUploadFiles([await parseFixture('surefire-rerun.xml')]).filter(
    (t) => t.name === 'computesTax',
  );
  const fingerprints = new Set(
    test!.attempts.map((a) => fingerprintFailure({ ...a.failure, body: a.failure?.body?.text }).fingerprint),
  );
  expect(fingerprints.size).toBe(1);

  const jest = combineUploadFiles([await parseFixture('jest-junit-invocations.xml')]);
  const owners = createOwnersResolver('* @acme/all\nsrc/ @acme/web\n');
  expect(owners(jest[0]!.file)).toEqual(['@acme/web']);
});
