/**
 * What a test's page explains its status from (classification/evidence.ts, worded by
 * contract/test-status-why.ts): the test's history as the classifier reads it (reclassify.ts's
 * loadHistory over the same bounded span, historyDays), read at `now` with the repository's own
 * parameters. One test, two indexed statements.
 */
import { type ClassificationParams, statusEvidence, type StatusEvidence } from '../classification';
import { type Queryable } from './db';
import { historyDays, loadHistory } from './reclassify';

const DAY_MS = 86_400_000;

export async function loadStatusEvidence(
  db: Queryable,
  testPk: string,
  params: ClassificationParams,
  now: Date,
): Promise<StatusEvidence> {
  const from = new Date(now.getTime() - historyDays(params) * DAY_MS);
  const { results, uploads } = await loadHistory(db, [{ pk: testPk }], params, from, now);
  const testResults = results.get(testPk) ?? [];
  const testUploads = [...new Set(testResults.map((r) => r.uploadId))].flatMap((id) => {
    const upload = uploads.get(id);
    return upload ? [upload] : [];
  });
  return statusEvidence({ results: testResults, uploads: testUploads }, params, now);
}
