/**
 * A PR's own events, seen by reading it again: the local host has no webhooks, so a push to the PR or
 * its closing is noticed when the queue next looks at the PR (readPullRequest), and turned here into
 * the cancellation Trunk would make. Pure: the same lookup and expectation give the same answer.
 *
 * A PR the queue has seen before and that is now `not_found` was closed: the local host deletes
 * `refs/pull/<n>/head` to close a PR. A missing repository is not a PR event; the caller decides.
 */
import type { PullRequestLookup } from './git-host';

export type PullRequestChange =
  | { kind: 'unchanged' }
  | { kind: 'cancel'; reason: 'PR_PUSHED_TO'; actualSha: string }
  | { kind: 'cancel'; reason: 'PR_CLOSED' }
  /** Hosts that keep closed PRs can say it was merged outside the queue (Trunk's merged_reason). */
  | { kind: 'merged_outside'; reason: 'MANUAL_MERGE' }
  | { kind: 'repository_missing' };

export function classifyPullRequestChange(
  expectedHeadSha: string,
  lookup: PullRequestLookup,
): PullRequestChange {
  switch (lookup.kind) {
    case 'not_found':
      return lookup.what === 'repository'
        ? { kind: 'repository_missing' }
        : { kind: 'cancel', reason: 'PR_CLOSED' };
    case 'found': {
      const pr = lookup.pullRequest;
      if (pr.state === 'merged') return { kind: 'merged_outside', reason: 'MANUAL_MERGE' };
      if (pr.state === 'closed') return { kind: 'cancel', reason: 'PR_CLOSED' };
      if (pr.headSha !== expectedHeadSha)
        return { kind: 'cancel', reason: 'PR_PUSHED_TO', actualSha: pr.headSha };
      return { kind: 'unchanged' };
    }
    default: {
      const never: never = lookup;
      throw new Error(`unexpected pull request lookup ${JSON.stringify(never)}`);
    }
  }
}
