/**
 * Priorities: 0..255, lower first; names urgent = 0, high = 10, medium = 100 (default), low = 200.
 *
 * Rules (trunk-compat §1.1, §4):
 * - A higher priority (lower number) starts testing before any PR that has not started yet; equal
 *   priorities go in submission order (ordering.ts).
 * - Only 0 interrupts running tests ("skip the line"): the PR goes to the front and the runs behind
 *   it restart on top of it (`SKIP_THE_LINE_INTERRUPTED`).
 * - A resubmission of a queued PR (or `priorityChanged`) rewrites its priority and `noBatch` in
 *   place: a PR that has not started is re-placed by its new priority; one that has started keeps its
 *   place unless it became urgent; `noBatch` applies from the next run.
 * - Numbers between the named levels are named after the level band they fall in (Trunk does not say;
 *   railyard's choice): 0 urgent, 1..10 high, 11..100 medium, 101..255 low.
 */
import { type Draft, entryOf, inMerge, transition } from './draft';
import { leaveGroup } from './groups';
import { type Entry } from './model';
import { URGENT, placeAdmitted } from './ordering';

export type PriorityName = 'urgent' | 'high' | 'medium' | 'low';

export const PRIORITY_VALUES: Readonly<Record<PriorityName, number>> = {
  urgent: 0,
  high: 10,
  medium: 100,
  low: 200,
};

export const DEFAULT_PRIORITY = PRIORITY_VALUES.medium;
export const MAX_PRIORITY = 255;

/** A priority from the API (a number, a numeric string or a name, any case); null if invalid. */
export function parsePriority(input: number | string | null | undefined): number | null {
  if (input === null || input === undefined) return DEFAULT_PRIORITY;
  if (typeof input === 'string') {
    const name = input.trim().toLowerCase();
    if (name in PRIORITY_VALUES) return PRIORITY_VALUES[name as PriorityName];
    if (!/^\d+$/.test(name)) return null;
    return parsePriority(Number(name));
  }
  return Number.isInteger(input) && input >= 0 && input <= MAX_PRIORITY ? input : null;
}

export function priorityName(value: number): PriorityName {
  if (value <= PRIORITY_VALUES.urgent) return 'urgent';
  if (value <= PRIORITY_VALUES.high) return 'high';
  if (value <= PRIORITY_VALUES.medium) return 'medium';
  return 'low';
}

export function onPriorityChanged(d: Draft, pr: number, priority: number, noBatch: boolean): void {
  const entry = entryOf(d, pr);
  if (entry) changePriority(d, entry, priority, noBatch);
}

/** The engine trusts no caller with its ordering: out-of-range priorities are clamped to 0..255. */
export function clampPriority(priority: number): number {
  return Number.isFinite(priority)
    ? Math.min(MAX_PRIORITY, Math.max(URGENT, Math.round(priority)))
    : DEFAULT_PRIORITY;
}

export function changePriority(d: Draft, entry: Entry, priority: number, noBatch: boolean): void {
  const before = entry.priority;
  entry.priority = clampPriority(priority);
  entry.noBatch = noBatch;
  if (entry.state === 'not_ready' || inMerge(d, entry.pr)) return;
  const becameUrgent = entry.priority === URGENT && before !== URGENT;
  if (!entry.started) {
    placeAdmitted(d, entry);
  } else if (becameUrgent) {
    leaveGroup(d, entry, 'SKIP_THE_LINE_INTERRUPTED');
    transition(d, entry, { to: 'pending', reason: 'SKIP_THE_LINE_INTERRUPTED' });
    placeAdmitted(d, entry);
  }
}
