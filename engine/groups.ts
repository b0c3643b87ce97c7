/**
 * Groups: the PRs one test run decides, and the life of that run from start to dissolution.
 *
 * Rules and invariants:
 * - A group's run tests tip + `ahead` + `prs`. `ahead` is recomputed from the line when the run
 *   starts (lanes.ts) and only shrinks afterwards, as PRs under it merge.
 * - Starting a run fixes its members' line position (ordering.markStarted), moves them to `testing`
 *   and emits `startTestRun`; a run always has a fresh id from `ctx.newId`.
 * - Dissolving a group cancels its run if one is in flight, sends its members back to `pending`
 *   with the reason, and records that reason as the note for the runs built on them.
 * - A group whose members have all left is removed, so `groups` only holds live groups.
 */
import { type CancelRunReason } from './commands';
import { type Draft, command, membersOf, newGroupKey, note, transition } from './draft';
import { type Entry, type Group, type GroupStatus } from './model';
import { markStarted, reenterLine } from './ordering';
import { type RestartReason } from './reasons';

export function createGroup(
  d: Draft,
  members: readonly Entry[],
  kind: { bisection: boolean; direct: boolean; status: GroupStatus },
): Group {
  const group: Group = {
    key: newGroupKey(d),
    prs: members.map((e) => e.pr),
    bisection: kind.bisection,
    direct: kind.direct,
    status: kind.status,
    ahead: [],
    exact: true,
    runId: null,
    baseSha: null,
    startedAt: null,
    deadline: null,
    failure: null,
  };
  for (const e of members) e.group = group.key;
  d.state.groups.push(group);
  markStarted(d, members);
  d.dirty = true;
  return group;
}

/**
 * Starts a run for a group on top of `tree` (its dependencies, in line order). A flaky retry
 * (flaky-retry.ts) passes its reason and the tests to run; otherwise a bisection chunk runs only the
 * tests that failed in its batch (`suspects`), and any other run the whole suite.
 */
export function startRun(
  d: Draft,
  group: Group,
  tree: readonly Entry[],
  retry?: { reason: 'FLAKY_TESTS_RETRIED'; onlyTests: string[] },
): void {
  const ahead = tree.map((e) => e.pr);
  const runId = d.ctx.newId();
  const timeout = d.state.config.testingTimeoutMinutes;
  const onlyTests =
    retry?.onlyTests ?? (group.bisection && group.suspects?.complete ? group.suspects.ids : []);
  Object.assign(group, {
    status: 'testing',
    ahead,
    exact: true,
    runId,
    baseSha: d.state.tipSha,
    startedAt: d.ctx.now,
    deadline: timeout > 0 ? d.ctx.now + timeout * 60_000 : null,
    failure: null,
  } satisfies Partial<Group>);
  delete group.failedTests;
  // A fresh run (not a retry) starts its flaky retries over: the runs retried before tested another try.
  if (!retry) delete group.retriedRuns;
  if (onlyTests.length > 0) group.partial = true;
  else delete group.partial;
  const reason = retry?.reason ?? (group.bisection ? 'BISECTION_TEST_RUN_STARTED' : 'TEST_RUN_STARTED');
  for (const e of membersOf(d, group)) {
    // A second retry changes neither state nor reason, but its PRs' records must hear of its run.
    if (retry && e.state === 'testing' && e.reason === reason)
      command(d, {
        type: 'notifyPr',
        pr: e.pr,
        from: 'testing',
        at: d.ctx.now,
        runId,
        to: 'testing',
        reason,
      });
    else transition(d, e, { to: 'testing', reason }, runId);
  }
  command(d, {
    type: 'startTestRun',
    runId,
    prs: group.prs,
    ahead,
    baseSha: d.state.tipSha,
    stackedOnRunId: stackedOn(d, group, ahead),
    bisection: group.bisection,
    ...(onlyTests.length > 0 ? { onlyTests: [...onlyTests] } : {}),
  });
}

/**
 * Cancels the group's run (if in flight) and sends its members back to pending. A bisection chunk
 * cannot be dissolved alone (the chunks after it are tested on it): its whole bisection ends.
 */
export function dissolveGroup(d: Draft, group: Group, reason: RestartReason): void {
  if (group.bisection) {
    endBisection(d, group.bisectionKey ?? group.key, reason);
    return;
  }
  cancelRun(d, group, reason);
  for (const e of membersOf(d, group)) {
    e.group = null;
    transition(d, e, { to: 'pending', reason });
  }
  note(d, group.prs, reason);
  d.state.groups = d.state.groups.filter((g) => g !== group);
  d.dirty = true;
}

/** The chunks of one bisection, in line order. */
export function chunksOf(d: Draft, key: number): Group[] {
  return groupsInLineOrder(d).filter((g) => g.bisection && (g.bisectionKey ?? g.key) === key);
}

/**
 * Ends a bisection without deciding the PRs left in it (one of them was cancelled, became not ready
 * or skipped the line; the target was pushed to): its runs are cancelled and its PRs re-enter the
 * line untested, where a batch that fails again is bisected again.
 */
export function endBisection(d: Draft, key: number, reason: RestartReason): void {
  const chunks = chunksOf(d, key);
  const members = chunks.flatMap((g) => membersOf(d, g));
  for (const g of chunks) cancelRun(d, g, reason);
  d.state.groups = d.state.groups.filter((g) => !chunks.includes(g));
  for (const e of members) {
    e.group = null;
    transition(d, e, { to: 'pending', reason });
  }
  note(
    d,
    members.map((e) => e.pr),
    reason,
  );
  reenterLine(d, members);
  d.dirty = true;
}

/** Cancels the group's run if one is in flight; the group is left waiting for a new one. */
export function cancelRun(d: Draft, group: Group, reason: CancelRunReason): void {
  if (group.status !== 'testing' || group.runId === null) return;
  command(d, { type: 'cancelTestRun', runId: group.runId, reason });
  group.status = 'waiting';
  group.runId = null;
  group.deadline = null;
}

/** Drops a group whose members have all left the queue; otherwise narrows `prs` to those left. */
export function pruneGroup(d: Draft, group: Group): void {
  const left = group.prs.filter((pr) => d.state.entries.some((e) => e.pr === pr));
  if (left.length === group.prs.length) return;
  if (left.length === 0) d.state.groups = d.state.groups.filter((g) => g !== group);
  else group.prs = left;
  d.dirty = true;
}

/** Takes an entry out of its group; a batch it leaves is dissolved (its run tested the PR too). */
export function leaveGroup(d: Draft, entry: Entry, reason: RestartReason): void {
  const group = d.state.groups.find((g) => g.key === entry.group);
  note(d, [entry.pr], reason);
  entry.group = null;
  d.dirty = true;
  if (!group) return;
  group.prs = group.prs.filter((pr) => pr !== entry.pr);
  if (group.prs.length > 0) {
    dissolveGroup(d, group, reason);
  } else {
    cancelRun(d, group, reason);
    d.state.groups = d.state.groups.filter((g) => g !== group);
  }
}

/** Live groups in line order (found in the started prefix of the line, where all grouped PRs are). */
export function groupsInLineOrder(d: Draft): Group[] {
  const byKey = new Map(d.state.groups.map((g) => [g.key, g]));
  const seen = new Set<Group>();
  for (const e of d.state.entries) {
    if (!e.started || seen.size === byKey.size) break;
    const group = e.group === null ? undefined : byKey.get(e.group);
    if (group) seen.add(group);
  }
  // A group whose members could not be found would be a broken invariant; keep it visible anyway.
  for (const g of d.state.groups) seen.add(g);
  return [...seen];
}

/** Groups tested on top of `group` (its PRs are in their tree), in line order. */
export function dependentsOf(d: Draft, group: Group): Group[] {
  return groupsInLineOrder(d).filter(
    (g) => g !== group && g.status !== 'waiting' && g.ahead.some((pr) => group.prs.includes(pr)),
  );
}

export function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A live run whose tree is exactly `ahead`: building on its commit keeps tested commits linear. */
function stackedOn(d: Draft, group: Group, ahead: readonly number[]): string | null {
  const base = d.state.groups.find(
    (g) =>
      g !== group &&
      g.bisection === group.bisection &&
      g.runId !== null &&
      g.exact &&
      (g.status === 'testing' || g.status === 'passed') &&
      sameList([...g.ahead, ...g.prs], ahead),
  );
  return base?.runId ?? null;
}
