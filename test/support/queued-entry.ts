/** A queue view's entry for PR `pr` (contract QueuedPullRequest), for tests of views and their deltas. */
import type { QueuedPullRequest } from '../../contract';

export const queuedEntry = (
  pr: number,
  title = `PR ${pr}`,
  state: QueuedPullRequest['state'] = 'pending',
): QueuedPullRequest => ({
  id: `s-${pr}`,
  pr,
  state,
  stateChangedAt: 1_000 + pr,
  priorityValue: 100,
  priorityName: 'medium',
  usedDefaultPriorityName: 'medium',
  skipTheLine: false,
  noBatch: false,
  title,
  headSha: 'abc',
  baseBranch: 'main',
  author: 'ada',
});
