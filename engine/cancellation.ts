/**
 * Cancellation: a PR leaves the queue on request or because of something done to the PR.
 *
 * Rule (trunk-compat §1.2, §3): any non-terminal PR may be cancelled, with Trunk's cancellation
 * reason. Cancelling a PR restarts the PRs that depended on it: every run whose tree held it restarts
 * (`PREREQUISITE_MERGE_ITEM_CANCELLED`), and so does its own batch, whose run tested it too.
 * Invariants: a PR that is being merged can no longer be cancelled (the merge is already out; the
 * request is logged and ignored); cancelling an unknown PR is logged and ignored (the API answers
 * 404 before it gets here).
 */
import { type EngineEvent } from './events';
import { type Draft, entryOf, finish, inMerge } from './draft';
import { leaveGroup } from './groups';

export function onCancelled(d: Draft, event: Extract<EngineEvent, { type: 'cancelled' }>): void {
  const entry = entryOf(d, event.pr);
  // Not in the queue (a late or repeated cancel), or already being merged: the merge decides.
  if (!entry || inMerge(d, entry.pr)) return;
  leaveGroup(d, entry, 'PREREQUISITE_MERGE_ITEM_CANCELLED');
  finish(d, entry, { to: 'cancelled', reason: event.reason });
}
