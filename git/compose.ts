/**
 * Composes a run's commits: the PRs, in queue order, applied one after the other on the base with the
 * merge method. Before a PR is applied its head ref is compared with the sha the queue decided to
 * test; the queue tests what it saw, and a PR that moved or closed since is reported, not tested.
 *
 * Writes objects only; the caller decides which ref, if any, points at the result.
 */
import { readRef, type RepoAccess } from './commits';
import type { MergeMethod, MergeStep, PullRequestAtSha, PullRequestProblem } from './git-host';
import { clashingPrs } from './clash';
import { applyPullRequest } from './merge-methods';
import { pullRequestRef } from './names';

export type Composition = { kind: 'composed'; headSha: string; steps: MergeStep[] } | PullRequestProblem;

export type HeadCheck = { kind: 'at_sha' } | { kind: 'moved'; actualSha: string } | { kind: 'closed' };

/** On the local host a PR is open while `refs/pull/<n>/head` exists; its head is that ref. */
export async function checkPullRequestHead(repo: RepoAccess, pr: PullRequestAtSha): Promise<HeadCheck> {
  const actual = await readRef(repo, pullRequestRef(pr.number));
  if (actual === null) return { kind: 'closed' };
  return actual === pr.headSha ? { kind: 'at_sha' } : { kind: 'moved', actualSha: actual };
}

export interface ComposeOptions {
  /**
   * A stacked build's PRs already in `baseSha` and the target tip they sit on; only read on a
   * conflict, to name the PRs ahead it clashes with (clash.ts).
   */
  underneath?: { targetSha: string; prs: PullRequestAtSha[] };
}

export async function composePullRequests(
  repo: RepoAccess,
  baseSha: string,
  prs: PullRequestAtSha[],
  method: MergeMethod,
  options: ComposeOptions = {},
): Promise<Composition> {
  const { underneath } = options;
  let tip = baseSha;
  const steps: MergeStep[] = [];
  for (const [index, pr] of prs.entries()) {
    const head = await checkPullRequestHead(repo, pr);
    switch (head.kind) {
      case 'closed':
        return { kind: 'pr_closed', prNumber: pr.number, reason: 'PR_CLOSED' };
      case 'moved':
        return {
          kind: 'pr_moved',
          prNumber: pr.number,
          expectedSha: pr.headSha,
          actualSha: head.actualSha,
          reason: 'PR_PUSHED_TO',
        };
      case 'at_sha':
        break;
      default: {
        const never: never = head;
        throw new Error(`unexpected head check ${JSON.stringify(never)}`);
      }
    }
    const earlierHeads = prs.slice(0, index).map((p) => p.headSha);
    const applied = await applyPullRequest(repo, method, tip, pr, earlierHeads);
    if (applied.kind === 'conflict') {
      const clashesWith = await clashingPrs(repo, {
        targetSha: underneath?.targetSha ?? baseSha,
        ahead: [...(underneath?.prs ?? []), ...prs.slice(0, index)],
        files: applied.files,
      });
      return {
        kind: 'conflict',
        prNumber: pr.number,
        reason: 'START_TEST_RUN_MERGE_CONFLICT',
        detail: applied.detail,
        files: applied.files,
        ...(clashesWith ? { clashesWith } : {}),
      };
    }
    tip = applied.sha;
    steps.push({ prNumber: pr.number, sha: tip });
  }
  return { kind: 'composed', headSha: tip, steps };
}
