/**
 * Which PRs ahead a conflicting PR clashed with, so its sentence names them ("#5 conflicts with #4 in
 * README.md") rather than every PR it was applied on.
 *
 * Rule: a PR ahead clashed when its own changes (its head against its merge base with the target,
 * what its PR page on the host shows) touch a file the conflict is in. Three-way merges conflict only
 * in files both sides changed, so when no PR ahead touches those files, the other side is the target
 * branch's own history: the answer is then [] ("the target branch").
 *
 * Invariants: bounded (the nearest MAX_CLASH_CANDIDATES PRs ahead, one `git diff` each, and only on a
 * conflict); honest: `undefined` (not told) when a PR ahead cannot be read, the conflict named no
 * file (unrelated histories), or none of the nearest PRs ahead clashed while more lie beyond the bound.
 */
import type { RepoAccess } from './commits';
import type { PullRequestAtSha } from './git-host';

/** The nearest PRs ahead that are compared; those further ahead are left out of the answer. */
export const MAX_CLASH_CANDIDATES = 20;

export interface ClashInput {
  /** The target tip the PRs ahead are measured from (their merge base with it is their start). */
  targetSha: string;
  /** The PRs applied before the conflicting one, in queue order. */
  ahead: readonly PullRequestAtSha[];
  /** The files the conflicting PR did not apply in. */
  files: readonly string[];
}

/** The PRs ahead (queue order) whose own changes touch `files`; undefined when it cannot be told. */
export async function clashingPrs(repo: RepoAccess, input: ClashInput): Promise<number[] | undefined> {
  if (input.files.length === 0) return undefined;
  const conflicted = new Set(input.files);
  const clashing: number[] = [];
  for (const pr of input.ahead.slice(-MAX_CLASH_CANDIDATES)) {
    const changed = await changedFiles(repo, input.targetSha, pr.headSha);
    if (changed === null) return undefined;
    if (changed.some((f) => conflicted.has(f))) clashing.push(pr.number);
  }
  // PRs beyond the bound were not compared: "none of them" would be a guess.
  if (clashing.length === 0 && input.ahead.length > MAX_CLASH_CANDIDATES) return undefined;
  return clashing;
}

/** `git diff base...head`: the files a PR changes since it left the target; null if unreadable. */
async function changedFiles(repo: RepoAccess, targetSha: string, headSha: string): Promise<string[] | null> {
  const args = ['diff', '--name-only', '-z', '--no-renames', '--end-of-options', `${targetSha}...${headSha}`];
  const result = await repo.git(args, { dir: repo.dir });
  if (result.exitCode !== 0) return null;
  return result.stdout.split('\0').filter((f) => f.length > 0);
}
