/**
 * createFlakyActivities(deps): the flaky-test service's Temporal activities. The periodic
 * re-evaluation (store/reevaluate.ts) is split into pages (ADR 0020): listRepositoryPage lists the
 * next repository keys (keyset, bounded), reevaluateRepositoryPage sweeps one page, so no activity
 * grows with the number of repositories. The page activity heartbeats after every batch, so a worker
 * that dies mid-page is noticed within the heartbeat timeout and the page is retried; its heartbeat
 * details say how many of the page's repositories are done (and their summary), and a retry goes on
 * from there. The sweep is idempotent, so a retry that redoes a repository only redoes work.
 * reevaluateFlakyTests is the whole sweep in one activity (kept for tools and tests; no workflow
 * calls it).
 *
 * A repository whose sweep throws is logged at error level with its host, owner, name and
 * organisation, and counted in the summary (`failedRepositories`); the sweep goes on with the next
 * one, so the activity does not fail (and retry everything) for one tenant's bad data.
 *
 * With `events`, the sweep's status changes go out as test_case.status_changed webhooks (waited for
 * before the activity ends), and the outbox rows any process left behind are dispatched after it. A
 * failure there is reported, never thrown: webhooks cannot fail the sweep.
 *
 * The maintenance of the results (store/result-maintenance.ts: partitions made ahead, retention) is
 * one activity too, heartbeating after every partition dropped and every batch deleted; it is
 * idempotent and goes on from where a dead attempt stopped.
 */
import { Context } from '@temporalio/activity';
import { type Pool } from '../stores/db';
import { type TestCaseEvents } from '../flaky/events';
import { DEFAULT_RETENTION, type RetentionDefaults } from '../flaky/retention';
import { addSummaries, EMPTY_SUMMARY } from '../contract';
import { createFlakyStore, type RepositoryFailure, type ReevaluationSummary } from '../flaky/service';
import { maintainResults, type MaintenanceSummary } from '../flaky/store/result-maintenance';

export interface FlakyActivityDeps {
  readonly pool: Pool;
  /** Evaluation clock; the real time unless a test pins it. */
  readonly now?: () => Date;
  /** The test_case.* webhook events (events.ts); without it none are sent from here. */
  readonly events?: TestCaseEvents;
  /** Retention when an organisation sets none (RAILYARD_FLAKY_*_RETENTION_DAYS). */
  readonly retention?: RetentionDefaults;
}

/** Well inside the workflow's heartbeat timeout (2 minutes). */
const HEARTBEAT_MS = 30_000;

/** One page of the scheduled re-evaluation: repository keys, as listRepositoryPage gave them. */
export interface RepositoryPageInput {
  readonly pks: readonly string[];
}

/** Where a page's attempt got to: the first `done` keys are swept, with this summary. */
interface PageProgress {
  readonly done: number;
  readonly summary: ReevaluationSummary;
}

function progressOf(details: unknown, pageLength: number): PageProgress {
  const p = details as Partial<PageProgress> | undefined;
  return typeof p?.done === 'number' && p.done >= 0 && p.done <= pageLength && p.summary !== undefined
    ? { done: p.done, summary: p.summary }
    : { done: 0, summary: EMPTY_SUMMARY };
}

export function createFlakyActivities(deps: FlakyActivityDeps) {
  const store = createFlakyStore(deps.pool, {
    ...(deps.now === undefined ? {} : { now: deps.now }),
    ...(deps.events === undefined ? {} : { events: deps.events }),
  });
  /** The sweep's status changes out as webhooks; a failure is logged, never thrown. */
  async function dispatchEvents(context: Context, details: unknown): Promise<void> {
    if (deps.events === undefined) return;
    // Dispatching is work too: keep the heartbeat going while it runs.
    const beat = setInterval(() => context.heartbeat(details), HEARTBEAT_MS);
    try {
      await deps.events.idle();
      await deps.events.drain();
    } catch (err) {
      context.log.warn('test_case webhook events left in the outbox could not be dispatched', {
        error: err instanceof Error ? err.message : String(err),
      });
    } finally {
      clearInterval(beat);
    }
  }

  return {
    async reevaluateFlakyTests(): Promise<ReevaluationSummary> {
      const context = Context.current();
      const summary = await store.reevaluate({
        onProgress: (s) => context.heartbeat(s),
        onRepositoryFailed: (failure) => logFailure(context, failure),
      });
      await dispatchEvents(context, summary);
      return summary;
    },

    /** The next `limit` repository keys after `after` (null: the first page), in key order. */
    async listRepositoryPage(input: { after: string | null; limit: number }): Promise<string[]> {
      return store.listRepositoryPage(input.after, input.limit);
    },

    async reevaluateRepositoryPage(input: RepositoryPageInput): Promise<ReevaluationSummary> {
      const context = Context.current();
      const resumed = progressOf(context.info.heartbeatDetails, input.pks.length);
      let progress = resumed;
      const page = await store.reevaluateRepositories(input.pks.slice(resumed.done), {
        // Between repositories the details move on; within one they are kept (a retry redoes it whole).
        onProgress: () => context.heartbeat(progress),
        onRepositoryDone: (pk, sofar) => {
          // By position, so a key whose repository is gone (skipped, no call) is passed over too.
          const done = input.pks.indexOf(pk, resumed.done) + 1;
          progress = { done, summary: addSummaries(resumed.summary, sofar) };
          context.heartbeat(progress);
        },
        onRepositoryFailed: (failure) => logFailure(context, failure),
      });
      const summary = addSummaries(resumed.summary, page);
      await dispatchEvents(context, progress);
      return summary;
    },

    async maintainFlakyResults(): Promise<MaintenanceSummary> {
      const context = Context.current();
      const summary = await maintainResults(deps.pool, (deps.now ?? (() => new Date()))(), {
        defaults: deps.retention ?? DEFAULT_RETENTION,
        onProgress: (s) => context.heartbeat(s),
      });
      if (summary.partitionsLeft.length > 0)
        context.log.warn(
          'result partitions past retention were left for the next run (lock not granted in time)',
          {
            partitions: summary.partitionsLeft,
          },
        );
      return summary;
    },
  };
}

function logFailure(context: Context, failure: RepositoryFailure): void {
  const repository = `${failure.host}/${failure.owner}/${failure.name}`;
  context.log.error(
    `re-evaluation of repository ${repository} (organisation ${failure.organisation}) failed; the sweep goes on`,
    {
      repository,
      host: failure.host,
      owner: failure.owner,
      name: failure.name,
      organisation: failure.organisation,
      organisationId: failure.organisationId,
      error: failure.error instanceof Error ? failure.error.message : String(failure.error),
    },
  );
}

export type FlakyActivities = ReturnType<typeof createFlakyActivities>;
