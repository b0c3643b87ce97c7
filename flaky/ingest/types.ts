/**
 * What an upload is once the HTTP layer has validated it: who sent it, for which repository, the
 * CI metadata, and the parsed JUnit files. Plain data; the ingestion pipeline takes it from here.
 */
import type { RepositoryKey } from '../../contract';
import { type ParsedJunitFile } from '../junit';

export interface UploadMetadata {
  /** The caller's id for this upload; the same id again is the same upload (idempotency). */
  readonly uploadId: string;
  readonly commitSha: string;
  readonly branch: string;
  readonly prNumber?: number;
  readonly jobName?: string;
  readonly jobUrl?: string;
  /** CI attempt of the job (re-runs of a whole job), 1-based. */
  readonly attempt: number;
  /** Environment split of every test in the upload ('' when none). */
  readonly variant: string;
  /** CODEOWNERS content at the commit, when the uploader sent it. */
  readonly codeowners?: string;
}

export interface UploadInput {
  readonly organisationId: string;
  /** The organisation's url slug: part of every test id (identity.ts). */
  readonly organisationSlug: string;
  readonly repository: RepositoryKey;
  readonly metadata: UploadMetadata;
  readonly files: readonly ParsedJunitFile[];
  /**
   * Owners of each test file (`test.file`) from `metadata.codeowners`, matched beforehand off the
   * event loop and within bounds (owners.ts): the API always sends them with a CODEOWNERS. Without
   * them the owners are matched while the upload is prepared, unbounded (trusted callers only).
   */
  readonly owners?: ReadonlyMap<string, readonly string[]>;
}

export interface UploadFileSummary {
  readonly name: string;
  readonly dialect: string;
  readonly tests: number;
  readonly attempts: number;
}

export interface UploadOutcome {
  /** False when the upload id was already stored: nothing changed. */
  readonly created: boolean;
  readonly uploadId: string;
  readonly files: readonly UploadFileSummary[];
  readonly tests: number;
  /** Non-skipped attempts. */
  readonly results: number;
  readonly failures: number;
  readonly skipped: number;
  /** D4: the upload was excluded from classification and failure rates. */
  readonly infra: boolean;
  /** Tests re-classified by this upload, and how many of them changed status. */
  readonly reclassified: number;
  readonly statusChanges: number;
}

/** The upload id is already stored with different content; the HTTP layer answers 409. */
export class UploadConflictError extends Error {
  override readonly name = 'UploadConflictError';
  constructor(readonly uploadId: string) {
    super(
      `Upload "${uploadId}" was already received with different content; send new results under a new upload_id.`,
    );
  }
}
