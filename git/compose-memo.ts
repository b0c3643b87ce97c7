/**
 * ComposeMemo: the commits compositions already wrote, so a queue N deep applies each PR once instead
 * of re-applying every PR ahead for every run. With optimistic testing PR k's run is the target tip
 * plus the k-1 PRs ahead plus PR k; composed from scratch each time, a queue of 50 costs 1,275
 * applications (about six git processes each) where 50 suffice.
 *
 * Rule: an entry maps a composition prefix (the repository, the base, the merge method, and each PR's
 * number, head and commit message, in order) to the commit that applying them produced. It is only a
 * shortcut, never a source of truth: applying a PR is a pure function of those inputs
 * (merge-methods.ts: every date comes from the commits involved, the committer is the host's fixed
 * identity), so a hit gives the very commit a fresh application would write.
 *
 * Invariants: bounded (MAX_ENTRIES, least recently used dropped first); per host instance (one
 * committer identity), never shared between processes; a hit is used only after the repository is
 * checked to still hold its commit (a repository deleted and created again, or pruned, misses).
 */
import { createHash } from 'node:crypto';
import type { MergeMethod, MergeStep, PullRequestAtSha } from './git-host';

/** Prefixes kept: a few deep queues' worth (each entry is two short strings). */
export const MAX_ENTRIES = 4_096;

export interface ComposeMemo {
  /** The steps of the longest remembered prefix of `prs` on `baseSha` ([] when none). */
  longestPrefix(key: PrefixKeys): MergeStep[];
  /** Remembers that the first `length` PRs of the composition gave `step` as their last step. */
  remember(key: PrefixKeys, length: number, step: MergeStep): void;
}

/** One key per prefix length: keys[i] names the composition of the first i + 1 PRs. */
export type PrefixKeys = readonly string[];

/** The keys of every prefix of `prs` composed on `baseSha` in `dir` with `method`. */
export function prefixKeys(
  dir: string,
  baseSha: string,
  method: MergeMethod,
  prs: readonly PullRequestAtSha[],
): PrefixKeys {
  const keys: string[] = [];
  let previous = JSON.stringify([dir, baseSha, method]);
  for (const pr of prs) {
    // Chained: each key covers every PR before it, so equal keys mean equal inputs.
    previous = createHash('sha256')
      .update(JSON.stringify([previous, pr.number, pr.headSha, pr.commitMessage ?? null]))
      .digest('hex');
    keys.push(previous);
  }
  return keys;
}

export function createComposeMemo(maxEntries = MAX_ENTRIES): ComposeMemo {
  // A Map iterates in insertion order: deleting and setting again moves an entry to the young end.
  const entries = new Map<string, MergeStep>();
  return {
    longestPrefix(keys) {
      const steps: MergeStep[] = [];
      for (const key of keys) {
        const step = entries.get(key);
        if (step === undefined) break;
        entries.delete(key);
        entries.set(key, step);
        steps.push(step);
      }
      return steps;
    },
    remember(keys, length, step) {
      const key = keys[length - 1];
      if (key === undefined) return;
      entries.delete(key);
      entries.set(key, step);
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
  };
}
