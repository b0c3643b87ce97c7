/**
 * The PRs a build or a landing applies, as the git activities take them: each PR's head as the
 * engine holds it and the commit message its record carries (squash and merge commits use it).
 * A PR the engine no longer holds gets an empty head, which the activity refuses as moved.
 */
import type { PullRequestToApply } from '../../activities/merge-queue/types';
import type { QueueContext } from './context';

export function prsToApply(ctx: QueueContext, numbers: readonly number[]): PullRequestToApply[] {
  return numbers.map((n) => {
    const entry = ctx.carried.engine.entries.find((e) => e.pr === n);
    const commitMessage = ctx.carried.prs[String(n)]?.commitMessage;
    return { number: n, headSha: entry?.headSha ?? '', ...(commitMessage ? { commitMessage } : {}) };
  });
}
