/**
 * ComposeMemo: the commits compositions already wrote, so a queue N deep applies each PR once instead
 * of re-applying every PR ahead for every run. With optimistic testing PR k's run is the target tip
 * plus the k-1 PRs ahead plus PR k; composed from scratch each time, a queue of 50 costs 1,275
 * applications (about six git processes each) where 50 suffice.
 *
 * Rule: an entry maps one application (the repository, the commit it was applied on, the merge
 * method, the PR's number, head and commit message, and for a rebase the heads of the PRs before it
 * in its composition) to the commit it wrote. Keyed by the commit applied on, not by the composition's
 * base and prefix: a composition on a base an earlier one wrote (the target moved there by a landing)
 * finds the same steps. It is only a shortcut, never a source of truth: applying a PR is a pure
 * function of those inputs (merge-methods.ts: every date comes from the commits involved, the committer
 * is the host's fixed identity), so a hit gives the very commit a fresh application would write.
 *
 * An application in flight is shared: a composition that needs one another composition of this host
 * is writing now waits for it instead of writing it again (a burst's stacked builds start before the
 * build ahead of them has ended, each on the same PRs ahead). Its failure is the waiter's failure.
 *
 * Invariants: bounded (MAX_ENTRIES, least recently used dropped first); per host instance (one
 * committer identity), never shared between processes; a hit is used only after the repository is
 * checked to still hold its commit (a repository deleted and created again, or pruned, misses).
 */
import { createHash } from 'node:crypto';
import type { MergeMethod, MergeStep, PullRequestAtSha } from './git-host';
import type { ApplyResult, Tip } from './merge-methods';

/** Applications kept: a few deep queues' worth (each entry is a few short strings). */
export const MAX_ENTRIES = 4_096;

/** What an application wrote: the step and the facts of its commit (so the next PR needs no read). */
export type RememberedStep = MergeStep & Tip;

export interface ComposeMemo {
  /** What the application `key` wrote, or undefined. */
  recall(key: string): RememberedStep | undefined;
  /**
   * The result of application `key`: the one in flight in this host when there is one, otherwise
   * `apply()`'s, shared with any composition that needs it meanwhile and remembered when applied.
   */
  share(key: string, prNumber: number, apply: () => Promise<ApplyResult>): Promise<ApplyResult>;
  /** Remembers what application `key` wrote (share does it; tests plant entries with it). */
  remember(key: string, step: RememberedStep): void;
}

/**
 * The key of applying `pr` on commit `onSha` in `dir` with `method`. `earlierHeads` (the heads of the
 * PRs before it in its composition) count only for a rebase, whose replay leaves their commits out.
 */
export function stepKey(
  dir: string,
  onSha: string,
  method: MergeMethod,
  pr: PullRequestAtSha,
  earlierHeads: readonly string[],
): string {
  const excluded = method === 'rebase' ? earlierHeads : null;
  return createHash('sha256')
    .update(JSON.stringify([dir, onSha, method, pr.number, pr.headSha, pr.commitMessage ?? null, excluded]))
    .digest('hex');
}

export function createComposeMemo(maxEntries = MAX_ENTRIES): ComposeMemo {
  // A Map iterates in insertion order: deleting and setting again moves an entry to the young end.
  const entries = new Map<string, RememberedStep>();
  const inFlight = new Map<string, Promise<ApplyResult>>();
  const remember = (key: string, step: RememberedStep) => {
    entries.delete(key);
    entries.set(key, step);
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
  };
  return {
    recall(key) {
      const step = entries.get(key);
      if (step !== undefined) remember(key, step);
      return step;
    },
    share(key, prNumber, apply) {
      const running = inFlight.get(key);
      if (running !== undefined) return running;
      const result = apply().then((applied) => {
        if (applied.kind === 'applied')
          remember(key, { prNumber, sha: applied.sha, tree: applied.tree, time: applied.time });
        return applied;
      });
      inFlight.set(key, result);
      const forget = () => inFlight.delete(key);
      result.then(forget, forget);
      return result;
    },
    remember,
  };
}
