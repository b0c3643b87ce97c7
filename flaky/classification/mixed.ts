/**
 * S1, same-commit disagreement: a commit with at least one pass and one fail within W_MIX of each
 * other, on any branch class. That is the one signal every system agrees on: the code did not
 * change, the outcome did.
 *
 * Evidence events: every result that has a result of the opposite outcome on the same commit at
 * most W_MIX earlier (or at the same instant). "Both within [T−W_MIX, T) for some T" is exactly
 * "less than W_MIX apart", so the later of the two is the moment the commit became mixed.
 *
 * Latch and recovery: once there is evidence the signal stays on until T − (last evidence) ≥
 * RECOVER_DAYS and at least RECOVER_PASSES passes arrived after it. Time alone never heals; only
 * staleness clears the latch, by moving the cutoff below which evidence is forgotten.
 */
import { lowerBound } from './window';
import { type CountedResult } from './history';

export interface MixedEvidence {
  readonly atMs: number;
  readonly commitSha: string;
}

export interface MixedReading {
  readonly active: boolean;
  /** The latest evidence still remembered, active or recovered from. */
  readonly last?: MixedEvidence;
}

export function mixedEvidence(counted: readonly CountedResult[], lookbackMs: number): MixedEvidence[] {
  const byCommit = new Map<string, CountedResult[]>();
  for (const result of counted) {
    const list = byCommit.get(result.commitSha) ?? [];
    list.push(result);
    byCommit.set(result.commitSha, list);
  }
  const events: MixedEvidence[] = [];
  for (const [commitSha, results] of byCommit) {
    let lastPass = -Infinity;
    let lastFail = -Infinity;
    // Results arrive time-sorted; a whole same-instant group is seen before any of it is judged,
    // so a retry written at the same time as the failure it followed still counts.
    for (let i = 0; i < results.length;) {
      const at = results[i]!.atMs;
      let j = i;
      for (; j < results.length && results[j]!.atMs === at; j += 1) {
        if (results[j]!.failed) lastFail = at;
        else lastPass = at;
      }
      for (let k = i; k < j; k += 1) {
        const opposite = results[k]!.failed ? lastPass : lastFail;
        if (at - opposite < lookbackMs) events.push({ atMs: at, commitSha });
      }
      i = j;
    }
  }
  return events.sort(
    (a, b) => a.atMs - b.atMs || (a.commitSha < b.commitSha ? -1 : a.commitSha > b.commitSha ? 1 : 0),
  );
}

export interface MixedContext {
  readonly evidence: readonly MixedEvidence[];
  readonly evidenceTimes: readonly number[];
  /** Times of counted passes, ascending. */
  readonly passTimes: readonly number[];
  readonly recoverMs: number;
  readonly recoverPasses: number;
}

/** S1 at instant `now`, forgetting evidence before `cutoffMs` (the end of the last stale spell). */
export function readMixed(context: MixedContext, cutoffMs: number, now: number): MixedReading {
  const lastIndex = lowerBound(context.evidenceTimes, now) - 1;
  const last = context.evidence[lastIndex];
  if (last === undefined || last.atMs < cutoffMs) return { active: false };
  const passesAfter = lowerBound(context.passTimes, now) - lowerBound(context.passTimes, last.atMs + 1);
  const recovered = now - last.atMs >= context.recoverMs && passesAfter >= context.recoverPasses;
  return { active: !recovered, last };
}

/** Whether any evidence newer than the cutoff lies in `[from, to)` (used by the broken-rate rule). */
export function hasEvidenceIn(context: MixedContext, cutoffMs: number, from: number, to: number): boolean {
  return lowerBound(context.evidenceTimes, to) > lowerBound(context.evidenceTimes, Math.max(from, cutoffMs));
}
