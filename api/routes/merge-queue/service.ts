/**
 * The merge-queue use cases the routes call, in the wire shapes of the Trunk API. The implementation
 * talks to Temporal (api/temporal/merge-queue-service.ts); the route tests run against it and the real
 * queue (test/support/api-stack.ts).
 *
 * Contract:
 * - Every call is scoped to the caller's organisation; another organisation's queue does not exist.
 * - Reads answer null when what they read does not exist (the queue, the PR's record, the run); the
 *   route turns that into its 404. A read inside a queue that does not exist (list, testing details)
 *   throws the queue-not-found 404 instead.
 * - Changes throw AppErrors: the queue-not-found 404, or the queue's own rejection (PR not in the
 *   queue → 404, queue not empty → 400, ...) as one plain sentence.
 * - `updateId` is fresh for every request, and the same for every retry under one Idempotency-Key
 *   (update-id.ts), so Temporal never merges two requests and applies a keyed retry once.
 */
import type { Organisation } from '../../../stores/api-keys';
import type { StoredLogInfo } from '../../../test-runs/store/run-logs';
import { conflict, notFound } from '../../errors';
import type { RepositoryKey } from '../../../contract';
import type {
  GetSubmittedPullRequestRequest,
  ListPullRequestsRequest,
  PrRequest,
  PullRequestPage,
  ReportTestStatusRequest,
  SetImpactedTargetsRequest,
  SubmitPullRequestRequest,
  SubmittedPullRequest,
  TestingDetails,
  TestingDetailsRequest,
  TestRunsInProgress,
} from '../../schemas/merge-queue';
import type { CreateQueueRequest, QueueSettings, QueueView, UpdateQueueRequest } from '../../schemas/queue';

/**
 * The queue a request names (glossary: queue address): repository and target branch. Only with the
 * caller's organisation does it identify a queue workflow, so no address reaches another's queue.
 */
export interface QueueAddress {
  repo: RepositoryKey;
  targetBranch: string;
}

/** A change request: who asks, and its Temporal update id (one per request, or per Idempotency-Key). */
export interface Change {
  org: Organisation;
  updateId: string;
}

export interface MergeQueueService {
  createQueue(org: Organisation, request: CreateQueueRequest): Promise<void>;
  getQueue(org: Organisation, key: QueueAddress): Promise<QueueView | null>;
  updateQueue(change: Change, request: UpdateQueueRequest): Promise<QueueSettings>;
  deleteQueue(change: Change, key: QueueAddress): Promise<void>;

  submitPullRequest(change: Change, request: SubmitPullRequestRequest): Promise<void>;
  cancelPullRequest(change: Change, request: PrRequest): Promise<void>;
  restartTestsOnPullRequest(change: Change, request: PrRequest): Promise<void>;
  setImpactedTargets(change: Change, request: SetImpactedTargetsRequest): Promise<void>;
  getSubmittedPullRequest(
    org: Organisation,
    request: PrRequest &
      Partial<Pick<GetSubmittedPullRequestRequest, 'includeTimeline' | 'includeEstimatedTimeToMerge'>>,
  ): Promise<SubmittedPullRequest | null>;
  listPullRequests(org: Organisation, request: ListPullRequestsRequest): Promise<PullRequestPage>;

  getTestingDetails(org: Organisation, request: TestRunRequest): Promise<TestingDetails | null>;
  /** Every test run in progress (at most MAX_RUNS_IN_PROGRESS_LISTED), in queue order. */
  getTestRunsInProgress(org: Organisation, key: QueueAddress): Promise<TestRunsInProgress>;
  /** A commit status from external CI, for the `statuses` test runner. */
  reportTestStatus(org: Organisation, request: ReportTestStatusRequest): Promise<void>;
  /** A command run's stored log (routes/merge-queue/test-run-logs.ts); null: none for this organisation. */
  readTestRunLog?(org: Organisation, testRunId: string): Promise<TestRunLog | null>;
}

export interface TestRunLog {
  info: StoredLogInfo;
  chunk: (offset: number) => Promise<Buffer>;
}

const where = (key: QueueAddress) =>
  `branch "${key.targetBranch}" of ${key.repo.host}/${key.repo.owner}/${key.repo.name}`;

export const queueNotFound = (key: QueueAddress) => notFound(`No merge queue exists for ${where(key)}.`);

export const pullRequestNotFound = (key: PrRequest) =>
  notFound(`Pull request #${key.pr.number} was never submitted to the merge queue for ${where(key)}.`);

/** getMergeQueueTestingDetails naming one run. */
export type TestRunRequest = TestingDetailsRequest & { testRunId: string };

export const testRunNotFound = (key: TestRunRequest) =>
  notFound(`No test run "${key.testRunId}" exists in the merge queue for ${where(key)}.`);

/** Trunk's own wording (trunk-compat §0), so scripts matching on it keep working. */
export const queueExists = (key: QueueAddress) =>
  conflict(`A merge queue already exists for branch "${key.targetBranch}" in this repository.`);
