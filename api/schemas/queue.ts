/**
 * The queue as getQueue and updateQueue answer it (Trunk v1 field names, lower-case enums).
 */
import { z } from 'zod';

export const PR_STATES = [
  'not_ready',
  'pending',
  'testing',
  'tests_passed',
  'pending_failure',
  'merged',
  'failed',
  'cancelled',
] as const;

export const EnqueuedPullRequest = z.object({
  id: z.string(),
  state: z.enum(PR_STATES),
  stateChangedAt: z.string(),
  priorityValue: z.number(),
  priorityName: z.string(),
  usedDefaultPriorityName: z.string(),
  skipTheLine: z.boolean(),
  noBatch: z.boolean(),
  prNumber: z.number(),
  prTitle: z.string(),
  prSha: z.string(),
  prBaseBranch: z.string(),
  prAuthor: z.string(),
});

export const QueueSettings = z.object({
  state: z.enum(['running', 'paused', 'draining', 'switching_modes']),
  branch: z.string(),
  concurrency: z.number(),
  testingTimeoutMinutes: z.number(),
  mode: z.enum(['single', 'parallel']),
  canOptimisticallyMerge: z.boolean(),
  pendingFailureDepth: z.number(),
  batch: z.boolean(),
  batchingMaxWaitTimeMinutes: z.number(),
  batchingMinSize: z.number(),
  createPrsForTestingBranches: z.boolean(),
  commentsEnabled: z.boolean(),
  commandsEnabled: z.boolean(),
  statusCheckEnabled: z.boolean(),
  bisectionConcurrency: z.number(),
  requiredStatuses: z.array(z.string()).nullable(),
  directMergeMode: z.enum(['off', 'always']),
  optimizationMode: z.enum(['off', 'bisection_skip_redundant_tests']),
  mergeMethod: z.enum(['merge_commit', 'squash', 'rebase']),
});
export type QueueSettings = z.infer<typeof QueueSettings>;

export const QueueView = QueueSettings.extend({ enqueuedPullRequests: z.array(EnqueuedPullRequest) });
export type QueueView = z.infer<typeof QueueView>;
