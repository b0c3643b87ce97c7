/**
 * Trunk's `includeEstimatedTimeToMerge`: when a queued PR is expected to merge, from its place in the
 * queue, the queue's mode and settings, and how long this queue's test runs took lately (the event log,
 * events/store/test-durations.ts). docs/api-compat.md explains the model and how close it was on
 * the demo.
 *
 * Model: the queue tests `concurrency` groups at once, each of up to `batchingMinSize` PRs when it
 * batches (one PR otherwise), so the PR at position p is in round ceil(p / (concurrency × batch size));
 * each round takes one measured test duration D (the median of recent runs; DEFAULT_TEST_DURATION_MS
 * before any was measured). A PR being tested has its elapsed testing time taken off its round; one that
 * passed waits at most for the PRs ahead of it (one round if any); a pending failure is likely retested
 * (one more round). Parallel mode uses the same rounds: PRs in other lanes do not wait, so it is an
 * upper bound there. A PR that is not ready, or that left the queue, has no estimate (null).
 */
import type { PullRequestRecord } from '../../contract';
import type { QueueView } from '../schemas/queue';
import type { EstimatedTimeToMerge } from '../schemas/pr-record';
import type { z } from 'zod';

export const DEFAULT_TEST_DURATION_MS = 5 * 60_000;

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function estimateTimeToMerge(input: {
  record: PullRequestRecord;
  queue: QueueView | null;
  /** Durations (ms) of this queue's recent test runs. */
  durations: readonly number[];
  now: number;
}): z.infer<typeof EstimatedTimeToMerge> {
  const { record, queue, durations, now } = input;
  if (!queue || !record.isCurrentlySubmittedToQueue || record.state === 'not_ready') return null;
  const index = queue.enqueuedPullRequests.findIndex((e) => e.prNumber === record.prNumber);
  if (index < 0) return null;
  const position = index + 1;
  const measured = median(durations);
  const d = measured ?? DEFAULT_TEST_DURATION_MS;
  const perRound = Math.max(1, queue.concurrency) * (queue.batch ? Math.max(1, queue.batchingMinSize) : 1);
  const round = Math.ceil(position / perRound);
  let remaining: number;
  switch (record.state) {
    case 'pending':
      remaining = round * d;
      break;
    case 'testing':
      remaining = Math.max(0, (round - 1) * d + d - (now - record.stateChangedAt));
      break;
    case 'tests_passed':
      remaining = position > 1 ? d : 0;
      break;
    case 'pending_failure':
      remaining = (round + 1) * d;
      break;
    case 'merged':
    case 'failed':
    case 'cancelled':
      return null;
  }
  return {
    estimatedMergeAt: new Date(now + remaining).toISOString(),
    remainingSeconds: Math.round(remaining / 1000),
    position,
    testDurationSeconds: Math.round(d / 1000),
    measuredRuns: measured === null ? 0 : durations.length,
  };
}
