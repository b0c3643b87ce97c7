/** The merge-queue activities, composed from their parts; see each module for its rules. */
import type { Client } from '@temporalio/client';
import type { GitHost } from '../git/git-host';
import type { RepositoryOwnership } from '../stores/repository-owners';
import type { RunLogStore } from '../runners/run-logs';
import type { TestRunner } from '../runners/test-runner';
import { createGitActivities } from './git-activities';
import { createNotifyActivity } from './notify';
import { createRunCommandActivity, type JudgeTests } from './run-command';

export interface MergeQueueActivityDeps {
  gitHost: GitHost;
  runner: TestRunner;
  client: Client;
  taskQueue: string;
  judgeTests?: JudgeTests;
  /** Keeps command runs' logs for the API (runners/run-logs.ts). */
  runLogs?: RunLogStore;
}

export function createMergeQueueActivities(
  deps: MergeQueueActivityDeps & { ownership: RepositoryOwnership },
) {
  return {
    ...createGitActivities(deps),
    ...createRunCommandActivity(deps),
    ...createNotifyActivity(deps),
  };
}
