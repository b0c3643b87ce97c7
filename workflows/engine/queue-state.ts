/**
 * Queue states and settings changes.
 *
 * Rules (trunk-compat §4):
 * - `running`: admit, test, merge.
 * - `paused`: nothing starts testing and nothing merges; runs in flight finish and their verdicts
 *   are recorded; PRs are still admitted and keep their order.
 * - `draining` (code freeze): no PR starts testing on the main line; what is in flight finishes and
 *   merges, including the bisection of a batch that was in flight.
 * - `switching_modes`: entered by the engine when `mode` changes while runs or a merge are in flight;
 *   behaves like draining until they are done, then the new mode applies and the queue returns to
 *   the state an operator last asked for. With nothing in flight the switch is immediate.
 * - Other settings apply from the next decision: a lower concurrency cancels nothing, it only stops
 *   new runs until the count drops below it.
 * Invariant: `switching_modes` is never requested from outside; `requestedStatus` remembers what to
 * return to, and a request made during the switch is honoured when it ends.
 */
import { applyConfigPatch, changedSettings, type QueueMode } from './config';
import { type EngineEvent } from './events';
import { type Draft, emit } from './draft';
import { type QueueStatus } from './model';

export function mayStartMainRuns(status: QueueStatus): boolean {
  return status === 'running';
}

export function mayStartBisectionRuns(status: QueueStatus): boolean {
  return status !== 'paused';
}

export function mayMerge(status: QueueStatus): boolean {
  return status !== 'paused';
}

export function onConfigUpdated(d: Draft, event: Extract<EngineEvent, { type: 'configUpdated' }>): void {
  const before = d.state.config;
  const { mode, ...rest } = event.patch;
  d.state.config = applyConfigPatch(before, rest);
  const settings = changedSettings(before, d.state.config);
  if (settings.length > 0) emit(d, { kind: 'configChanged', settings });
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
  const from = d.state.config.mode;
  d.state.config = { ...d.state.config, mode };
  d.state.pendingMode = null;
  emit(d, { kind: 'modeChanged', from, to: mode });
  setStatus(d, d.state.requestedStatus);
}

function setStatus(d: Draft, to: QueueStatus): void {
  const from = d.state.status;
  if (from === to) return;
  d.state.status = to;
  emit(d, { kind: 'queueStateChanged', from, to });
  d.dirty = true;
}
