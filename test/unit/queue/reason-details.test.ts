/**
 * Issue 28: the detail of a PR ejected for failing tests (workflows/queue/reason-details.ts) names the
 * tests, and the runs with their size, role and outcome, from the queue's carried runs.
 */
import { explainState } from '../../../contract';
import type { NotifyPr } from '../../../engine';
import type { RunMeta } from '../../../workflows/queue/carried';
import type { QueueContext } from '../../../workflows/queue/context';
import { testEvidence, transitionDetail } from '../../../workflows/queue/reason-details';

const run = (runId: string, prs: number[], ahead: number[], extra: Partial<RunMeta> = {}): RunMeta =>
  ({ runId, prs, ahead, bisection: false, status: 'failed', runner: 'command', ...extra }) as RunMeta;

const ctxOf = (runs: RunMeta[]) =>
  ({ carried: { runs, prs: {} } }) as unknown as Pick<QueueContext, 'carried'>;

const ejected = (pr: number, extra: Partial<NotifyPr>): NotifyPr =>
  ({
    type: 'notifyPr',
    pr,
    from: 'pending_failure',
    at: 0,
    to: 'failed',
    reason: 'TEST_RUN_COMMAND_FAILED',
    ...extra,
  }) as NotifyPr;

test('a bisection culprit: the batch, the chunk that cleared the others, its own run', () => {
  const ctx = ctxOf([
    run('batch-run', [1, 2, 3, 4, 5, 6, 7, 8], []),
    run('chunk-run', [1, 2, 3, 4], [], { bisection: true, status: 'succeeded' }),
    run('alone-run', [5], [], { bisection: true }),
  ]);
  const cmd = ejected(5, {
    runId: 'alone-run',
    convictedBy: ['batch-run', 'chunk-run', 'alone-run'],
    failedTests: ['calc › divides'],
  });
  const detail = transitionDetail(ctx, cmd);
  expect(detail).toEqual({
    kind: 'test_evidence',
    tests: ['calc › divides'],
    moreTests: 0,
    runs: [
      { testRunId: 'batch-run', prs: 8, role: 'batch', failed: true },
      { testRunId: 'chunk-run', prs: 4, role: 'bisection', failed: false },
      { testRunId: 'alone-run', prs: 1, role: 'bisection', failed: true },
    ],
    moreRuns: 0,
  });
  expect(explainState({ state: 'failed', reason: cmd.reason, detail, targetBranch: 'main' })).toBe(
    "Failed: the queue's test command failed on the test branch: `calc › divides` failed in runs batch-ru (batch of 8) and alone-ru (alone); without this PR it did not fail in run chunk-ru (chunk of 4).",
  );
});

test('a failure after a flaky retry names the retry; a failure naming no test keeps the run detail', () => {
  const ctx = ctxOf([
    run('first', [3], [1, 2]),
    run('retry', [3], [1, 2], { detail: { kind: 'problem', text: 'x' } }),
  ]);
  expect(
    testEvidence(ctx, ejected(3, { runId: 'retry', convictedBy: ['first', 'retry'], failedTests: ['t'] })),
  ).toMatchObject({
    runs: [
      { testRunId: 'first', role: 'batch', failed: true },
      { testRunId: 'retry', role: 'flaky_retry', failed: true },
    ],
  });
  expect(transitionDetail(ctx, ejected(3, { runId: 'retry', convictedBy: ['first', 'retry'] }))).toEqual({
    kind: 'problem',
    text: 'x',
  });
});
