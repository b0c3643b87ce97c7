/**
 * Queue states and settings changes.
 *
 * Rules (trunk-compat §4):
 * - `running`: admit, test, merge.
 * - `paused`: nothing starts testing and nothing merges; runs in flight finish and their verdicts
 *   are recorded; PRs are still admitted and keep their order.
 * - `draining` (code freeze): no PR starts testing on the main line; what is in flight finishes and
 *   merges, and the new run of a group restarted in place (restart.ts) starts: it re-runs work
 *   already in flight, on the same tree. The bisection of a batch that failed goes on beside the
 *   line (bisection.ts), but the PRs it clears need a main-line run to merge, so they wait in the
 *   line for the drain to end like every other PR not yet tested.
 * - `switching_modes`: entered by the engine when `mode` changes while runs or a merge are in flight;
 *   behaves like draining until they are done, then the new mode applies and the queue returns to
 *   the state an operator last asked for. With nothing in flight the switch is immediate.
 * - Other settings apply from the next decision: a lower concurrency cancels nothing, it only stops
 *   new runs until the count drops below it.
 * Invariants: `switching_modes` is never requested from outside; `requestedStatus` remembers what to
 * return to, and a request made during the switch is honoured when it ends. A drain or a switch
 * never waits on a run it forbids: a passed or failed group waits only for the groups under it, and
 * those are in flight, or formed and waiting for a run that `mayStartRun` allows while draining (a
 * restart in place, a bisection chunk).
 */
import { assertNever } from './assert-never';
import { applyConfigPatch, type QueueMode } from './config';
import { type EngineEvent } from './events';
import { type Draft } from './draft';
import { type QueueStatus } from './model';

/**
 * What a run about to start is for: a new group on the main line, a main-line group restarted in
 * place (formed, tested once, waiting for its new run), or a bisection chunk.
 */
export type RunKind = 'new' | 'restart' | 'bisection';

export function mayStartRun(kind: RunKind, status: QueueStatus): boolean {
  switch (kind) {
    case 'new':
      return status === 'running';
    // Both continue work that was already in flight: the runs built on a restarted group (and a
    // pending mode switch) wait for its new run, so holding it back while draining would wait forever.
    case 'restart':
    case 'bisection':
      return status !== 'paused';
    default:
      return assertNever(kind);
  }
}

export function mayMerge(status: QueueStatus): boolean {
  return status !== 'paused';
}

export function onConfigUpdated(d: Draft, event: Extract<EngineEvent, { type: 'configUpdated' }>): void {
  const { mode, ...rest } = event.patch;
  d.state.config = applyConfigPatch(d.state.config, rest);
  if (event.state !== undefined) {
    d.state.requestedStatus = event.state;
    if (d.state.status !== 'switching_modes') setStatus(d, event.state);
  }
  if (mode !== undefined) requestMode(d, mode);
  d.dirty = true;
}

function requestMode(d: Draft, mode: QueueMode): void {
  if (d.state.status === 'switching_modes' && mode === d.state.config.mode) {
    d.state.pendingMode = null;
    setStatus(d, d.state.requestedStatus);
    return;
  }
  if (mode === d.state.config.mode) return;
  d.state.pendingMode = mode;
  setStatus(d, 'switching_modes');
  completeModeSwitch(d);
}

/**
 * Applies a pending mode change once nothing is in flight: no merge, and no group that started a run
 * (testing, passed and waiting to merge, or failed and waiting for blame). A group that passed under
 * the old mode must still merge: switching under it would send its PR back to admission.
 */
export function completeModeSwitch(d: Draft): void {
  const mode = d.state.pendingMode;
  if (d.state.status !== 'switching_modes' || mode === null) return;
  if (d.state.merge !== null || d.state.groups.some((g) => g.status !== 'waiting')) return;
  d.state.config = { ...d.state.config, mode };
  d.state.pendingMode = null;
  setStatus(d, d.state.requestedStatus);
}

function setStatus(d: Draft, to: QueueStatus): void {
  if (d.state.status === to) return;
  d.state.status = to;
  d.dirty = true;
}
