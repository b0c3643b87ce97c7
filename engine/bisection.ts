/**
 * Bisection beside the line: finding the PR that broke a failed batch without stopping the line.
 *
 * Rule: a blamed batch (its predecessors merged, its successors waited for) leaves the main line at
 * once. Its PRs are split, in line order, into m chunks, and chunk j is tested by a bisection run on
 * tip + chunks 1..j-1 of the same bisection: prefix trees, on the bisection's own slots
 * (`bisectionConcurrency`), and nothing else. No main-line tree holds a PR under bisection
 * (lanes.ts, ordering.ts), so the runs built on the failed batch restart without it
 * (`BISECTION_REQUIRED`) and the line goes on at once. Bisection runs only classify; nothing merges
 * on the strength of one:
 * - A chunk that passes proves every PR of its tree good: those PRs are *cleared* and re-enter the
 *   line at the front of the PRs waiting to be tested, by priority (ordering.reenterLine), to be
 *   tested again on the current target like any PR (`BISECTION_CLEARED`). Chunks ahead of it still
 *   in flight are cancelled (`COVERED_BY_PASSING_RUN`); the chunks after it stay valid, tested on
 *   PRs that are now known good.
 * - The first chunk left that failed holds a culprit. A single PR is ejected with the chunk's failure
 *   reason, naming the runs that convicted it (`convictedBy`: the failed batch, the failed chunks that
 *   held it, the passing chunks that cleared the PRs tested with it); a larger chunk is split again.
 *   A failure that names a PR (a merge conflict while building) ejects that PR alone. The chunks
 *   after a failed one were tested on a culprit, so their runs are cancelled and their PRs re-enter
 *   the line untested (`PREREQUISITE_MERGE_ITEM_FAILED`): a second culprit among them fails its next
 *   batch and is bisected then.
 * - Chunks are halves (binary bisection, `chunkCount`): with `bisection_skip_redundant_tests` the
 *   second half's tree is the failed tree (minus PRs already cleared, which cannot be what broke
 *   it), known to fail, so it fails without a run (`TEST_RUN_FAILED_BY_OPTIMIZATION`) and each round
 *   costs one run; without it the second half is run again: a batch that failed by a flake passes
 *   there and all its PRs are cleared. `bisectionConcurrency` bounds the bisection runs in flight,
 *   across all the bisections under way (several failed batches are bisected at once).
 * - A PR under bisection that is cancelled, becomes not ready, gets a new head or skips the line, or
 *   a push to the target, ends its bisection (groups.endBisection): the other PRs re-enter the line
 *   untested. A restart (`restartTestsOnPullRequest`) re-runs its chunk on the same tree.
 * - Test-level (issue 28): when the batch's failure named its failed tests (a complete list,
 *   failed-tests.ts), they are the bisection's *suspects*: each chunk run is told to run only them
 *   (`onlyTests`), a chunk that passes them is good without re-running what had passed, and a chunk
 *   whose run fails none of them (an unrelated test) holds no culprit of this failure: it counts as
 *   passed (`UNRELATED_FAILURE_IN_BISECTION`) and its PRs are tested again in the line, where a new
 *   failure is a failure of its own. A culprit is ejected naming the suspects its chunk failed
 *   (`failedTests`). Without suspects (no detail, too many tests) the rules above apply as they are.
 * Invariants: bisection chunks are never a base for the main line, never merged, never invalidated
 * by a main-line merge under them (their tree is not the target's future, only evidence), and every
 * PR of a failed batch ends cleared, ejected, or back in the line.
 */
import { type QueueConfig } from './config';
import { type Draft, entryOf, finish, membersOf, note, transition } from './draft';
import { convictingTests, type FailedTests } from './failed-tests';
import { observeCulprit } from './failure-rate';
import { cancelRun, chunksOf, createGroup, dependentsOf, dissolveGroup, groupsInLineOrder } from './groups';
import { type Entry, type Group } from './model';
import { reenterLine } from './ordering';
import { failGroup } from './test-runs';

/** A failed main-line batch whose wait is over (pending-failure.ts) leaves the line to be bisected. */
export function bisect(d: Draft, failed: Group): void {
  for (const g of dependentsOf(d, failed)) {
    if (d.state.groups.includes(g)) dissolveGroup(d, g, 'BISECTION_REQUIRED');
  }
  const members = membersOf(d, failed);
  d.state.groups = d.state.groups.filter((g) => g !== failed);
  for (const e of members) {
    e.group = null;
    transition(d, e, { to: 'pending', reason: 'BISECTION_REQUIRED' });
  }
  note(d, failed.prs, 'BISECTION_REQUIRED');
  const suspects =
    failed.failedTests?.complete && failed.failedTests.ids.length > 0 ? failed.failedTests : undefined;
  split(d, members, failed.key, runsOf(failed), suspects);
}

/** The runs a group's failure rests on: those retried as flaky-only failures, then its own. */
function runsOf(group: Group): string[] {
  const runs = [...(group.retriedRuns ?? [])];
  if (group.runId !== null && !runs.includes(group.runId)) runs.push(group.runId);
  return runs;
}

/** Applies what finished chunks say, bisection by bisection. */
export function advanceBisections(d: Draft): void {
  const keys = new Set<number>();
  for (const g of groupsInLineOrder(d)) if (g.bisection) keys.add(g.bisectionKey ?? g.key);
  for (const key of keys) advance(d, key);
}

function advance(d: Draft, key: number): void {
  let chunks = chunksOf(d, key);
  const passed = chunks.map((g) => g.status === 'passed').lastIndexOf(true);
  if (passed >= 0) {
    clear(d, chunks.slice(0, passed + 1), chunks.slice(passed + 1));
    chunks = chunks.slice(passed + 1);
  }
  const first = chunks[0];
  if (first?.status === 'failed') blame(d, first, chunks.slice(1));
}

/** The last of `cleared` passed: its whole tree is good. */
function clear(d: Draft, cleared: Group[], rest: Group[]): void {
  const proof = cleared.at(-1)!;
  const entries = cleared.flatMap((g) => membersOf(d, g));
  for (const g of cleared) if (g !== proof) cancelRun(d, g, 'COVERED_BY_PASSING_RUN');
  d.state.groups = d.state.groups.filter((g) => !cleared.includes(g));
  const prs = new Set(entries.map((e) => e.pr));
  for (const g of rest) {
    // Still tested on these PRs, now known good: what their runs say is about their own PRs.
    g.ahead = g.ahead.filter((pr) => !prs.has(pr));
    if (proof.runId !== null) g.evidence = [...(g.evidence ?? []), proof.runId];
  }
  for (const e of entries) {
    e.group = null;
    e.cleared = true;
    transition(d, e, { to: 'pending', reason: 'BISECTION_CLEARED' }, proof.runId);
  }
  reenterLine(d, entries);
  d.dirty = true;
}

/** `first` failed with nothing uncleared under it: it holds a culprit. */
function blame(d: Draft, first: Group, later: Group[]): void {
  const untested = later.flatMap((g) => membersOf(d, g));
  for (const g of later) cancelRun(d, g, 'PREREQUISITE_MERGE_ITEM_FAILED');
  const members = membersOf(d, first);
  d.state.groups = d.state.groups.filter((g) => g !== first && !later.includes(g));
  const evidence = [...(first.evidence ?? [])];
  for (const run of runsOf(first)) if (!evidence.includes(run)) evidence.push(run);
  const failure = first.failure ?? { reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', culpritPr: null };
  const culprit = failure.culpritPr ?? (members.length === 1 ? members[0]!.pr : null);
  const back = [...untested];
  if (culprit === null) {
    for (const e of members) {
      e.group = null;
      transition(d, e, { to: 'pending', reason: 'BISECTION_REQUIRED' });
    }
    split(d, members, first.bisectionKey ?? first.key, evidence, first.suspects);
  } else {
    const entry = entryOf(d, culprit);
    observeCulprit(d);
    note(d, [culprit], 'PREREQUISITE_MERGE_ITEM_FAILED');
    if (entry) {
      entry.group = null;
      const tests = convictingTests(first.failedTests, first.suspects);
      finish(d, entry, { to: 'failed', reason: failure.reason }, first.runId, evidence, tests);
    }
    back.push(...members.filter((e) => e.pr !== culprit));
  }
  for (const e of back) {
    e.group = null;
    transition(d, e, { to: 'pending', reason: 'PREREQUISITE_MERGE_ITEM_FAILED' });
  }
  reenterLine(d, back);
  d.dirty = true;
}

/** Forms the chunks of `members` (known to hold a culprit, by `evidence`) beside the line. */
function split(d: Draft, members: Entry[], key: number, evidence: string[], suspects?: FailedTests): void {
  const chunks = splitIntoChunks(members, chunkCount(d.state.config, members.length));
  const under: number[] = [];
  const groups = chunks.map((chunk) => {
    const group = createGroup(d, chunk, { bisection: true, direct: false, status: 'waiting' });
    group.bisectionKey = key;
    group.evidence = [...evidence];
    group.ahead = [...under];
    if (suspects) group.suspects = suspects;
    under.push(...group.prs);
    return group;
  });
  const last = groups.at(-1);
  const skip = d.state.config.optimizationMode === 'bisection_skip_redundant_tests';
  if (skip && last && groups.length > 1 && evidence.length > 0) {
    // Its tree is the one that failed: the failure is known without a run.
    last.runId = evidence.at(-1)!;
    last.exact = false;
    failGroup(d, last, { reason: 'TEST_RUN_FAILED_BY_OPTIMIZATION', culpritPr: null });
    if (suspects) last.failedTests = suspects;
  }
}

/**
 * Binary: two chunks (one if there is one PR). Beside the line a bisection holds up no one but its
 * own PRs, so the fewest runs win over the fewest rounds (bench/README.md: splitting a batch of 8
 * over 4 slots cost 0.27 bisection runs per merged PR, halves 0.18, for 4% less throughput).
 */
export function chunkCount(_config: QueueConfig, size: number): number {
  return Math.min(size, 2);
}

/** Splits in order into m chunks whose sizes differ by at most one, larger chunks first. */
export function splitIntoChunks<T>(items: readonly T[], m: number): T[][] {
  const count = Math.max(1, Math.min(m, items.length));
  const base = Math.floor(items.length / count);
  const extra = items.length % count;
  const chunks: T[][] = [];
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    const size = base + (i < extra ? 1 : 0);
    chunks.push(items.slice(at, at + size));
    at += size;
  }
  return chunks.filter((c) => c.length > 0);
}
