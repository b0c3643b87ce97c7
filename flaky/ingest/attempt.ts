/**
 * One parsed attempt as ingestion stores it: its outcome (D2), its duration clamped to the column's
 * 32-bit milliseconds, and the fingerprint of its failure when it failed. Pure; the API thread
 * (prepare.ts) and the parser thread (row-encoder.ts) both use it, so a row is the same whichever
 * thread encoded it.
 */
import { type Outcome, outcomeOfStatus } from '../classification';
import { type FailureFingerprint, fingerprintFailure } from '../fingerprint';
import { type ParsedAttempt } from '../junit';
import { type Mutable } from '../junit/values';

export interface PreparedAttempt {
  readonly index: number;
  readonly outcome: Outcome;
  readonly durationMs?: number;
  readonly failure?: FailureFingerprint;
}

export function prepareAttempt(
  attempt: Pick<ParsedAttempt, 'index' | 'status' | 'durationMs' | 'failure'>,
): PreparedAttempt {
  const outcome = outcomeOfStatus(attempt.status);
  const prepared: Mutable<PreparedAttempt> = { index: attempt.index, outcome };
  if (attempt.durationMs !== undefined) prepared.durationMs = clampDuration(attempt.durationMs);
  if (outcome === 'fail') {
    const detail = attempt.failure;
    prepared.failure = fingerprintFailure({
      ...(detail?.message === undefined ? {} : { message: detail.message }),
      ...(detail?.type === undefined ? {} : { type: detail.type }),
      ...(detail?.body === undefined ? {} : { body: detail.body.text }),
    });
  }
  return prepared;
}

/** A JUnit `time` can be anything; the column is a 32-bit integer of milliseconds. */
function clampDuration(ms: number): number {
  return Math.min(2_147_483_647, Math.max(0, Math.round(ms)));
}
