/**
 * Whether a new classification must be written to the status history. A history row records a
 * change of status value (healthy/flaky/broken) — that is what `status.timestamp` dates. A change
 * of reason alone (a newer evidence commit, a rate moving) updates the current state but is not a
 * transition; an identical answer changes nothing, which keeps re-evaluation idempotent.
 */
import { type Classification, type TestStatus } from './types';

export interface StoredStatus {
  readonly status: TestStatus;
  readonly reason: string;
  readonly timestamp: Date;
}

export type StatusTransition =
  | { readonly kind: 'first'; readonly to: Classification }
  | { readonly kind: 'status_changed'; readonly from: TestStatus; readonly to: Classification }
  | { readonly kind: 'reason_changed'; readonly to: Classification }
  | { readonly kind: 'unchanged' };

export function transition(previous: StoredStatus | undefined, next: Classification): StatusTransition {
  if (previous === undefined) return { kind: 'first', to: next };
  if (previous.status !== next.status) return { kind: 'status_changed', from: previous.status, to: next };
  if (previous.reason !== next.reason || previous.timestamp.getTime() !== next.timestamp.getTime()) {
    return { kind: 'reason_changed', to: next };
  }
  return { kind: 'unchanged' };
}

/** True when the transition belongs in the status-history table. */
export function mustRecord(change: StatusTransition): boolean {
  switch (change.kind) {
    case 'first':
    case 'status_changed':
      return true;
    case 'reason_changed':
    case 'unchanged':
      return false;
  }
}
