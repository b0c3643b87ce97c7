/**
 * createFlakyActivities(deps): the flaky-test service's Temporal activities. The periodic
 * re-evaluation (store/reevaluate.ts) runs as one activity that heartbeats after every batch, so a
 * worker that dies mid-sweep is noticed within the heartbeat timeout and the sweep is retried; it is
 * idempotent, so a retry only redoes work.
 */
import { Context } from '@temporalio/activity';
import { type Pool } from 'pg';
import { createFlakyStore, type ReevaluationSummary } from './store';

export interface FlakyActivityDeps {
  readonly pool: Pool;
  /** Evaluation clock; the real time unless a test pins it. */
  readonly now?: () => Date;
}

export function createFlakyActivities(deps: FlakyActivityDeps) {
  const store = createFlakyStore(deps.pool, deps.now === undefined ? {} : { now: deps.now });
  return {
    async reevaluateFlakyTests(): Promise<ReevaluationSummary> {
      const context = Context.current();
      return store.reevaluate({ onProgress: (summary) => context.heartbeat(summary) });
    },
  };
}

export type FlakyActivities = ReturnType<typeof createFlakyActivities>;
