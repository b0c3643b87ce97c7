/**
 * The working copy one `decide` call mutates, and the helpers every module uses to change it.
 *
 * Rules and invariants:
 * - `decide` never mutates its input: `openDraft` copies the state's top level, entries and groups
 *   (arrays inside them are values, replaced and never mutated, so sharing them is safe).
 * - Every PR state change goes through `transition` or `finish`, which emit the `notifyPr` command,
 *   so the PR's own workflow sees every transition with its reason, in order.
 * - `finish` removes the entry: terminal PRs leave the state at once.
 * - `notes` (this call only, never persisted) records why each PR changed in a way that restarts the
 *   runs built on it; invalidation.ts reads it to name the restart reason of those runs.
 */
import { type EngineCommand } from './commands';
import { type Entry, type Group, type QueueState, type TerminalPrState } from './model';
import { type RestartReason, type Transition } from './reasons';

/** What the caller provides besides the state: the engine reads no clock and makes no ids itself. */
export interface EngineContext {
  /** Epoch milliseconds of this event. */
  now: number;
  /** A fresh unique id (the workflow passes Temporal's deterministic uuid4, the simulator a counter). */
  newId: () => string;
}

export interface Draft {
  readonly ctx: EngineContext;
  readonly state: QueueState;
  readonly commands: EngineCommand[];
  readonly notes: Map<number, RestartReason>;
  /** Whether anything changed since the flag was last cleared (settle loops until quiet). */
  dirty: boolean;
  /** Times something will be due (a batch's wait running out), gathered while settling. */
  readonly wakes: number[];
}

export function openDraft(state: QueueState, ctx: EngineContext): Draft {
  const copy: QueueState = {
    ...state,
    config: { ...state.config },
    entries: state.entries.map(cloneEntry),
    groups: state.groups.map((g) => ({ ...g })),
    knownResults: [...state.knownResults],
    merge: state.merge && { ...state.merge },
  };
  return { ctx, state: copy, commands: [], notes: new Map(), dirty: false, wakes: [] };
}

/**
 * Field by field rather than a spread: entries arrive in many object shapes (built here, parsed from
 * JSON after continue-as-new), and a literal gives V8 one shape, several times faster on big queues.
 * Listing every field also makes the compiler point here when `Entry` grows.
 */
function cloneEntry(e: Entry): Entry {
  return {
    pr: e.pr,
    headSha: e.headSha,
    newHeadSha: e.newHeadSha,
    priority: e.priority,
    noBatch: e.noBatch,
    seq: e.seq,
    submittedAt: e.submittedAt,
    state: e.state,
    reason: e.reason,
    stateChangedAt: e.stateChangedAt,
    ready: e.ready,
    baseSha: e.baseSha,
    targets: e.targets,
    group: e.group,
    started: e.started,
    queuedAt: e.queuedAt,
    ...(e.cleared ? { cleared: true } : {}),
  };
}

export function entryOf(d: Draft, pr: number): Entry | undefined {
  return d.state.entries.find((e) => e.pr === pr);
}

export function groupOf(d: Draft, key: number | null): Group | undefined {
  return key === null ? undefined : d.state.groups.find((g) => g.key === key);
}

export function groupByRun(d: Draft, runId: string): Group | undefined {
  return d.state.groups.find((g) => g.runId === runId);
}

/**
 * Members of a group in line order. Grouped PRs have started, and started PRs are a prefix of
 * `entries` (ordering.ts), so the scan stops at the first PR that has not started.
 */
export function membersOf(d: Draft, group: Group): Entry[] {
  const members: Entry[] = [];
  for (const e of d.state.entries) {
    if (!e.started) break;
    if (e.group === group.key) members.push(e);
  }
  return members;
}

export function inMerge(d: Draft, pr: number): boolean {
  return d.state.merge?.prs.includes(pr) ?? false;
}

/** Moves an active entry to a new active state and tells its workflow. No-op if nothing changes. */
export function transition(
  d: Draft,
  entry: Entry,
  change: Exclude<Transition, { to: TerminalPrState }>,
  runId: string | null = null,
): void {
  if (entry.state === change.to && entry.reason === change.reason) return;
  d.commands.push({ type: 'notifyPr', pr: entry.pr, from: entry.state, at: d.ctx.now, runId, ...change });
  if (change.to === 'pending' && entry.state !== 'pending') entry.queuedAt = d.ctx.now;
  entry.state = change.to;
  entry.reason = change.reason;
  entry.stateChangedAt = d.ctx.now;
  d.dirty = true;
}

/** Ends a submission: tells its workflow and removes it from the state. */
export function finish(
  d: Draft,
  entry: Entry,
  change: Extract<Transition, { to: TerminalPrState }>,
  runId: string | null = null,
  convictedBy: readonly string[] = [],
  failedTests: readonly string[] = [],
): void {
  d.commands.push({
    type: 'notifyPr',
    pr: entry.pr,
    from: entry.state,
    at: d.ctx.now,
    runId,
    ...change,
    ...(convictedBy.length > 0 ? { convictedBy: [...convictedBy] } : {}),
    ...(failedTests.length > 0 ? { failedTests: [...failedTests] } : {}),
  });
  d.state.entries = d.state.entries.filter((e) => e !== entry);
  // Trees holding a merged PR are re-based on the new tip (known-results.ts); other leavers void them.
  if (change.to !== 'merged')
    d.state.knownResults = d.state.knownResults.filter((r) => !r.tree.includes(entry.pr));
  d.dirty = true;
}

export function command(d: Draft, cmd: EngineCommand): void {
  d.commands.push(cmd);
  d.dirty = true;
}

export function note(d: Draft, prs: readonly number[], reason: RestartReason): void {
  for (const pr of prs) if (!d.notes.has(pr)) d.notes.set(pr, reason);
}

export function newGroupKey(d: Draft): number {
  const key = d.state.nextGroupKey;
  d.state.nextGroupKey += 1;
  return key;
}
