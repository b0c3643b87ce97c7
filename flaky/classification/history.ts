/**
 * D5 and order-independence: the history the rules see is a function of the *set* of results,
 * never of the order or number of times they arrived.
 *
 * - Dedupe by result identity (upload id, test id, attempt). Should a re-send differ, the earliest
 *   copy wins (then the smallest content), so the choice does not depend on arrival order.
 * - Canonical order: time, then upload id, test id, attempt — a total order, so ties are broken the
 *   same way on every evaluation.
 * - Results at or after the evaluation time are not yet "seen" and are dropped.
 * - Skips are dropped (D2); infrastructure uploads (D4) are dropped from `counted` but kept in
 *   `ran`, since an infra-failed run still shows the test is not stale.
 */
import { isStableSet } from './branch-class';
import { infraUploadIds } from './infra';
import { type ClassificationParams } from './params';
import { type BranchClass, type ObservedResult, type TestHistory } from './types';

export interface CountedResult {
  readonly atMs: number;
  readonly failed: boolean;
  readonly commitSha: string;
  readonly branchClass: BranchClass;
}

export interface PreparedHistory {
  /** Times of every non-skipped result, infra included, ascending. */
  readonly ran: readonly number[];
  /** Non-skipped, non-infra results in canonical order. */
  readonly counted: readonly CountedResult[];
  /** The stable-set subset of `counted`, same order. */
  readonly stable: readonly CountedResult[];
}

export function prepareHistory(
  history: TestHistory,
  params: ClassificationParams,
  evaluationMs: number,
): PreparedHistory {
  const excluded = infraUploadIds(history.uploads, params);
  const unique = dedupe(history.results).filter((r) => r.outcome !== 'skip' && r.at.getTime() < evaluationMs);
  unique.sort(compareCanonical);
  const counted = unique
    .filter((r) => !excluded.has(r.uploadId))
    .map((r) => ({
      atMs: r.at.getTime(),
      failed: r.outcome === 'fail',
      commitSha: r.commitSha,
      branchClass: r.branchClass,
    }));
  return {
    ran: unique.map((r) => r.at.getTime()),
    counted,
    stable: counted.filter((r) => isStableSet(r.branchClass)),
  };
}

export function resultIdentity(result: Pick<ObservedResult, 'uploadId' | 'testId' | 'attempt'>): string {
  return JSON.stringify([result.uploadId, result.testId, result.attempt]);
}

function dedupe(results: readonly ObservedResult[]): ObservedResult[] {
  const byIdentity = new Map<string, ObservedResult>();
  for (const result of results) {
    const key = resultIdentity(result);
    const seen = byIdentity.get(key);
    if (seen === undefined || preferred(result, seen)) byIdentity.set(key, result);
  }
  return [...byIdentity.values()];
}

function preferred(candidate: ObservedResult, incumbent: ObservedResult): boolean {
  const byTime = candidate.at.getTime() - incumbent.at.getTime();
  if (byTime !== 0) return byTime < 0;
  return contentKey(candidate) < contentKey(incumbent);
}

function contentKey(result: ObservedResult): string {
  return JSON.stringify([result.outcome, result.commitSha, result.branchClass]);
}

function compareCanonical(a: ObservedResult, b: ObservedResult): number {
  return (
    a.at.getTime() - b.at.getTime() ||
    compareStrings(a.uploadId, b.uploadId) ||
    compareStrings(a.testId, b.testId) ||
    a.attempt - b.attempt
  );
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
