/**
 * D4, infrastructure-failure exclusion: an upload in which at least INFRA_RATIO of at least
 * INFRA_MIN non-skipped results failed says more about the machine than about any test, so its
 * results are left out of every classification rule and rate. (They still count as failures for
 * list-failing-tests; that is the read side's business.)
 *
 * The summary covers the whole upload, all tests, so ingestion computes it once per upload with
 * `summariseUpload`; the classifier only compares it with the repository's parameters.
 */
import { type ClassificationParams } from './params';
import { type Outcome, type UploadSummary } from './types';

export function summariseUpload(uploadId: string, outcomes: Iterable<Outcome>): UploadSummary {
  let results = 0;
  let failures = 0;
  for (const outcome of outcomes) {
    if (outcome === 'skip') continue;
    results += 1;
    if (outcome === 'fail') failures += 1;
  }
  return { uploadId, results, failures };
}

export function isInfraUpload(
  summary: UploadSummary,
  params: Pick<ClassificationParams, 'infraFailureRatio' | 'infraMinResults'>,
): boolean {
  return (
    summary.results >= params.infraMinResults &&
    summary.failures / summary.results >= params.infraFailureRatio
  );
}

/**
 * Ids of the excluded uploads. A summary sent twice counts once; should two disagree, the larger
 * one is taken, so the answer does not depend on which arrived first.
 */
export function infraUploadIds(
  uploads: readonly UploadSummary[],
  params: Pick<ClassificationParams, 'infraFailureRatio' | 'infraMinResults'>,
): ReadonlySet<string> {
  const byId = new Map<string, UploadSummary>();
  for (const upload of uploads) {
    const seen = byId.get(upload.uploadId);
    const larger =
      seen === undefined ||
      upload.results > seen.results ||
      (upload.results === seen.results && upload.failures > seen.failures);
    if (larger) byId.set(upload.uploadId, upload);
  }
  return new Set([...byId.values()].filter((u) => isInfraUpload(u, params)).map((u) => u.uploadId));
}
