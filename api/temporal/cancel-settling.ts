/**
 * A cancel answers once the PR's record shows it (bounded wait), as a submit answers once its record
 * shows the submission: a client reading getSubmittedPullRequest right after cancelPullRequest must not
 * see its PR still pending. The queue decides a cancel inside its update, but the PR's record hears of
 * it through the queue's side-effect activity, which on a busy queue runs behind earlier effects.
 *
 * Rule: poll the record until it is no longer current (terminal) or the budget is spent; on a spent
 * budget the cancel still answers 200 (it is decided and will reach the record), never an error.
 */
import { isTerminal } from '../../engine';
import type { PullRequestRecord } from '../../contract';

/** Long enough for a loaded worker to run one side-effect call; a reader rarely waits more than a tick. */
export const CANCEL_SETTLE_BUDGET_MS = 10_000;
const FIRST_TICK_MS = 20;
const MAX_TICK_MS = 250;

/** Resolves true once `read` answers a terminal record (or none), false when `budgetMs` is spent first. */
export async function waitForCancelSettled(
  read: () => Promise<PullRequestRecord | null>,
  budgetMs = CANCEL_SETTLE_BUDGET_MS,
): Promise<boolean> {
  const deadline = Date.now() + budgetMs;
  for (let tick = FIRST_TICK_MS; ; tick = Math.min(tick * 2, MAX_TICK_MS)) {
    const record = await read();
    if (record === null || isTerminal(record.state)) return true;
    if (Date.now() + tick > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, tick));
  }
}
