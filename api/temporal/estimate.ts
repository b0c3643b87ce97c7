/**
 * Trunk's `includeEstimatedTimeToMerge`: when a queued PR is expected to merge, from its place in the
 * queue, the queue's mode and settings, and this queue's own history in the event log
 * (events/store/test-durations.ts): how long its recent test runs took (D, their median) and how long
 * its recent PRs took from passing their tests to landing (L, their median). docs/api-compat.md
 * explains the model.
 *
 * Model: the queue tests `concurrency` groups at once, each of up to `batchingMinSize` PRs when it
 * batches (one PR otherwise), so the PR at position p is in round ⌈p / (concurrency × batch size)⌉,
 * and each round takes D. A pending PR needs its rounds and then L. A PR being tested needs what is
 * left of its run — the median of the measured runs that lasted longer than it has so far, less the
 * time it has run — then the rounds after it and L. One whose tests passed waits at most one round for
 * the PRs ahead of it (none if it is first), then L. A pending failure is likely retested: one round
 * more. Parallel mode uses the same rounds, an upper bound there (PRs in other lanes do not wait).
 *
 * Rules (issue 29: the demo said "estimated 0 s … it took 5 s"): no number is invented. Before the
 * queue has measured a test run there is no estimate, and the answer says so (`text`, with the numbers
 * null); a run already longer than every measured one has no estimate either (the history has nothing
 * to say about how much longer it takes). Without a measured landing L counts as 0 and `text` says it
 * is not included. A PR that is not ready, or that left the queue, has no estimate at all (null).
 */
import type { PullRequestRecord } from '../../contract';
import type { QueueDurations } from '../../events/store/test-durations';
import { humanDuration } from '../../platform/human-duration';
import type { QueueView } from '../schemas/queue';
import type { EstimatedTimeToMerge } from '../schemas/pr-record';
import type { z } from 'zod';

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

type Estimate = NonNullable<z.infer<typeof EstimatedTimeToMerge>>;

export function estimateTimeToMerge(input: {
  record: PullRequestRecord;
  queue: QueueView | null;
  /** This queue's recent test runs and landings (ms). */
  history: QueueDurations;
  now: number;
}): z.infer<typeof EstimatedTimeToMerge> {
  const { record, queue, history, now } = input;
  if (!queue || !record.isCurrentlySubmittedToQueue || record.state === 'not_ready') return null;
  const index = queue.enqueuedPullRequests.findIndex((e) => e.prNumber === record.prNumber);
  if (index < 0) return null;
  const position = index + 1;
  const d = median(history.testRuns);
  const landing = median(history.landings);
  const measuredRuns = history.testRuns.length;
  const base = {
    position,
    testDurationSeconds: d === null ? null : seconds(d),
    landingSeconds: landing === null ? null : seconds(landing),
    measuredRuns,
  };
  const none = (text: string): Estimate => ({
    ...base,
    estimatedMergeAt: null,
    remainingSeconds: null,
    text,
  });
  if (d === null)
    return none('No estimate yet: no test run of this queue has reached a verdict in the last 30 days.');
  const perRound = Math.max(1, queue.concurrency) * (queue.batch ? Math.max(1, queue.batchingMinSize) : 1);
  const round = Math.ceil(position / perRound);
  const l = landing ?? 0;
  let testing: number;
  let parts: string;
  switch (record.state) {
    case 'pending':
      testing = round * d;
      parts = `${rounds(round)} of the median test run (${humanDuration(d)})`;
      break;
    case 'testing': {
      const elapsed = Math.max(0, now - record.stateChangedAt);
      const longer = median(history.testRuns.filter((ms) => ms > elapsed));
      if (longer === null)
        return none(
          `No estimate: it has been testing for ${humanDuration(elapsed)}, longer than any of this queue's last ${measuredRuns} measured runs.`,
        );
      testing = (round - 1) * d + (longer - elapsed);
      parts =
        `the rest of its run (${humanDuration(longer - elapsed)})` +
        (round > 1 ? ` and ${rounds(round - 1)} of the median test run (${humanDuration(d)})` : '');
      break;
    }
    case 'tests_passed':
      if (position === 1 && landing === null)
        return none(
          'No estimate: its tests passed and it lands next, but no landing of this queue was measured yet.',
        );
      testing = position > 1 ? d : 0;
      parts = position > 1 ? `one test run for the PRs ahead of it (${humanDuration(d)})` : 'no test run';
      break;
    case 'pending_failure':
      testing = (round + 1) * d;
      parts = `${rounds(round + 1)} of the median test run (${humanDuration(d)}), one of them a retest`;
      break;
    case 'merged':
    case 'failed':
    case 'cancelled':
      return null;
  }
  const remaining = testing + l;
  const landingPart =
    landing === null ? '; landing not included (none measured yet)' : ` and landing (${humanDuration(l)})`;
  return {
    ...base,
    estimatedMergeAt: new Date(now + remaining).toISOString(),
    remainingSeconds: seconds(remaining),
    text: `About ${humanDuration(remaining)}: ${parts}${landingPart}, from this queue's last ${measuredRuns} measured runs.`,
  };
}

const seconds = (ms: number) => Math.round(ms / 1000);
const rounds = (n: number) => (n === 1 ? 'one round' : `${n} rounds`);
