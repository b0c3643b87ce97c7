/**
 * The uploads table (one row per upload id of a repository): the insert that makes an upload exist, and
 * the stored summary a repeated upload id is answered with. Ingestion (../ingest/ingest.ts) calls both
 * inside its transaction.
 */
import { type PoolClient } from 'pg';
import { type PreparedSummary } from '../ingest/prepare';
import { type UploadInput, type UploadOutcome } from '../ingest/types';

/** The new upload's pk, or null when the upload id is already stored. */
export async function insertUpload(
  client: PoolClient,
  repositoryPk: string,
  input: UploadInput,
  prepared: PreparedSummary,
  infra: boolean,
  at: Date,
): Promise<string | null> {
  const m = input.metadata;
  const { rows } = await client.query<{ pk: string }>(
    `INSERT INTO uploads (repository_pk, upload_id, commit_sha, branch, pr_number, job_name, job_url, job_attempt,
       variant, content_digest, files, tests, results, failures, skipped, infra, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     ON CONFLICT (repository_pk, upload_id) DO NOTHING RETURNING pk`,
    [
      repositoryPk,
      m.uploadId,
      m.commitSha,
      m.branch,
      m.prNumber ?? null,
      m.jobName ?? null,
      m.jobUrl ?? null,
      m.attempt,
      m.variant,
      prepared.digest,
      JSON.stringify(prepared.files),
      prepared.testCount,
      prepared.results,
      prepared.failures,
      prepared.skipped,
      infra,
      at,
    ],
  );
  return rows[0]?.pk ?? null;
}

/** What an upload id already stored holds, or undefined when it is not stored. */
export async function storedUpload(
  client: PoolClient,
  repositoryPk: string,
  uploadId: string,
): Promise<
  | (Pick<UploadOutcome, 'files' | 'tests' | 'results' | 'failures' | 'skipped' | 'infra'> & {
      content_digest: string;
    })
  | undefined
> {
  const { rows } = await client.query<{
    content_digest: string;
    files: UploadOutcome['files'];
    tests: number;
    results: number;
    failures: number;
    skipped: number;
    infra: boolean;
  }>(
    `SELECT content_digest, files, tests, results, failures, skipped, infra FROM uploads
     WHERE repository_pk = $1 AND upload_id = $2`,
    [repositoryPk, uploadId],
  );
  return rows[0];
}
