/**
 * flakyReevaluationWorkflow: one periodic sweep of the flaky-test statuses, started by the Temporal
 * Schedule of worker/reevaluation-schedule.ts, partitioned so that nothing grows with the number of
 * repositories (ADR 0020):
 *  - the repositories are listed in pages of `pageSize` keys (keyset on the repository key, one
 *    listRepositoryPage activity per page), and each page is swept by its own
 *    reevaluateRepositoryPage activity, with its own retries and heartbeat deadline;
 *  - at most `concurrency` pages are swept at once, so a slow repository holds up its own page only,
 *    and the database sees a bounded number of sweeping connections;
 *  - after `pagesPerRun` pages the run waits for its pages and continues as new with the cursor and
 *    the summary so far, so one run's history stays within reevaluationHistoryBound(pagesPerRun) events
 *    (contract/flaky-reevaluation-messages.ts) whatever the number of repositories.
 *
 * Why continue-as-new and not a child workflow per page: a parent's history grows with every child
 * it starts (three events each, and a workflow task per completion), so children alone would not
 * bound it; it would still have to continue as new. One chain of runs under one workflow id is also
 * what the Schedule's overlap policy (SKIP) watches, and the cursor and the running total are all the
 * state there is to carry. Activities give a page the retries and the isolation a child would.
 *
 * Failures stay where they happen: a repository that throws is caught inside its page (logged,
 * counted in `failedRepositories`, named in `failed`) and the page goes on; a page whose activity
 * fails every attempt (a worker lost each time, the database away for minutes) is counted as that many
 * failed repositories and the sweep goes on with the others. Only a listing that fails every attempt
 * fails the run: nothing past the cursor can be found without it, and the next hour starts over.
 * Every repository listed is swept once per run (a retried page resumes after the repositories its
 * dead attempt finished, per its heartbeat); the sweep is idempotent, so a redo only redoes work.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  log,
  proxyActivities,
} from '@temporalio/workflow';
import type { FlakyActivities } from '../../activities/flaky';
import {
  addSummaries,
  DEFAULT_REEVALUATION_CONCURRENCY,
  DEFAULT_REEVALUATION_PAGE_SIZE,
  DEFAULT_REEVALUATION_PAGES_PER_RUN,
  EMPTY_SUMMARY,
  type FlakyReevaluationInput,
  MAX_REEVALUATION_PAGE_SIZE,
  type ReevaluationSummary,
} from '../../contract';

const { listRepositoryPage } = proxyActivities<FlakyActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

const { reevaluateRepositoryPage } = proxyActivities<FlakyActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 5 },
});

export async function flakyReevaluationWorkflow(
  input: FlakyReevaluationInput = {},
): Promise<ReevaluationSummary> {
  const pageSize = positive(
    input.pageSize,
    DEFAULT_REEVALUATION_PAGE_SIZE,
    'pageSize',
    MAX_REEVALUATION_PAGE_SIZE,
  );
  const concurrency = positive(input.concurrency, DEFAULT_REEVALUATION_CONCURRENCY, 'concurrency');
  const pagesPerRun = positive(input.pagesPerRun, DEFAULT_REEVALUATION_PAGES_PER_RUN, 'pagesPerRun');
  let summary = input.carried ?? EMPTY_SUMMARY;
  let after = input.after ?? null;
  const running = new Set<Promise<void>>();
  const sweep = (pks: string[]) => {
    const done: Promise<void> = reevaluateRepositoryPage({ pks }).then(
      (page) => {
        summary = addSummaries(summary, page);
      },
      (err: unknown) => {
        const reason = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
        const label = `the ${pks.length} repositories with keys ${pks[0]} to ${pks[pks.length - 1]} (page failed: ${reason})`;
        log.error(`re-evaluation of a page failed every attempt; the sweep goes on`, { pks, reason });
        summary = addSummaries(summary, {
          ...EMPTY_SUMMARY,
          failedRepositories: pks.length,
          failed: [label],
        });
      },
    );
    running.add(done);
    void done.then(() => running.delete(done));
  };

  let pages = 0;
  let last = false;
  while (!last && pages < pagesPerRun) {
    while (running.size >= concurrency) await Promise.race(running);
    const pks = await listRepositoryPage({ after, limit: pageSize });
    last = pks.length < pageSize;
    if (pks.length === 0) break;
    after = pks[pks.length - 1]!;
    pages += 1;
    sweep(pks);
  }
  await Promise.all(running);

  if (!last && after !== null) {
    await continueAsNew<typeof flakyReevaluationWorkflow>({ ...input, after, carried: summary });
  }
  if (summary.failedRepositories > 0) {
    log.warn(`re-evaluation left out ${summary.failedRepositories} repositories that failed`, {
      failed: summary.failed,
    });
  }
  return summary;
}

/** Bad input fails the run at once (not the workflow task, which would retry forever). */
function positive(value: number | undefined, fallback: number, field: string, max = Infinity): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw ApplicationFailure.nonRetryable(
      `The re-evaluation's ${field} must be a positive integer${max === Infinity ? '' : ` of at most ${max}`}, got ${value}.`,
    );
  return value;
}
