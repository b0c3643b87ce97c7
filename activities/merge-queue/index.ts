/** The merge-queue activities, composed from their parts; see each module for its rules. */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { GitHost } from '../../git/git-host';
import type { RepositoryOwnership } from '../../stores/repository-owners';
import { createRunContentStore, type RunContentStore } from '../../test-runs/store/run-content';
import { createRunBaseStore, type RunBaseStore } from '../../test-runs/store/run-bases';
import { DEFAULT_RUN_CONTENT_MAX_BYTES } from '../../executor/content-fetch';
import { createRunSlots, type RunSlots } from '../../test-runs/store/run-slots';
import { createExecutorJobs, type ExecutorJobs } from '../../test-runs/store/executor-jobs';
import { createTestRunControlActivities } from '../test-runs';
import type { JudgeTests } from '../../test-runs/judge';
import type { RunLogStore } from '../../test-runs/store/run-logs';
import type { Pool } from '../../stores/db';
import { tmpdir } from 'node:os';
import {
  runSlotFreedSignal,
  TEST_RUN_WORKFLOW_TYPE,
  testRunFinishedSignal,
  type TestRunWorkflow,
} from '../../contract';
import { createGitActivities } from './git-activities';
import type { SideEffectsInput, SideEffectsResult } from '../side-effects/types';
import { createNotifyActivity } from './notify';
import { createUploadedFailuresActivity, type UploadedFailuresDeps } from './uploaded-failures';
import { createPrRecordStore, type PrRecordStore } from '../../events/store/pr-records';
import type { ProcessRunner } from '../../platform/process-runner';

export interface MergeQueueActivityDeps {
  gitHost: GitHost;
  client: Client;
  taskQueue: string;
  judgeTests?: JudgeTests;
  /** Keeps command runs' logs for the API (runners/run-logs.ts). */
  runLogs?: RunLogStore;
  /** Where the control plane builds the git bundles it hands to executors; default the OS's temp. */
  scratchRoot?: string;
  /** Runs the bundles' git commands; default: from this process (the worker gives its broker). */
  processes?: ProcessRunner;
  /** Run content staged for executors (executor/run-content.ts); default: in `pool`, default bounds. */
  contents?: RunContentStore;
  /** Staged bases of thin run content (ADR 0025); default: PostgreSQL's, with the default limit. */
  bases?: RunBaseStore;
  /** The per-organisation cap on runs (executor/run-slots.ts); default: in `pool`, default cap. */
  slots?: RunSlots;
  /** Test runs handed to executors (test-runs/store/executor-jobs.ts); default: in `pool`. */
  jobs?: ExecutorJobs;
  /** The read projection's PR records (ADR 0016); default: in `pool`. */
  records?: PrRecordStore;
  /** Where a CI-judged run's failed tests are read from CI's uploads (uploaded-failures.ts); none: not read. */
  uploadedFailures?: UploadedFailuresDeps;
}

export function createMergeQueueActivities(
  deps: MergeQueueActivityDeps & {
    ownership: RepositoryOwnership;
    pool: Pool;
    /** The side effects that ride along with the git activities (activities/side-effects/riding.ts). */
    performSideEffects?: (input: SideEffectsInput) => Promise<SideEffectsResult>;
  },
) {
  const bases = deps.bases ?? createRunBaseStore(deps.pool, { maxBytes: DEFAULT_RUN_CONTENT_MAX_BYTES });
  return {
    ...createGitActivities({
      ...deps,
      startTestRun: async ({ workflowId, taskQueue, staticSummary, input }, built) => {
        try {
          await deps.client.workflow.start<TestRunWorkflow>(TEST_RUN_WORKFLOW_TYPE, {
            workflowId,
            taskQueue,
            args: [{ ...input, ...built }],
            staticSummary,
            // Once per id, ever: a retried build must not run the tests again after the run ended.
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
          });
        } catch (err) {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        }
      },
    }),
    ...createTestRunControlActivities({
      gitHost: deps.gitHost,
      contents: deps.contents ?? createRunContentStore(deps.pool, { bases }),
      bases,
      slots: deps.slots ?? createRunSlots(deps.pool),
      jobs: deps.jobs ?? createExecutorJobs(deps.pool),
      scratchRoot: deps.scratchRoot ?? tmpdir(),
      ...(deps.processes ? { processes: deps.processes } : {}),
      wake: (workflowId) => deps.client.workflow.getHandle(workflowId).signal(runSlotFreedSignal),
      tellQueue: async (queueWorkflowId, finished) => {
        try {
          await deps.client.workflow.getHandle(queueWorkflowId).signal(testRunFinishedSignal, finished);
        } catch (err) {
          // A queue that ended (deleted) has nobody to tell.
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      },
      ...(deps.judgeTests ? { judgeTests: deps.judgeTests } : {}),
      ...(deps.runLogs ? { runLogs: deps.runLogs } : {}),
    }),
    ...createNotifyActivity({ ...deps, records: deps.records ?? createPrRecordStore(deps.pool) }),
    ...createUploadedFailuresActivity(deps.uploadedFailures ?? {}),
  };
}
