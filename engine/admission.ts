/**
 * Admission and readiness: when a submitted PR joins the line, and when it leaves it again.
 *
 * Rule (trunk-compat §3, §1.4 readiness): a submission starts `not_ready` and becomes `pending`
 * (`MERGE_ITEM_NOW_READY`) once its workflow reports it ready (mergeable, base branch matches, checks
 * passed) and, in parallel mode, impacted targets have been uploaded for its current head sha. A PR
 * that stops being ready goes back to `not_ready`; the runs built on it restart
 * (`PREREQUISITE_NOT_READY`), and so does its batch. A new head sha is a new change: the PR leaves the
 * line (`PR_HEAD_CHANGED`) and is placed again by priority once ready; targets uploaded for the old
 * sha no longer count. A head pushed while the PR is being merged is held in `newHeadSha` and applied
 * when the merge is over, so a failed merge can not be retried on the strength of the old head's run.
 * Invariants:
 * - Admission is recomputed on every decide (`admit`), so a mode switch that starts or stops
 *   requiring impacted targets moves PRs in or out of the line without a dedicated event.
 * - A PR being merged is never demoted: the merge is already out.
 * - Impacted targets that change for the current sha restart exactly the runs whose tree changes
 *   (`IMPACTED_TARGETS_CHANGED`), and the PR's own run if another lane merged under it (its result
 *   held only because the lanes were disjoint); an identical re-upload changes nothing.
 */
import { type EngineEvent } from './events';
import { type Draft, command, entryOf, inMerge, note, transition } from './draft';
import { dissolveGroup, leaveGroup } from './groups';
import { type Entry } from './model';
import { placeAdmitted, placeNotReady } from './ordering';
import { changePriority, clampPriority } from './priorities';
import { type NotReadyReason } from './reasons';

type Ev<T extends EngineEvent['type']> = Extract<EngineEvent, { type: T }>;

export function onSubmitted(d: Draft, event: Ev<'submitted'>): void {
  const existing = entryOf(d, event.pr);
  if (existing) {
    changePriority(d, existing, event.priority, event.noBatch);
    return;
  }
  const reason = event.reason ?? 'API_REQUESTED';
  const entry: Entry = {
    pr: event.pr,
    headSha: event.headSha,
    newHeadSha: null,
    priority: clampPriority(event.priority),
    noBatch: event.noBatch,
    seq: d.state.nextSeq,
    submittedAt: d.ctx.now,
    state: 'not_ready',
    reason,
    stateChangedAt: d.ctx.now,
    ready: event.ready,
    baseSha: event.baseSha,
    targets: null,
    group: null,
    started: false,
    queuedAt: d.ctx.now,
  };
  d.state.nextSeq += 1;
  d.state.entries.push(entry);
  command(d, {
    type: 'notifyPr',
    pr: entry.pr,
    from: null,
    to: 'not_ready',
    reason,
    at: d.ctx.now,
    runId: null,
  });
}

export function onReady(d: Draft, event: Ev<'ready'>): void {
  const entry = entryOf(d, event.pr);
  if (!entry) return;
  entry.newHeadSha = event.headSha === entry.headSha ? null : event.headSha;
  applyNewHead(d, entry);
  entry.ready = true;
  entry.baseSha = event.baseSha;
  d.dirty = true;
}

export function onNotReady(d: Draft, event: Ev<'notReady'>): void {
  const entry = entryOf(d, event.pr);
  if (!entry) return;
  entry.ready = false;
  demote(d, entry, event.reason);
}

export function onImpactedTargetsSet(d: Draft, event: Ev<'impactedTargetsSet'>): void {
  // The PR's workflow holds uploads made before submission and forwards them after it.
  const entry = entryOf(d, event.pr);
  if (!entry) return;
  const before = entry.targets;
  entry.targets = { sha: event.headSha, targets: event.targets };
  d.dirty = true;
  const changed =
    event.headSha === entry.headSha &&
    (before?.sha !== event.headSha || JSON.stringify(before.targets) !== JSON.stringify(event.targets));
  if (!changed) return;
  note(d, [entry.pr], 'IMPACTED_TARGETS_CHANGED');
  // A run that another lane merged under was only valid because the targets were disjoint; with new
  // targets the engine can no longer vouch for that, so it is tested again.
  const group = d.state.groups.find((g) => g.key === entry.group);
  if (group && !group.exact && !group.bisection && !inMerge(d, entry.pr))
    dissolveGroup(d, group, 'IMPACTED_TARGETS_CHANGED');
}

/** Moves PRs in and out of the line according to their readiness now. */
export function admit(d: Draft): void {
  for (const entry of [...d.state.entries]) {
    applyNewHead(d, entry);
    const missing = missingReadiness(d, entry);
    if (entry.state === 'not_ready' && missing === null) {
      transition(d, entry, { to: 'pending', reason: 'MERGE_ITEM_NOW_READY' });
      placeAdmitted(d, entry);
    } else if (entry.state !== 'not_ready' && missing !== null) {
      demote(d, entry, missing);
    }
  }
}

function missingReadiness(d: Draft, entry: Entry): NotReadyReason | null {
  if (!entry.ready) return 'AWAITING_MERGEABILITY';
  if (d.state.config.mode === 'parallel' && entry.targets?.sha !== entry.headSha) {
    return 'IMPACTED_TARGETS_MISSING';
  }
  return null;
}

/** A new head is a new change: the PR leaves the line, unless it is being merged (then later). */
function applyNewHead(d: Draft, entry: Entry): void {
  if (entry.newHeadSha === null || inMerge(d, entry.pr)) return;
  demote(d, entry, 'PR_HEAD_CHANGED');
  entry.headSha = entry.newHeadSha;
  entry.newHeadSha = null;
  // A new change: what a bisection found about the old head says nothing about it.
  delete entry.cleared;
  d.dirty = true;
}

function demote(d: Draft, entry: Entry, reason: NotReadyReason): void {
  if (entry.state === 'not_ready' || inMerge(d, entry.pr)) return;
  leaveGroup(d, entry, 'PREREQUISITE_NOT_READY');
  transition(d, entry, { to: 'not_ready', reason });
  placeNotReady(d, entry);
}
