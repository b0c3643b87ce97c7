/**
 * createActivities(deps): the one object of activity implementations the worker registers. Every
 * dependency (pool, git host, runners) comes in through `deps`; nothing here reads the environment.
 */
import { createMergeQueueActivities, type MergeQueueActivityDeps } from './merge-queue';
import { createPingActivities } from './ping';

export interface ActivityDeps extends MergeQueueActivityDeps {
  workerIdentity: string;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createPingActivities(deps),
    ...createMergeQueueActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
