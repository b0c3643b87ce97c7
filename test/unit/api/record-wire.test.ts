/**
 * A record's runs on the wire (api/temporal/record-wire.ts): a run the queue's command judged links
 * its log; a run that never started (its test branch could not be built, a conflict) links none, in
 * the record's `testRuns` and in its timeline, so no client is handed a link that answers 404.
 */
import type { PullRequestRecord, TimelineEntry } from '../../../contract';
import { explanationOf, timelineOf } from '../../../api/temporal/record-wire';

const links = { testRunLogUrl: (id: string) => `/v1/testRuns/${id}/log` };
const entry = (e: Partial<TimelineEntry>): TimelineEntry => ({
  at: 1,
  from: 'pending',
  to: 'testing',
  reason: 'TEST_RUN_STARTED',
  testRunId: null,
  runner: 'command',
  ...e,
});
const record = (timeline: TimelineEntry[]) =>
  ({
    id: 's',
    prNumber: 5,
    state: timeline.at(-1)!.to,
    stateChangedAt: 1,
    reason: timeline.at(-1)!.reason,
    details: null,
    skipTheLine: false,
    isCurrentlySubmittedToQueue: false,
    verifiedByTestRun: null,
    timeline,
  }) as PullRequestRecord;

test('a run that never started has no log link; one the command judged has', () => {
  const r = record([
    entry({ testRunId: 'ran' }),
    entry({ from: 'testing', to: 'pending', reason: 'BISECTION_REQUIRED', testRunId: 'ran' }),
    entry({ testRunId: 'built-never' }),
    entry({
      from: 'testing',
      to: 'failed',
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      testRunId: 'built-never',
      detail: { kind: 'conflict', pr: 5, files: ['a.txt'], onTopOf: [4] },
    }),
  ]);
  const explained = explanationOf(r, links, 'main');
  expect(explained.testRuns).toEqual([
    { testRunId: 'ran', logUrl: '/v1/testRuns/ran/log' },
    { testRunId: 'built-never' },
  ]);
  expect(explained.decidedByTestRun).toBe('built-never');
  expect(explained.reasonText).toBe(
    'Failed: #5 conflicts with #4 (tested ahead of it on main) in file a.txt.',
  );
  const runs = timelineOf(r, links, 'main').map((t) => t.testRun);
  expect(runs).toEqual([
    { testRunId: 'built-never' },
    { testRunId: 'built-never' },
    { testRunId: 'ran', logUrl: '/v1/testRuns/ran/log' },
    { testRunId: 'ran', logUrl: '/v1/testRuns/ran/log' },
  ]);
});
