/**
 * A PR record's explanation on the wire (api/schemas/pr-record.ts): its reason as a name and a sentence
 * (contract/pr-reasons.ts, the one module of reason sentences), the detail behind it, its
 * test runs with links to their logs, and Trunk's timeline (includeTimeline). Pure functions of the
 * record the PR workflow keeps.
 *
 * Rules: a run's log is linked only when the queue's test command judged it (CI's statuses runs keep
 * their logs in CI) and it started (a run whose test branch could not be built, a conflict, has
 * none); the timeline is newest first, reasons in lower case as Trunk's timelines show them, with
 * the per-kind objects trunk-compat §1.4 names (notReady, failure, cancellation, merged, testsPassed).
 */
import {
  explainState,
  stalledChecksSentence,
  type PullRequestRecord,
  type ReasonDetail,
  type TimelineEntry,
} from '../../contract';
import type { TimelineItem } from '../schemas/pr-record';

export interface RecordLinks {
  /** Where the API serves a run's log (routes/merge-queue/test-run-logs.ts). */
  testRunLogUrl(testRunId: string): string;
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** A run the record saw fail to start (its test branch could not be built): it has no log. */
const NEVER_STARTED = /^START_TEST_RUN_/;

/**
 * Every run the record names, oldest first, with a log link when the queue's command judged it and
 * the record did not see it fail to start.
 */
function testRunsOf(record: PullRequestRecord, links: RecordLinks) {
  return [...loggedRuns(record)].map(([testRunId, logged]) => link(testRunId, logged, links));
}

/** Each run the record names, oldest first: whether it has a log (its command ran it). */
function loggedRuns(record: PullRequestRecord): Map<string, boolean> {
  const runs = new Map<string, boolean>();
  for (const t of record.timeline)
    if (t.testRunId) runs.set(t.testRunId, (runs.get(t.testRunId) ?? false) || t.runner === 'command');
  for (const t of record.timeline)
    if (t.testRunId && NEVER_STARTED.test(t.reason)) runs.set(t.testRunId, false);
  return runs;
}

const link = (testRunId: string, logged: boolean, links: RecordLinks) => ({
  testRunId,
  ...(logged ? { logUrl: links.testRunLogUrl(testRunId) } : {}),
});

export function explanationOf(record: PullRequestRecord, links: RecordLinks, targetBranch: string) {
  const last = record.timeline.at(-1);
  const detail = last?.detail;
  return {
    reason: record.reason,
    reasonText: explainState({
      state: record.state,
      reason: record.reason,
      ...(detail ? { detail } : {}),
      ...(record.details?.readiness.blockedBy ? { blockedBy: record.details.readiness.blockedBy } : {}),
      targetBranch,
    }),
    ...(detail ? { reasonDetail: detail } : {}),
    testRuns: testRunsOf(record, links),
    decidedByTestRun: last?.testRunId ?? null,
    ...(detail?.kind === 'landing' ? { testedTree: detail.testedTree, landedTree: detail.landedTree } : {}),
    ...(record.convictedBy && record.convictedBy.length > 0 ? { convictedBy: [...record.convictedBy] } : {}),
    ...(record.stalledChecks ? { stalledChecks: stalledChecksOf(record.stalledChecks) } : {}),
  };
}

/** railyard's extension: its test run's required checks that have not started (stall-watch.ts). */
function stalledChecksOf(s: NonNullable<PullRequestRecord['stalledChecks']>) {
  return {
    checks: [...s.checks],
    cause: s.cause,
    since: iso(s.since),
    testBranch: s.testBranch,
    graceMinutes: s.graceMinutes,
    text: stalledChecksSentence(s),
  };
}

/** Trunk's timeline: every transition, newest first. */
export function timelineOf(
  record: PullRequestRecord,
  links: RecordLinks,
  targetBranch: string,
): TimelineItem[] {
  const logged = loggedRuns(record);
  return record.timeline.map((t) => timelineItem(t, logged, links, targetBranch)).reverse();
}

function timelineItem(
  t: TimelineEntry,
  logged: ReadonlyMap<string, boolean>,
  links: RecordLinks,
  targetBranch: string,
): TimelineItem {
  const reason = t.reason.toLowerCase();
  return {
    timestamp: iso(t.at),
    state: t.to,
    previousState: t.from,
    reason,
    reasonText: explainState({
      state: t.to,
      reason: t.reason,
      ...(t.detail ? { detail: t.detail } : {}),
      targetBranch,
    }),
    ...(t.testRunId ? { testRun: link(t.testRunId, logged.get(t.testRunId) ?? false, links) } : {}),
    ...kindOf(t, reason),
  };
}

/** The per-state object of a timeline item, under Trunk's key for it. */
function kindOf(t: TimelineEntry, reason: string): Partial<TimelineItem> {
  switch (t.to) {
    case 'not_ready':
      return { notReady: { reason, blockReasons: [{ kind: blockKind(t.reason) }] } };
    case 'failed':
    case 'pending_failure':
      return { failure: { reason, ...failureOf(t.detail) } };
    case 'cancelled':
      return {
        cancellation: { reason, ...(t.detail?.kind === 'actor' ? { actor: t.detail.actor } : {}) },
      };
    case 'merged':
      return { merged: { reason, actor: t.reason === 'MANUAL_MERGE' ? 'outside' : 'merge_queue' } };
    case 'tests_passed':
      return { testsPassed: { testRunId: t.testRunId } };
    case 'pending':
    case 'testing':
      return {};
  }
}

function blockKind(reason: string): NonNullable<TimelineItem['notReady']>['blockReasons'][number]['kind'] {
  switch (reason) {
    case 'BASE_BRANCH_MISMATCH':
      return 'behind_base';
    case 'AWAITING_MERGEABILITY':
      return 'awaiting_required_check';
    default:
      return 'undetermined';
  }
}

function failureOf(detail: ReasonDetail | undefined): Omit<NonNullable<TimelineItem['failure']>, 'reason'> {
  switch (detail?.kind) {
    case 'statuses':
      return { failureCausingStatuses: [...detail.failed, ...detail.missing] };
    case 'command_failed':
      return { failedTests: detail.failedTests };
    case 'test_evidence':
      return { failedTests: detail.tests };
    case 'conflict':
      return {
        conflictCulprit: {
          type: detail.onTopOf.length === 0 ? 'base_branch' : 'queue_pr',
          prNumbers: detail.onTopOf,
          files: detail.files,
        },
      };
    case 'actor':
    case 'problem':
    case 'landing':
    case undefined:
      return {};
  }
}
