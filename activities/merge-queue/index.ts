/** The merge-queue activities, composed from their parts; see each module for its rules. */
import type { Client } from '@temporalio/client';
import type { GitHost } from '../git/git-host';
import type { RepositoryOwnership } from '../stores/repository-owners';
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
