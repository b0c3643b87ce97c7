/**
 * A budget on the impacted targets one queue holds, so that its carried state stays well under
 * Temporal's 2 MB payload limit at continue-as-new (one request is bounded at the API: 1,000 targets of
 * 256 characters, api/schemas/limits.ts; but a queue holds every queued PR's targets plus early ones).
 *
 * Rule: targets that would take the queue's total past TARGETS_BUDGET_BYTES are stored as `'ALL'`.
 * The total is counted as stored: UTF-8 bytes of JSON (jsonBytes), not UTF-16 units, so targets full
 * of characters that JSON escapes (6 bytes for one unit) cannot carry several times the budget.
 * That is always safe, since a PR impacting everything depends on every PR ahead of it and every PR
 * behind it depends on it: the queue loses parallelism for that PR, never correctness. Pure and
 * deterministic; small inputs (every recorded history) take the unchanged path.
 */
import { jsonBytes } from '../../contract';
import type { QueueState } from '../../engine';

export const TARGETS_BUDGET_BYTES = 512 * 1024;

/**
 * JSON bytes of a list as carried, with 8 bytes per target for its quotes, comma and the state around
 * it: for a target JSON does not escape this is `length + 8`, the count before bytes were counted, so
 * every decision on such targets (every recorded history) is unchanged.
 */
const size = (targets: string[] | 'ALL' | null | undefined) =>
  Array.isArray(targets) ? targets.reduce((n, t) => n + jsonBytes(t) - 2 + 8, 0) : 0;

/** The targets to record for `pr`: as sent, or `'ALL'` when they would break the budget. */
export function withinTargetsBudget(
  engine: QueueState,
  early: readonly { pr: number; targets: string[] | 'ALL' }[],
  pr: number,
  targets: string[] | 'ALL',
): string[] | 'ALL' {
  if (targets === 'ALL') return targets;
  // The PR's own earlier targets are replaced by these, so they do not count.
  const held =
    engine.entries.reduce((n, e) => n + (e.pr === pr ? 0 : size(e.targets?.targets)), 0) +
    early.reduce((n, t) => n + (t.pr === pr ? 0 : size(t.targets)), 0);
  return held + size(targets) > TARGETS_BUDGET_BYTES ? 'ALL' : targets;
}
